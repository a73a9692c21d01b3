/**
 * Standing grants: the checks every store shares. What a valid grant is, whom a grant records as
 * the decider, and whether a grant may approve an approval at an instant, its arguments schema
 * included: the store decides that itself, so no entry point (the gate, the CLI, the inbox, a
 * host calling the store) can approve a call the grant's schema does not admit.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { compileSchema } from "../schema/compile.ts";
import type { SchemaValidator } from "../schema/types.ts";
import { ApprovalError } from "./errors.ts";
import { objectText, requireText, validateCallerId } from "./machine.ts";
import type { ApprovalGrant, ApprovalRecord, GrantInput, GrantRefusalCode } from "./types.ts";

/** How many grants' compiled schemas one store keeps. */
const COMPILED_GRANT_LIMIT = 256;

/**
 * The decider an approval approved by grant `grantId` records: `grant:<id>`.
 *
 * @category Approvals
 */
export function grantDecider(grantId: string): string {
  return `grant:${grantId}`;
}

/**
 * What a grant is at `now`: usable, or why not.
 *
 * @category Approvals
 */
export type GrantStatus = "active" | "revoked" | "expired" | "exhausted";

/**
 * The status of a grant at `now`.
 *
 * @category Approvals
 */
export function grantStatus(grant: ApprovalGrant, now: number): GrantStatus {
  if (grant.revokedAt !== undefined) return "revoked";
  if (grant.expiresAt !== undefined && grant.expiresAt <= now) return "expired";
  if (grant.uses >= grant.maxUses) return "exhausted";
  return "active";
}

/**
 * Checks a grant before it is stored: the tool's identity, a positive whole number of uses, a
 * run or an expiry (or both), a schema that is a JSON object, who grants, and a caller-chosen id
 * that is a UUID. Returns the schema's canonical JSON text, or `null` without one.
 *
 * @category Approvals
 */
export function validateGrant(input: GrantInput): string | null {
  if (typeof input !== "object" || input === null) {
    throw new ApprovalError("approval_invalid_request", "a grant must be an object");
  }
  for (const field of ["serverId", "toolName", "bindingId", "catalogDigest", "by"] as const) {
    requireText(input[field], field);
  }
  validateCallerId(input.id);
  if (!Number.isSafeInteger(input.maxUses) || input.maxUses < 1) {
    throw new ApprovalError("approval_invalid_request", "maxUses must be a positive integer");
  }
  if (input.runId !== undefined) requireText(input.runId, "runId");
  if (
    input.expiresAt !== undefined &&
    (typeof input.expiresAt !== "number" || !Number.isFinite(input.expiresAt))
  ) {
    throw new ApprovalError("approval_invalid_request", "expiresAt must be a finite number");
  }
  if (input.runId === undefined && input.expiresAt === undefined) {
    throw new ApprovalError(
      "approval_invalid_request",
      "a grant needs a runId, an expiresAt, or both",
    );
  }
  if (input.note !== undefined && typeof input.note !== "string") {
    throw new ApprovalError("approval_invalid_request", "note must be a string");
  }
  const schema = input.argumentsSchema;
  return schema === undefined ? null : objectText(schema, "argumentsSchema");
}

/**
 * The grant already stored under the id `input` names, when it has exactly the terms of `input`
 * (`schemaJson` is `input`'s schema as {@link validateGrant} returned it): a replayed
 * `createGrant` answers with the grant it made. Other terms throw `approval_conflict`.
 *
 * @category Approvals
 */
export function requireSameGrant(
  existing: ApprovalGrant,
  input: GrantInput,
  schemaJson: string | null,
): ApprovalGrant {
  const existingSchema = existing.argumentsSchema === undefined
    ? null
    : objectText(existing.argumentsSchema, "argumentsSchema");
  const same = existing.serverId === input.serverId && existing.toolName === input.toolName &&
    existing.bindingId === input.bindingId && existing.catalogDigest === input.catalogDigest &&
    existing.runId === input.runId && existing.expiresAt === input.expiresAt &&
    existing.maxUses === input.maxUses && existing.grantedBy === input.by &&
    existing.note === input.note && existingSchema === schemaJson;
  if (same) return existing;
  throw new ApprovalError(
    "approval_conflict",
    `grant ${existing.id} exists already with other terms`,
  );
}

/**
 * Checks a revocation or a grant id: non-empty text.
 *
 * @category Approvals
 */
export function validateRevoke(id: string, by: unknown): void {
  requireText(id, "id");
  requireText(by, "by");
}

/**
 * Why `grant` may not approve `approval` at `now`, or `undefined` when it may: the grant must be
 * active and cover the approval's server, tool, binding, catalog digest and (for a run grant)
 * run; the approval must be pending and not past its expiry (else `approval_grant_mismatch`).
 * The grant's arguments schema is {@link GrantSchemas}' to check.
 *
 * @category Approvals
 */
export function grantRefusal(
  grant: ApprovalGrant,
  approval: ApprovalRecord,
  now: number,
): GrantRefusalCode | undefined {
  const status = grantStatus(grant, now);
  if (status !== "active") return `approval_grant_${status}`;
  const covers = grant.serverId === approval.serverId && grant.toolName === approval.toolName &&
    grant.bindingId === approval.bindingId && grant.catalogDigest === approval.catalogDigest &&
    (grant.runId === undefined || grant.runId === approval.runId);
  if (!covers || approval.state !== "pending" || approval.expiresAt <= now) {
    return "approval_grant_mismatch";
  }
  return undefined;
}

/**
 * Whether a grant's arguments schema admits an approval's arguments, each grant's schema compiled
 * once with sluice's profile (a grant's schema never changes). A stored schema the profile
 * refuses admits nothing.
 *
 * @category Approvals
 */
export class GrantSchemas {
  readonly #validators = new Map<string, SchemaValidator | null>();

  /** Whether `grant` admits `args` (a grant without a schema admits every call of its tool). */
  admits(grant: Pick<ApprovalGrant, "id" | "argumentsSchema">, args: JsonObject): boolean {
    if (grant.argumentsSchema === undefined) return true;
    let validate = this.#validators.get(grant.id);
    if (validate === undefined) {
      try {
        validate = compileSchema(grant.argumentsSchema);
      } catch {
        validate = null;
      }
      if (this.#validators.size >= COMPILED_GRANT_LIMIT) {
        this.#validators.delete(this.#validators.keys().next().value!);
      }
      this.#validators.set(grant.id, validate);
    }
    return validate !== null && validate(args).valid;
  }

  /**
   * Why `grant` may not approve `approval` at `now` ({@link grantRefusal}), or
   * `approval_grant_mismatch` when its schema does not admit the approval's arguments.
   */
  refusal(
    grant: ApprovalGrant,
    approval: ApprovalRecord,
    now: number,
  ): GrantRefusalCode | undefined {
    return grantRefusal(grant, approval, now) ??
      (this.admits(grant, approval.arguments) ? undefined : "approval_grant_mismatch");
  }
}
