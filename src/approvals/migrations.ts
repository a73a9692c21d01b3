/**
 * Versioned schema of the libSQL approval store. The state machine is enforced here as well as
 * in code: triggers abort any illegal or backward transition, any change to a terminal row,
 * any change to the bound identity of a row, any deletion, and any edit of the event log.
 *
 * @module
 */

/** One schema version: statements applied together in one write transaction. */
export interface Migration {
  /** The version this migration brings the database to. */
  readonly version: number;
  /** SQL statements, applied in order. */
  readonly statements: readonly string[];
}

const STATES = "'pending','approved','denied','expired','claimed','committed','not_started'," +
  "'unknown','reconciled'";
const TERMINAL = "'denied','expired','committed','not_started','reconciled'";

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
const WRITE_ONCE_COLUMNS = [
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
];

/** Every column of `approvals` in schema version 1, in table order. */
export const APPROVAL_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "state",
  ...IDENTITY_COLUMNS.slice(1),
  ...WRITE_ONCE_COLUMNS,
]);

const changed = (column: string) => `NEW.${column} IS NOT OLD.${column}`;

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
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
        CHECK ((run_id IS NULL) = (call_id IS NULL)),
        CHECK (state NOT IN ('approved', 'denied') OR decided_by IS NOT NULL),
        CHECK (state NOT IN ('claimed', 'committed', 'not_started', 'unknown', 'reconciled')
          OR claimed_at IS NOT NULL),
        CHECK (state <> 'committed' OR result_digest IS NOT NULL),
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
      // One guard for every UPDATE; its checks run in this order, so the message names the
      // first rule broken: terminal rows, recorded facts, then the transition.
      `CREATE TRIGGER approvals_guard BEFORE UPDATE ON approvals
        BEGIN
          SELECT RAISE(ABORT, 'sluice: a terminal approval is immutable')
            WHERE OLD.state IN (${TERMINAL});
          SELECT RAISE(ABORT, 'sluice: a recorded approval fact is immutable')
            WHERE ${
        WRITE_ONCE_COLUMNS.map((column) => `(OLD.${column} IS NOT NULL AND ${changed(column)})`)
          .join(" OR ")
      };
          SELECT RAISE(ABORT, 'sluice: illegal approval transition')
            WHERE NOT (
              (OLD.state = 'pending' AND NEW.state IN ('approved', 'denied', 'expired'))
              OR (OLD.state = 'approved' AND NEW.state IN ('claimed', 'expired'))
              OR (OLD.state = 'claimed' AND NEW.state IN ('committed', 'not_started', 'unknown'))
              OR (OLD.state = 'unknown' AND NEW.state = 'reconciled'));
        END`,
      // Only an UPDATE that names an identity column can change one, so this trigger lists them:
      // SQLite then leaves it out of the store's own statements, which never name them. Created
      // after the guard, it runs before it (SQLite runs the newest trigger first).
      `CREATE TRIGGER approvals_identity_immutable BEFORE UPDATE OF ${IDENTITY_COLUMNS.join(", ")}
        ON approvals
        WHEN ${IDENTITY_COLUMNS.map(changed).join(" OR ")}
        BEGIN SELECT RAISE(ABORT, 'sluice: the bound identity of an approval is immutable'); END`,
      `CREATE TRIGGER approval_events_no_update BEFORE UPDATE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
      `CREATE TRIGGER approval_events_no_delete BEFORE DELETE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
    ],
  },
]);

/** The newest schema version this code knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1].version;
