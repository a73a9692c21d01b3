/**
 * The approval state machine and the checks every store shares: which transitions are legal,
 * what a valid request is, and how a claim is decided.
 *
 * @module
 */
import { canonicalize, digestText, type JsonObject } from "../identity/mod.ts";
import { ApprovalError } from "./errors.ts";
import type {
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  ClaimExpectation,
  ClaimRefusalCode,
  DecisionInput,
  EditDecisionInput,
  ReconcileInput,
} from "./types.ts";

/**
 * Every legal transition; anything else is `approval_invalid_transition`.
 *
 * @category Approvals
 */
export const TRANSITIONS: Readonly<Record<ApprovalState, readonly ApprovalState[]>> = Object
  .freeze({
    // `superseded`: a person approved an edited call instead (a new approval replaces this one).
    pending: ["approved", "denied", "expired", "superseded"],
    // An approval nobody claimed in time expires; it never goes back to pending.
    approved: ["claimed", "expired"],
    claimed: ["committed", "not_started", "unknown"],
    unknown: ["reconciled"],
    denied: [],
    expired: [],
    superseded: [],
    committed: [],
    not_started: [],
    reconciled: [],
  });

/**
 * States no transition leaves.
 *
 * @category Approvals
 */
export const TERMINAL_STATES: readonly ApprovalState[] = Object.freeze(
  (Object.keys(TRANSITIONS) as ApprovalState[]).filter((state) => TRANSITIONS[state].length === 0),
);

/**
 * Every state, for validation of input.
 *
 * @category Approvals
 */
export const APPROVAL_STATES: readonly ApprovalState[] = Object.freeze(
  Object.keys(TRANSITIONS) as ApprovalState[],
);

/**
 * Throws `approval_invalid_transition` unless `from → to` is legal.
 *
 * @category Approvals
 */
export function assertTransition(id: string, from: ApprovalState, to: ApprovalState): void {
  if (!TRANSITIONS[from].includes(to)) {
    throw new ApprovalError(
      "approval_invalid_transition",
      `approval ${id} cannot go from ${from} to ${to}`,
    );
  }
}

/**
 * Throws `approval_invalid_request` unless `value` is a non-empty string.
 *
 * @category Approvals
 */
export function requireText(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new ApprovalError("approval_invalid_request", `${name} must be a non-empty string`);
  }
  return value;
}

/** The shape of a caller-chosen id: a UUID, as `crypto.randomUUID()` makes. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Checks a caller-chosen id (of an approval or a grant): absent, or a UUID.
 *
 * @category Approvals
 */
export function validateCallerId(id: unknown): void {
  if (id !== undefined && (typeof id !== "string" || !UUID.test(id))) {
    throw new ApprovalError("approval_invalid_request", "id must be a UUID");
  }
}

const BINDING_TEXT_FIELDS = [
  "serverId",
  "toolName",
  "remoteToolName",
  "catalogDigest",
  "bindingId",
  "scopeId",
  "scopeRevision",
] as const;

/**
 * Checks the shape of a request before it is stored: every identity field present, a known
 * effect, a finite expiry, run and call ids together or not at all, arguments a JSON object.
 * Returns the canonical JSON text of the arguments, which is what a store keeps and what
 * {@link verifyArgumentsDigest} hashes.
 *
 * @category Approvals
 */
export function checkRequest(request: ApprovalRequest): string {
  validateExpectation(request);
  if (typeof request.expiresAt !== "number" || !Number.isFinite(request.expiresAt)) {
    throw new ApprovalError("approval_invalid_request", "expiresAt must be a finite number");
  }
  if ((request.runId === undefined) !== (request.callId === undefined)) {
    throw new ApprovalError("approval_invalid_request", "runId and callId go together");
  }
  if (request.runId !== undefined) requireText(request.runId, "runId");
  if (request.callId !== undefined) requireText(request.callId, "callId");
  validateCallerId(request.id);
  if (request.traceLink !== undefined && !isTraceLink(request.traceLink)) {
    throw new ApprovalError(
      "approval_invalid_request",
      "traceLink must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)",
    );
  }
  const args = request.arguments;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new ApprovalError("approval_invalid_request", "arguments must be a JSON object");
  }
  return canonicalize(args);
}

/** A W3C `traceparent` of version 00 whose trace and span ids are not all zeros. */
const TRACE_LINK = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Whether `value` is a trace link an approval can keep: a W3C `traceparent` of version `00`.
 *
 * @param value the candidate
 *
 * @category Approvals
 */
export function isTraceLink(value: unknown): value is string {
  return typeof value === "string" && TRACE_LINK.test(value);
}

/**
 * Checks that `argumentsDigest` is the digest of the arguments' canonical text, so what people
 * see is exactly what the claim is bound to.
 *
 * @category Approvals
 */
export async function verifyArgumentsDigest(canonical: string, expected: string): Promise<void> {
  if (await digestText(canonical) !== expected) {
    throw new ApprovalError(
      "approval_invalid_request",
      "argumentsDigest is not the digest of arguments",
    );
  }
}

/**
 * {@link checkRequest} then {@link verifyArgumentsDigest}; returns the canonical arguments.
 *
 * @category Approvals
 */
export async function validateRequest(request: ApprovalRequest): Promise<string> {
  const canonical = checkRequest(request);
  await verifyArgumentsDigest(canonical, request.argumentsDigest);
  return canonical;
}

/**
 * Checks what a caller expects at claim time: every identity field a non-empty string, a known
 * effect, an arguments digest. A malformed expectation is the caller's bug, not a refusal: it
 * throws `approval_invalid_request` and no store records anything for it, so every store answers
 * the same bad input the same way.
 *
 * @category Approvals
 */
export function validateExpectation(expected: ClaimExpectation): void {
  if (typeof expected !== "object" || expected === null) {
    throw new ApprovalError(
      "approval_invalid_request",
      "a request or expectation must be an object",
    );
  }
  for (const field of BINDING_TEXT_FIELDS) requireText(expected[field], field);
  requireText(expected.argumentsDigest, "argumentsDigest");
  if (expected.effect !== "write" && expected.effect !== "destructive") {
    throw new ApprovalError("approval_invalid_request", "effect must be write or destructive");
  }
}

/**
 * Checks the instant a claim is judged at, when the caller passes one.
 *
 * @category Approvals
 */
export function validateInstant(now: number | undefined): void {
  if (now !== undefined && (typeof now !== "number" || !Number.isFinite(now))) {
    throw new ApprovalError("approval_invalid_request", "now must be a finite number");
  }
}

/**
 * Checks a person's decision: who, and an optional text note.
 *
 * @category Approvals
 */
export function validateDecision(input: DecisionInput): void {
  requireText(input?.by, "by");
  if (input.note !== undefined && typeof input.note !== "string") {
    throw new ApprovalError("approval_invalid_request", "note must be a string");
  }
}

/**
 * Checks a person's approval with edits: a decision plus the edited arguments, a JSON object.
 * Returns the edited arguments' canonical text (what a store keeps and hashes).
 *
 * @category Approvals
 */
export function validateEdits(input: EditDecisionInput): string {
  validateDecision(input);
  return objectText(input.arguments, "arguments");
}

/**
 * The canonical JSON text of `value`, which must be a plain JSON object; else
 * `approval_invalid_request` naming `name`.
 *
 * @category Approvals
 */
export function objectText(value: unknown, name: string): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApprovalError("approval_invalid_request", `${name} must be a JSON object`);
  }
  try {
    return canonicalize(value);
  } catch {
    throw new ApprovalError("approval_invalid_request", `${name} must be plain JSON`);
  }
}

/**
 * The request of the approval that replaces `original` when a person edits its arguments: the
 * same binding and expiry, the edited arguments and their digest, no run and call ids (those stay
 * with the original, which links to it).
 *
 * @category Approvals
 */
export async function editedRequest(
  original: ApprovalRecord,
  canonical: string,
): Promise<ApprovalRequest> {
  return {
    serverId: original.serverId,
    toolName: original.toolName,
    remoteToolName: original.remoteToolName,
    catalogDigest: original.catalogDigest,
    bindingId: original.bindingId,
    scopeId: original.scopeId,
    scopeRevision: original.scopeRevision,
    effect: original.effect,
    arguments: JSON.parse(canonical) as JsonObject,
    argumentsDigest: await digestText(canonical),
    expiresAt: original.expiresAt,
    // The edit continues the call the original's span prepared.
    ...(original.traceLink === undefined ? {} : { traceLink: original.traceLink }),
  };
}

/**
 * Checks an outcome: a receipt with a digest and a time, or a reason.
 *
 * @category Approvals
 */
export function validateOutcome(outcome: ApprovalOutcome): void {
  switch (outcome?.outcome) {
    case "committed":
      requireText(outcome.receipt?.resultDigest, "receipt.resultDigest");
      if (typeof outcome.receipt.at !== "number" || !Number.isFinite(outcome.receipt.at)) {
        throw new ApprovalError("approval_invalid_request", "receipt.at must be a finite number");
      }
      return;
    case "not_started":
    case "unknown":
      requireText(outcome.reason, "reason");
      return;
    default:
      throw new ApprovalError(
        "approval_invalid_request",
        "outcome must be committed, not_started or unknown",
      );
  }
}

/**
 * Checks a reconciliation: what happened, the evidence and who; all required.
 *
 * @category Approvals
 */
export function validateReconcile(input: ReconcileInput): void {
  requireText(input?.by, "by");
  requireText(input.evidence, "evidence");
  if (input.outcome !== "committed" && input.outcome !== "not_started") {
    throw new ApprovalError("approval_invalid_request", "outcome must be committed or not_started");
  }
}

/**
 * Whether a stored approval is the same call as a new request with the same run and call ids.
 * The expiry is not part of it: a retried prepare computes a fresh one.
 *
 * @category Approvals
 */
export function sameCall(record: ApprovalRecord, request: ApprovalRequest): boolean {
  return BINDING_TEXT_FIELDS.every((field) => record[field] === request[field]) &&
    record.effect === request.effect && record.argumentsDigest === request.argumentsDigest;
}

/**
 * `existing`, the approval the request's run and call already have, when it records the same
 * call ({@link sameCall}); throws `approval_conflict` when it does not. What every store's
 * `prepare` and `prepareClaimed` answer for a run and call met again.
 *
 * @category Approvals
 */
export function requireSameCall(
  existing: ApprovalRecord,
  request: ApprovalRequest,
): ApprovalRecord {
  if (sameCall(existing, request)) return existing;
  throw new ApprovalError(
    "approval_conflict",
    `run and call ids already belong to approval ${existing.id} with other content`,
  );
}

/**
 * Why an approval past its decision cannot be claimed: it was denied, it expired, or it was
 * claimed before (any later state).
 *
 * @category Approvals
 */
export function settledRefusal(state: ApprovalState): ClaimRefusalCode {
  return state === "denied"
    ? "approval_denied"
    : state === "expired"
    ? "approval_expired"
    : state === "superseded"
    ? "approval_superseded"
    : "approval_already_claimed";
}

/**
 * What a claim does to the record.
 *
 * @category Approvals
 */
export type ClaimPlan =
  | { readonly kind: "claim" }
  /** Refused with nothing recorded: the record's state already says why. */
  | { readonly kind: "refuse"; readonly code: ClaimRefusalCode }
  /** Refused and the record moves to `expired`. */
  | { readonly kind: "expire" }
  /** Refused and recorded: `claimed → not_started` with the code, so it can never be claimed. */
  | { readonly kind: "consume"; readonly code: ClaimRefusalCode };

/**
 * Decides a claim. Order: state, expiry, tool identity, scope revision, catalog digest, arguments.
 * A different scope id is a different binding; only a different scope revision of the same scope
 * is a revocation.
 *
 * @category Approvals
 */
export function planClaim(
  record: ApprovalRecord,
  expected: ClaimExpectation,
  now: number,
): ClaimPlan {
  switch (record.state) {
    case "approved":
      break;
    case "pending":
      return record.expiresAt <= now
        ? { kind: "expire" }
        : { kind: "refuse", code: "approval_pending" };
    default:
      return { kind: "refuse", code: settledRefusal(record.state) };
  }
  if (record.expiresAt <= now) return { kind: "expire" };
  const sameTool = record.serverId === expected.serverId &&
    record.toolName === expected.toolName &&
    record.remoteToolName === expected.remoteToolName &&
    record.bindingId === expected.bindingId &&
    record.scopeId === expected.scopeId &&
    record.effect === expected.effect;
  if (!sameTool) return { kind: "consume", code: "approval_binding_mismatch" };
  // The catalog digest covers the scope revision, so a revocation also changes the digest:
  // the revision is checked first to name the more specific reason.
  if (record.scopeRevision !== expected.scopeRevision) {
    return { kind: "consume", code: "approval_scope_revoked" };
  }
  if (record.catalogDigest !== expected.catalogDigest) {
    return { kind: "consume", code: "approval_binding_mismatch" };
  }
  if (record.argumentsDigest !== expected.argumentsDigest) {
    return { kind: "consume", code: "approval_arguments_changed" };
  }
  return { kind: "claim" };
}
