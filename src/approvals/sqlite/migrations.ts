/**
 * Versioned SQLite schema of the approval store, shared by libSQL and D1. The state machine is
 * enforced here as well as in code: triggers abort any illegal or backward transition, any change to a terminal row,
 * any change to the bound identity of a row, any deletion, and any edit of the event log.
 *
 * @module
 */
import {
  IDENTITY_COLUMNS,
  LEGAL_TRANSITION_SQL,
  PENDING_EVENT_SQL,
  STATES_SQL as STATES,
  TERMINAL_SQL as TERMINAL,
  TRANSITION_EVENT_SQL,
  WRITE_ONCE_COLUMNS,
} from "../sql/columns.ts";
import { latestVersion, type Migration } from "../sql/migrate.ts";

/**
 * The table of applied versions (its text is part of every existing database).
 *
 * @category Approvals
 */
export const SQLITE_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
        version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL) STRICT`;

const changed = (column: string) => `NEW.${column} IS NOT OLD.${column}`;

/**
 * Every migration, oldest first.
 *
 * @category Approvals
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    statements: [
      `CREATE TABLE approvals (
        id TEXT PRIMARY KEY NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${STATES})),
        server_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        remote_tool_name TEXT NOT NULL,
        catalog_digest TEXT NOT NULL,
        binding_id TEXT NOT NULL,
        scope_id TEXT NOT NULL,
        scope_revision TEXT NOT NULL,
        effect TEXT NOT NULL CHECK (effect IN ('write', 'destructive')),
        arguments_digest TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        run_id TEXT,
        call_id TEXT,
        created_at INTEGER NOT NULL,
        decided_by TEXT,
        decided_at INTEGER,
        decision_note TEXT,
        claimed_at INTEGER,
        refusal_code TEXT,
        refused_at INTEGER,
        result_digest TEXT,
        receipt_at INTEGER,
        outcome_reason TEXT,
        outcome_at INTEGER,
        reconciled_outcome TEXT CHECK (reconciled_outcome IN ('committed', 'not_started')),
        reconciled_evidence TEXT,
        reconciled_by TEXT,
        reconciled_at INTEGER,
        expired_at INTEGER,
        CHECK ((run_id IS NULL) = (call_id IS NULL)),
        CHECK (state NOT IN ('approved', 'denied') OR decided_by IS NOT NULL),
        CHECK (state NOT IN ('claimed', 'committed', 'not_started', 'unknown', 'reconciled')
          OR claimed_at IS NOT NULL),
        CHECK (state <> 'committed' OR result_digest IS NOT NULL),
        CHECK (state <> 'expired' OR expired_at IS NOT NULL),
        CHECK (state <> 'reconciled' OR (reconciled_outcome IS NOT NULL
          AND reconciled_evidence IS NOT NULL AND reconciled_by IS NOT NULL))
      ) STRICT`,
      `CREATE UNIQUE INDEX approvals_run_call ON approvals (run_id, call_id)
        WHERE run_id IS NOT NULL`,
      // No index on state: it would add a page write to every transition, and listing is rare.
      // Events are clustered by approval (no rowid, no separate index, no sqlite_sequence), so
      // a transition writes two pages: the approval's and its history's.
      `CREATE TABLE approval_events (
        approval_id TEXT NOT NULL REFERENCES approvals (id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        from_state TEXT CHECK (from_state IN (${STATES})),
        to_state TEXT NOT NULL CHECK (to_state IN (${STATES})),
        at INTEGER NOT NULL,
        by TEXT,
        detail TEXT,
        PRIMARY KEY (approval_id, seq)
      ) STRICT, WITHOUT ROWID`,
      `CREATE TRIGGER approvals_insert_pending BEFORE INSERT ON approvals
        WHEN NEW.state <> 'pending'
        BEGIN SELECT RAISE(ABORT, 'sluice: an approval starts pending'); END`,
      `CREATE TRIGGER approvals_no_delete BEFORE DELETE ON approvals
        BEGIN SELECT RAISE(ABORT, 'sluice: approvals are never deleted'); END`,
      // The guard is split so that an UPDATE compiles only the checks it can break: the client
      // compiles every statement anew, and one trigger comparing all 14 recorded facts cost
      // more to compile than the rest of a transition (profiled). SQLite runs the newest
      // trigger first, so they are created in reverse order of the message they should win
      // with: terminal rows, then recorded facts, then the transition.
      `CREATE TRIGGER approvals_transition BEFORE UPDATE ON approvals
        WHEN NOT (
          ${LEGAL_TRANSITION_SQL})
        BEGIN SELECT RAISE(ABORT, 'sluice: illegal approval transition'); END`,
      // A recorded fact can only change in an UPDATE that names its column.
      ...WRITE_ONCE_COLUMNS.map((column) =>
        `CREATE TRIGGER approvals_fact_${column} BEFORE UPDATE OF ${column} ON approvals
        WHEN OLD.${column} IS NOT NULL AND ${changed(column)}
        BEGIN SELECT RAISE(ABORT, 'sluice: a recorded approval fact is immutable'); END`
      ),
      `CREATE TRIGGER approvals_terminal BEFORE UPDATE ON approvals
        WHEN OLD.state IN (${TERMINAL})
        BEGIN SELECT RAISE(ABORT, 'sluice: a terminal approval is immutable'); END`,
      // Only an UPDATE that names an identity column can change one, so this trigger lists them:
      // SQLite then leaves it out of the store's own statements, which never name them. Created
      // last, it runs first.
      `CREATE TRIGGER approvals_identity_immutable BEFORE UPDATE OF ${IDENTITY_COLUMNS.join(", ")}
        ON approvals
        WHEN ${IDENTITY_COLUMNS.map(changed).join(" OR ")}
        BEGIN SELECT RAISE(ABORT, 'sluice: the bound identity of an approval is immutable'); END`,
      // The event log is written by the database: one event per row inserted and per state
      // change, whoever made it, taken from the columns the transition recorded. (The client
      // compiles every statement anew; an event inside the UPDATE's own program costs less
      // than a statement of its own. Profiled.)
      `CREATE TRIGGER approvals_event_pending AFTER INSERT ON approvals
        BEGIN
          ${PENDING_EVENT_SQL};
        END`,
      `CREATE TRIGGER approvals_event_transition AFTER UPDATE OF state ON approvals
        BEGIN
          ${TRANSITION_EVENT_SQL};
        END`,
      `CREATE TRIGGER approval_events_no_update BEFORE UPDATE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
      `CREATE TRIGGER approval_events_no_delete BEFORE DELETE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
    ],
  },
]);

/**
 * The newest schema version this code knows.
 *
 * @category Approvals
 */
export const LATEST_SCHEMA_VERSION: number = latestVersion(SQLITE_MIGRATIONS);
