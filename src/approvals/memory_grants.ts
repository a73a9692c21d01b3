/**
 * The standing grants of `MemoryApprovalStore`, held in process memory like its approvals:
 * each grant, its history, and the compiled argument schemas its uses are checked against.
 * Every method returns copies, never what it holds.
 *
 * @module
 */
import { ApprovalError } from "./errors.ts";
import { GrantSchemas, requireSameGrant, validateGrant, validateRevoke } from "./grants.ts";
import type {
  ApprovalGrant,
  ApprovalRecord,
  GrantEvent,
  GrantFilter,
  GrantInput,
  GrantRefusalCode,
  RevokeGrantInput,
} from "./types.ts";

/** A use of a grant: the grant after it and the instant, or why it may not be used. */
export type GrantUse =
  | { readonly ok: true; readonly grant: ApprovalGrant; readonly at: number }
  | { readonly ok: false; readonly code: GrantRefusalCode | "approval_grant_not_found" };

/** Grants and their histories in memory. */
export class MemoryGrants {
  readonly #now: () => number;
  readonly #grants = new Map<string, ApprovalGrant>();
  readonly #events = new Map<string, GrantEvent[]>();
  readonly #schemas = new GrantSchemas();

  /** @param now the store's clock */
  constructor(now: () => number) {
    this.#now = now;
  }

  /** Records a standing grant, or returns the one its caller-chosen id names (same terms). */
  create(input: GrantInput): ApprovalGrant {
    const schema = validateGrant(input);
    const stored = input.id === undefined ? undefined : this.#grants.get(input.id);
    if (stored !== undefined) return structuredClone(requireSameGrant(stored, input, schema));
    const at = this.#now();
    const grant: ApprovalGrant = {
      id: input.id ?? crypto.randomUUID(),
      serverId: input.serverId,
      toolName: input.toolName,
      bindingId: input.bindingId,
      catalogDigest: input.catalogDigest,
      ...(input.runId === undefined ? {} : { runId: input.runId }),
      ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
      maxUses: input.maxUses,
      uses: 0,
      ...(schema === null ? {} : { argumentsSchema: JSON.parse(schema) }),
      grantedBy: input.by,
      ...(input.note === undefined ? {} : { note: input.note }),
      createdAt: at,
    };
    this.#grants.set(grant.id, grant);
    this.#log(grant.id, "created", at, input.by);
    return structuredClone(grant);
  }

  /** One grant, or `undefined`. */
  get(id: string): ApprovalGrant | undefined {
    return structuredClone(this.#grants.get(id));
  }

  /** Grants, oldest first. */
  list(filter: GrantFilter): ApprovalGrant[] {
    return structuredClone(
      [...this.#grants.values()].filter((grant) =>
        (filter.serverId === undefined || grant.serverId === filter.serverId) &&
        (filter.toolName === undefined || grant.toolName === filter.toolName)
      ),
    );
  }

  /** A person revokes a grant. */
  revoke(id: string, input: RevokeGrantInput): ApprovalGrant {
    validateRevoke(id, input?.by);
    const grant = this.#grants.get(id);
    if (grant === undefined) {
      throw new ApprovalError("approval_grant_not_found", `no grant ${id}`);
    }
    if (grant.revokedAt !== undefined) {
      throw new ApprovalError("approval_grant_revoked", `grant ${id} is already revoked`);
    }
    const at = this.#now();
    const revoked = { ...grant, revokedBy: input.by, revokedAt: at };
    this.#grants.set(id, revoked);
    this.#log(id, "revoked", at, input.by);
    return structuredClone(revoked);
  }

  /** Uses one of grant `grantId`'s uses for `record` at `now` (default: the clock). */
  use(grantId: string, record: ApprovalRecord, now: number | undefined): GrantUse {
    const grant = this.#grants.get(grantId);
    if (grant === undefined) return { ok: false, code: "approval_grant_not_found" };
    const at = now ?? this.#now();
    const code = this.#schemas.refusal(grant, record, at);
    if (code !== undefined) return { ok: false, code };
    const used = { ...grant, uses: grant.uses + 1 };
    this.#grants.set(grantId, used);
    this.#log(grantId, "used", at, undefined, record.id);
    return { ok: true, grant: structuredClone(used), at };
  }

  /** The grant's history, oldest first. */
  events(id: string): GrantEvent[] {
    return structuredClone(this.#events.get(id) ?? []);
  }

  /** Drops every grant. */
  clear(): void {
    this.#grants.clear();
    this.#events.clear();
  }

  #log(
    grantId: string,
    kind: GrantEvent["kind"],
    at: number,
    by?: string,
    approvalId?: string,
  ): void {
    let history = this.#events.get(grantId);
    if (history === undefined) this.#events.set(grantId, history = []);
    history.push({
      seq: history.length + 1,
      grantId,
      kind,
      at,
      ...(by === undefined ? {} : { by }),
      ...(approvalId === undefined ? {} : { approvalId }),
    });
  }
}
