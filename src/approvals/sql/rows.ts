/**
 * Rows of the SQL stores as records: one mapping from column values to {@link ApprovalRecord},
 * {@link ApprovalGrant} and {@link GrantEvent}, shared by libSQL, PostgreSQL and D1. Drivers return numbers as numbers
 * or (PostgreSQL's `bigint`) as decimal text; both are read with `Number`.
 *
 * @module
 */
import type { JsonObject } from "../../identity/mod.ts";
import type {
  ApprovalGrant,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  ClaimRefusalCode,
  GrantEvent,
  GrantInput,
} from "../types.ts";

/**
 * One row by column name, as a driver returns it.
 *
 * @category Approvals
 */
export type Fields = Readonly<Record<string, unknown>>;

/**
 * A value bound to a statement parameter.
 *
 * @category Approvals
 */
export type SqlValue = string | number | null;

function text(row: Fields, column: string): string {
  return String(row[column]);
}

function optionalText(row: Fields, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : String(value);
}

function optionalNumber(row: Fields, column: string): number | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : Number(value);
}

/**
 * The columns a new approval inserts, by name: the request's identity, its canonical arguments,
 * the store's id and instant, state `pending`.
 *
 * @category Approvals
 */
export function requestFields(
  request: ApprovalRequest,
  argumentsJson: string,
  id: string,
  at: number,
): Readonly<Record<string, SqlValue>> {
  return {
    id,
    state: "pending",
    server_id: request.serverId,
    tool_name: request.toolName,
    remote_tool_name: request.remoteToolName,
    catalog_digest: request.catalogDigest,
    binding_id: request.bindingId,
    scope_id: request.scopeId,
    scope_revision: request.scopeRevision,
    effect: request.effect,
    arguments_digest: request.argumentsDigest,
    arguments_json: argumentsJson,
    expires_at: request.expiresAt,
    run_id: request.runId ?? null,
    call_id: request.callId ?? null,
    created_at: at,
    supersedes: null,
    trace_link: request.traceLink ?? null,
  };
}

/**
 * One `approvals` row as a record.
 *
 * @category Approvals
 */
export function toRecord(row: Fields): ApprovalRecord {
  const decidedBy = optionalText(row, "decided_by");
  const state = text(row, "state") as ApprovalState;
  const note = optionalText(row, "decision_note");
  const runId = optionalText(row, "run_id");
  const claimedAt = optionalNumber(row, "claimed_at");
  const refusalCode = optionalText(row, "refusal_code");
  const resultDigest = optionalText(row, "result_digest");
  const outcomeReason = optionalText(row, "outcome_reason");
  const outcomeAt = optionalNumber(row, "outcome_at");
  const reconciledOutcome = optionalText(row, "reconciled_outcome");
  const expiredAt = optionalNumber(row, "expired_at");
  const supersededBy = optionalText(row, "superseded_by");
  const supersededAt = optionalNumber(row, "superseded_at");
  const supersedes = optionalText(row, "supersedes");
  const grantId = optionalText(row, "grant_id");
  const traceLink = optionalText(row, "trace_link");
  return {
    id: text(row, "id"),
    state,
    createdAt: Number(row.created_at),
    serverId: text(row, "server_id"),
    toolName: text(row, "tool_name"),
    remoteToolName: text(row, "remote_tool_name"),
    catalogDigest: text(row, "catalog_digest"),
    bindingId: text(row, "binding_id"),
    scopeId: text(row, "scope_id"),
    scopeRevision: text(row, "scope_revision"),
    effect: text(row, "effect") as ApprovalRecord["effect"],
    argumentsDigest: text(row, "arguments_digest"),
    arguments: JSON.parse(text(row, "arguments_json")) as JsonObject,
    expiresAt: Number(row.expires_at),
    ...(runId === undefined ? {} : { runId, callId: text(row, "call_id") }),
    ...(decidedBy === undefined ? {} : {
      decision: {
        // A decision is recorded only by approve (approved, then maybe later states) or deny.
        decision: state === "denied" ? "denied" : "approved",
        by: decidedBy,
        at: Number(row.decided_at),
        ...(note === undefined ? {} : { note }),
      },
    }),
    ...(claimedAt === undefined ? {} : { claimedAt }),
    ...(refusalCode === undefined
      ? {}
      : { refusal: { code: refusalCode as ClaimRefusalCode, at: Number(row.refused_at) } }),
    ...(resultDigest === undefined
      ? {}
      : { receipt: { resultDigest, at: Number(row.receipt_at) } }),
    ...(outcomeReason === undefined ? {} : { outcomeReason }),
    ...(outcomeAt === undefined ? {} : { outcomeAt }),
    ...(reconciledOutcome === undefined ? {} : {
      reconciliation: {
        outcome: reconciledOutcome as "committed" | "not_started",
        evidence: text(row, "reconciled_evidence"),
        by: text(row, "reconciled_by"),
        at: Number(row.reconciled_at),
      },
    }),
    ...(expiredAt === undefined ? {} : { expiredAt }),
    ...(supersededBy === undefined ? {} : { supersededBy }),
    ...(supersededAt === undefined ? {} : { supersededAt }),
    ...(supersedes === undefined ? {} : { supersedes }),
    ...(grantId === undefined ? {} : { grantId }),
    ...(traceLink === undefined ? {} : { traceLink }),
  };
}

/**
 * The columns a new grant inserts, by name.
 *
 * @category Approvals
 */
export function grantFields(
  input: GrantInput,
  schemaJson: string | null,
  id: string,
  at: number,
): Readonly<Record<string, SqlValue>> {
  return {
    id,
    server_id: input.serverId,
    tool_name: input.toolName,
    binding_id: input.bindingId,
    catalog_digest: input.catalogDigest,
    run_id: input.runId ?? null,
    expires_at: input.expiresAt ?? null,
    max_uses: input.maxUses,
    arguments_schema_json: schemaJson,
    granted_by: input.by,
    note: input.note ?? null,
    created_at: at,
    uses: 0,
    last_approval_id: null,
    last_used_at: null,
    revoked_by: null,
    revoked_at: null,
  };
}

/**
 * One `approval_grants` row as a grant.
 *
 * @category Approvals
 */
export function toGrant(row: Fields): ApprovalGrant {
  const runId = optionalText(row, "run_id");
  const expiresAt = optionalNumber(row, "expires_at");
  const schema = optionalText(row, "arguments_schema_json");
  const note = optionalText(row, "note");
  const revokedBy = optionalText(row, "revoked_by");
  return {
    id: text(row, "id"),
    serverId: text(row, "server_id"),
    toolName: text(row, "tool_name"),
    bindingId: text(row, "binding_id"),
    catalogDigest: text(row, "catalog_digest"),
    ...(runId === undefined ? {} : { runId }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    maxUses: Number(row.max_uses),
    uses: Number(row.uses),
    ...(schema === undefined ? {} : { argumentsSchema: JSON.parse(schema) as JsonObject }),
    grantedBy: text(row, "granted_by"),
    ...(note === undefined ? {} : { note }),
    createdAt: Number(row.created_at),
    ...(revokedBy === undefined ? {} : { revokedBy, revokedAt: Number(row.revoked_at) }),
  };
}

/**
 * One `approval_grant_events` row as an event.
 *
 * @category Approvals
 */
export function toGrantEvent(row: Fields): GrantEvent {
  const by = optionalText(row, "by");
  const approvalId = optionalText(row, "approval_id");
  return {
    seq: Number(row.seq),
    grantId: text(row, "grant_id"),
    kind: text(row, "kind") as GrantEvent["kind"],
    at: Number(row.at),
    ...(by === undefined ? {} : { by }),
    ...(approvalId === undefined ? {} : { approvalId }),
  };
}
