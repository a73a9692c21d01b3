/**
 * The columns of the `approvals` table, shared by every SQL store: which bind an approval to one
 * call (never changed after insertion) and which record a fact (written once).
 *
 * @module
 */

/** Columns that bind an approval to one call; they never change after insertion. */
export const IDENTITY_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "server_id",
  "tool_name",
  "remote_tool_name",
  "catalog_digest",
  "binding_id",
  "scope_id",
  "scope_revision",
  "effect",
  "arguments_digest",
  "arguments_json",
  "expires_at",
  "run_id",
  "call_id",
  "created_at",
]);

/** Columns that record a fact; once set they never change. */
export const WRITE_ONCE_COLUMNS: readonly string[] = Object.freeze([
  "decided_by",
  "decided_at",
  "decision_note",
  "claimed_at",
  "refusal_code",
  "refused_at",
  "result_digest",
  "receipt_at",
  "outcome_reason",
  "outcome_at",
  "reconciled_outcome",
  "reconciled_evidence",
  "reconciled_by",
  "reconciled_at",
  "expired_at",
]);

/** Every column of `approvals`, in table order. */
export const APPROVAL_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "state",
  ...IDENTITY_COLUMNS.slice(1),
  ...WRITE_ONCE_COLUMNS,
]);

/** Columns a new approval inserts: its identity and its state; the facts come later. */
export const INSERT_COLUMNS: readonly string[] = Object.freeze(
  IDENTITY_COLUMNS.toSpliced(1, 0, "state"),
);

/** The columns of `approval_events`, in table order. */
export const EVENT_COLUMNS: readonly string[] = Object.freeze([
  "approval_id",
  "seq",
  "from_state",
  "to_state",
  "at",
  "by",
  "detail",
]);

/** State names as an SQL list, for `CHECK (state IN (...))`. */
export const STATES_SQL = "'pending','approved','denied','expired','claimed','committed'," +
  "'not_started','unknown','reconciled'";

/** Terminal state names as an SQL list. */
export const TERMINAL_SQL = "'denied','expired','committed','not_started','reconciled'";
