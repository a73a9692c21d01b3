/**
 * The columns of the `approvals` table, shared by every SQL store: which bind an approval to one
 * call (never changed after insertion) and which record a fact (written once); and the pieces of
 * trigger SQL both schemas (SQLite, PostgreSQL) write the same way.
 *
 * @module
 */
import { TRANSITIONS } from "../machine.ts";

/**
 * The identity columns of schema version 1 (frozen: migration 1 is written with them).
 *
 * @category Approvals
 */
export const IDENTITY_COLUMNS_V1: readonly string[] = Object.freeze([
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

/**
 * The identity columns of schema versions 2 and 3 (frozen: their guards are written with them).
 * `supersedes` names the approval an edit replaced.
 *
 * @category Approvals
 */
export const IDENTITY_COLUMNS_V2: readonly string[] = Object.freeze([
  ...IDENTITY_COLUMNS_V1,
  "supersedes",
]);

/**
 * Columns set when an approval is inserted; they never change after. Version 4 adds
 * `trace_link`, the span that prepared the approval (telemetry's cross-process link).
 *
 * @category Approvals
 */
export const IDENTITY_COLUMNS: readonly string[] = Object.freeze([
  ...IDENTITY_COLUMNS_V2,
  "trace_link",
]);

/**
 * The recorded-fact columns of schema version 1 (frozen: migration 1 is written with them).
 *
 * @category Approvals
 */
export const WRITE_ONCE_COLUMNS_V1: readonly string[] = Object.freeze([
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

/**
 * Columns that record a fact; once set they never change. Version 2 adds the edit link
 * (`superseded_by`, `superseded_at`) and the grant that approved (`grant_id`).
 *
 * @category Approvals
 */
export const WRITE_ONCE_COLUMNS: readonly string[] = Object.freeze([
  ...WRITE_ONCE_COLUMNS_V1,
  "superseded_by",
  "superseded_at",
  "grant_id",
]);

/**
 * Every column of `approvals`, in table order.
 *
 * @category Approvals
 */
export const APPROVAL_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "state",
  ...IDENTITY_COLUMNS.slice(1),
  ...WRITE_ONCE_COLUMNS,
]);

/**
 * Columns a new approval inserts: its identity and its state; the facts come later.
 *
 * @category Approvals
 */
export const INSERT_COLUMNS: readonly string[] = Object.freeze(
  IDENTITY_COLUMNS.toSpliced(1, 0, "state"),
);

/**
 * The columns of `approval_events` (versions 1 and 2, which version 3 drops), in table order.
 *
 * @category Approvals
 */
export const EVENT_COLUMNS: readonly string[] = Object.freeze([
  "approval_id",
  "seq",
  "from_state",
  "to_state",
  "at",
  "by",
  "detail",
]);

/**
 * State names of schema version 1 as an SQL list (frozen).
 *
 * @category Approvals
 */
export const STATES_SQL_V1 = "'pending','approved','denied','expired','claimed','committed'," +
  "'not_started','unknown','reconciled'";

/**
 * State names as an SQL list, for `CHECK (state IN (...))`.
 *
 * @category Approvals
 */
export const STATES_SQL: string = `${STATES_SQL_V1},'superseded'`;

/**
 * Terminal state names of schema version 1 as an SQL list (frozen).
 *
 * @category Approvals
 */
export const TERMINAL_SQL_V1 = "'denied','expired','committed','not_started','reconciled'";

/**
 * Terminal state names as an SQL list.
 *
 * @category Approvals
 */
export const TERMINAL_SQL: string = `${TERMINAL_SQL_V1},'superseded'`;

/** The transitions as an SQL condition on `OLD.state` and `NEW.state`. */
const legalSql = (transitions: Readonly<Record<string, readonly string[]>>) =>
  Object.entries(transitions)
    .filter(([, targets]) => targets.length > 0)
    .map(([from, targets]) =>
      `(OLD.state = '${from}' AND NEW.state ${
        targets.length === 1
          ? `= '${targets[0]}'`
          : `IN (${targets.map((state) => `'${state}'`).join(", ")})`
      })`
    )
    .join("\n          OR ");

/**
 * Whether `OLD.state → NEW.state` is a legal transition, as an SQL condition written from
 * {@link TRANSITIONS}.
 *
 * @category Approvals
 */
export const LEGAL_TRANSITION_SQL: string = legalSql(TRANSITIONS);

/**
 * The legal transitions of schema version 1 (frozen: no `superseded`).
 *
 * @category Approvals
 */
export const LEGAL_TRANSITION_SQL_V1: string = legalSql(
  Object.fromEntries(
    Object.entries(TRANSITIONS).filter(([from]) => from !== "superseded").map((
      [from, targets],
    ) => [from, targets.filter((to) => to !== "superseded")]),
  ),
);

/** The column holding the instant `NEW.state` was entered; version 2 adds `superseded`. */
const instantSql = (superseded: boolean) =>
  `CASE NEW.state
                WHEN 'approved' THEN NEW.decided_at WHEN 'denied' THEN NEW.decided_at
                WHEN 'expired' THEN NEW.expired_at WHEN 'claimed' THEN NEW.claimed_at${
    superseded ? "\n                WHEN 'superseded' THEN NEW.superseded_at" : ""
  }
                WHEN 'reconciled' THEN NEW.reconciled_at ELSE NEW.outcome_at END`;

/**
 * The instant a transition to `NEW.state` recorded, as an SQL expression: every state change
 * must record one (version 3's guard refuses a change where it is `NULL`; before, the event
 * row's `NOT NULL` instant did), because the history is read from these columns.
 *
 * @category Approvals
 */
export const TRANSITION_INSTANT_SQL: string = instantSql(true);

/** The event a transition trigger appends; version 2 adds the `superseded` branches. */
const transitionEventSql = (superseded: boolean) =>
  `INSERT INTO approval_events (approval_id, seq, from_state, to_state, at, by, detail)
            VALUES (NEW.id,
              (SELECT max(seq) + 1 FROM approval_events WHERE approval_id = NEW.id),
              OLD.state, NEW.state,
              ${instantSql(superseded)},
              CASE NEW.state
                WHEN 'approved' THEN NEW.decided_by WHEN 'denied' THEN NEW.decided_by${
    superseded ? "\n                WHEN 'superseded' THEN NEW.decided_by" : ""
  }
                WHEN 'reconciled' THEN NEW.reconciled_by END,
              CASE NEW.state
                WHEN 'approved' THEN NEW.decision_note WHEN 'denied' THEN NEW.decision_note${
    superseded ? "\n                WHEN 'superseded' THEN NEW.superseded_by" : ""
  }
                WHEN 'expired' THEN 'approval_expired' WHEN 'claimed' THEN NEW.refusal_code
                WHEN 'committed' THEN NEW.result_digest
                WHEN 'reconciled' THEN NEW.reconciled_outcome || ': ' || NEW.reconciled_evidence
                ELSE NEW.outcome_reason END)`;

/**
 * The event a trigger appends for an applied transition: the next `seq` of the approval, the
 * states, and the instant, person and detail taken from the columns the transition recorded
 * (schema version 2, frozen; version 3 drops the event log and reads the same from the row).
 *
 * @category Approvals
 */
export const TRANSITION_EVENT_SQL: string = transitionEventSql(true);

/**
 * The transition event of schema version 1 (frozen).
 *
 * @category Approvals
 */
export const TRANSITION_EVENT_SQL_V1: string = transitionEventSql(false);

/**
 * The first event of an approval, appended by a trigger on insertion (versions 1 and 2, frozen).
 *
 * @category Approvals
 */
export const PENDING_EVENT_SQL =
  `INSERT INTO approval_events (approval_id, seq, from_state, to_state, at)
            VALUES (NEW.id, 1, NULL, NEW.state, NEW.created_at)`;
