/**
 * Versioned SQLite schema of the approval store, shared by libSQL and D1. The state machine is
 * enforced here as well as in code: triggers abort any illegal or backward transition, any change
 * to a terminal row, any change to the bound identity of a row or to a recorded fact, any state
 * change that does not record its instant, and any deletion.
 *
 * @module
 */
import {
  EVENT_COLUMNS,
  IDENTITY_COLUMNS,
  IDENTITY_COLUMNS_V1,
  IDENTITY_COLUMNS_V2,
  LEGAL_TRANSITION_SQL,
  LEGAL_TRANSITION_SQL_V1,
  PENDING_EVENT_SQL,
  STATES_SQL as STATES,
  STATES_SQL_V1 as STATES_V1,
  TERMINAL_SQL as TERMINAL,
  TERMINAL_SQL_V1 as TERMINAL_V1,
  TRANSITION_EVENT_SQL,
  TRANSITION_EVENT_SQL_V1,
  TRANSITION_INSTANT_SQL,
  WRITE_ONCE_COLUMNS,
  WRITE_ONCE_COLUMNS_V1,
} from "../sql/columns.ts";
import {
  GRANT_CHECKS_SQL,
  GRANT_CREATED_EVENT_SQL,
  GRANT_REVOKED_EVENT_SQL,
  GRANT_USED_EVENT_SQL,
  grantUpdateRefusedSql,
  SUPERSEDES_REFUSED_SQL,
} from "../sql/grant_columns.ts";
import { latestVersion, type Migration } from "../sql/migrate.ts";

/**
 * The table of applied versions (its text is part of every existing database).
 *
 * @category Approvals
 */
export const SQLITE_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
        version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL) STRICT`;

const changed = (column: string) => `NEW.${column} IS NOT OLD.${column}`;

/** The columns of `approvals` in version 1, all of which version 2 keeps. */
const APPROVAL_COLUMNS_V1 = [
  "id",
  "state",
  ...IDENTITY_COLUMNS_V1.slice(1),
  ...WRITE_ONCE_COLUMNS_V1,
];

/** What differs between the approval objects of schema versions 1, 2 and 3. */
interface ApprovalColumns {
  readonly v2: boolean;
  /**
   * Whether triggers write the event log (versions 1 and 2); version 3 reads the history from
   * the row instead and makes every state change record its instant.
   */
  readonly eventLog: boolean;
  readonly states: string;
  readonly terminal: string;
  readonly legal: string;
  readonly identity: readonly string[];
  readonly writeOnce: readonly string[];
  readonly transitionEvent: string;
}

const V1: ApprovalColumns = {
  v2: false,
  eventLog: true,
  states: STATES_V1,
  terminal: TERMINAL_V1,
  legal: LEGAL_TRANSITION_SQL_V1,
  identity: IDENTITY_COLUMNS_V1,
  writeOnce: WRITE_ONCE_COLUMNS_V1,
  transitionEvent: TRANSITION_EVENT_SQL_V1,
};

const V2: ApprovalColumns = {
  v2: true,
  eventLog: true,
  states: STATES,
  terminal: TERMINAL,
  legal: LEGAL_TRANSITION_SQL,
  identity: IDENTITY_COLUMNS_V2,
  writeOnce: WRITE_ONCE_COLUMNS,
  transitionEvent: TRANSITION_EVENT_SQL,
};

const V3: ApprovalColumns = { ...V2, eventLog: false };

/** Version 4: `trace_link` joins the identity the guard keeps immutable. */
const V4: ApprovalColumns = { ...V3, identity: IDENTITY_COLUMNS };

/** The identity guard of a version (version 4 replaces only it). */
const identityGuard = (c: ApprovalColumns): string =>
  approvalGuards(c).find((sql) => sql.startsWith("CREATE TRIGGER approvals_identity_immutable"))!;

/** The two approval tables of a version. */
const approvalTables = (c: ApprovalColumns): string[] => [
  `CREATE TABLE approvals (
        id TEXT PRIMARY KEY NOT NULL,
        state TEXT NOT NULL CHECK (state IN (${c.states})),
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
        expired_at INTEGER,${
    c.v2
      ? `
        supersedes TEXT,
        superseded_by TEXT,
        superseded_at INTEGER,
        grant_id TEXT,`
      : ""
  }
        CHECK ((run_id IS NULL) = (call_id IS NULL)),
        CHECK (state NOT IN ('approved', 'denied') OR decided_by IS NOT NULL),
        CHECK (state NOT IN ('claimed', 'committed', 'not_started', 'unknown', 'reconciled')
          OR claimed_at IS NOT NULL),
        CHECK (state <> 'committed' OR result_digest IS NOT NULL),
        CHECK (state <> 'expired' OR expired_at IS NOT NULL),
        CHECK (state <> 'reconciled' OR (reconciled_outcome IS NOT NULL
          AND reconciled_evidence IS NOT NULL AND reconciled_by IS NOT NULL))${
    c.v2
      ? `,
        CHECK (state <> 'superseded' OR (superseded_by IS NOT NULL AND superseded_at IS NOT NULL
          AND decided_by IS NOT NULL))`
      : ""
  }
      ) STRICT`,
  // No index on state: it would add a page write to every transition, and listing is rare.
  // Events are clustered by approval (no rowid, no separate index, no sqlite_sequence), so
  // a transition writes two pages: the approval's and its history's.
  `CREATE TABLE approval_events (
        approval_id TEXT NOT NULL REFERENCES approvals (id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        from_state TEXT CHECK (from_state IN (${c.states})),
        to_state TEXT NOT NULL CHECK (to_state IN (${c.states})),
        at INTEGER NOT NULL,
        by TEXT,
        detail TEXT,
        PRIMARY KEY (approval_id, seq)
      ) STRICT, WITHOUT ROWID`,
];

/** The index that makes a run and call one approval (every version). */
const RUN_CALL_INDEX = `CREATE UNIQUE INDEX approvals_run_call ON approvals (run_id, call_id)
        WHERE run_id IS NOT NULL`;

/** The triggers of a version on the approval tables. */
const approvalGuards = (c: ApprovalColumns): string[] => [
  `CREATE TRIGGER approvals_insert_pending BEFORE INSERT ON approvals
        WHEN NEW.state <> 'pending'
        BEGIN SELECT RAISE(ABORT, 'sluice: an approval starts pending'); END`,
  ...(c.v2
    ? [`CREATE TRIGGER approvals_insert_supersedes BEFORE INSERT ON approvals
        WHEN ${SUPERSEDES_REFUSED_SQL}
        BEGIN SELECT RAISE(ABORT, 'sluice: an edit replaces a superseded approval'); END`]
    : []),
  `CREATE TRIGGER approvals_no_delete BEFORE DELETE ON approvals
        BEGIN SELECT RAISE(ABORT, 'sluice: approvals are never deleted'); END`,
  // The guard is split so that an UPDATE compiles only the checks it can break: the client
  // compiles every statement anew, and one trigger comparing all 14 recorded facts cost
  // more to compile than the rest of a transition (profiled). SQLite runs the newest
  // trigger first, so they are created in reverse order of the message they should win
  // with: terminal rows, then recorded facts, then the transition.
  ...(c.eventLog ? [] : [
    // Oldest, so it runs last: it speaks only for a change every other guard lets through.
    `CREATE TRIGGER approvals_transition_instant BEFORE UPDATE OF state ON approvals
        WHEN (${TRANSITION_INSTANT_SQL}) IS NULL
        BEGIN SELECT RAISE(ABORT, 'sluice: a state change records when it happened'); END`,
  ]),
  `CREATE TRIGGER approvals_transition BEFORE UPDATE ON approvals
        WHEN NOT (
          ${c.legal})
        BEGIN SELECT RAISE(ABORT, 'sluice: illegal approval transition'); END`,
  // A recorded fact can only change in an UPDATE that names its column.
  ...c.writeOnce.map((column) =>
    `CREATE TRIGGER approvals_fact_${column} BEFORE UPDATE OF ${column} ON approvals
        WHEN OLD.${column} IS NOT NULL AND ${changed(column)}
        BEGIN SELECT RAISE(ABORT, 'sluice: a recorded approval fact is immutable'); END`
  ),
  `CREATE TRIGGER approvals_terminal BEFORE UPDATE ON approvals
        WHEN OLD.state IN (${c.terminal})
        BEGIN SELECT RAISE(ABORT, 'sluice: a terminal approval is immutable'); END`,
  // Only an UPDATE that names an identity column can change one, so this trigger lists them:
  // SQLite then leaves it out of the store's own statements, which never name them. Created
  // last, it runs first.
  `CREATE TRIGGER approvals_identity_immutable BEFORE UPDATE OF ${c.identity.join(", ")}
        ON approvals
        WHEN ${c.identity.map(changed).join(" OR ")}
        BEGIN SELECT RAISE(ABORT, 'sluice: the bound identity of an approval is immutable'); END`,
  // Versions 1 and 2: the event log is written by the database, one event per row inserted
  // and per state change, whoever made it, taken from the columns the transition recorded.
  // Version 3 drops it: the same events are read from those columns (`history.ts`), and an
  // event row under a random key cost a page of its own in every commit (about a quarter of
  // a write's time on the file, measured in docs/benchmarks.md).
  ...(c.eventLog
    ? [
      `CREATE TRIGGER approvals_event_pending AFTER INSERT ON approvals
        BEGIN
          ${PENDING_EVENT_SQL};
        END`,
      `CREATE TRIGGER approvals_event_transition AFTER UPDATE OF state ON approvals
        BEGIN
          ${c.transitionEvent};
        END`,
      `CREATE TRIGGER approval_events_no_update BEFORE UPDATE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
      `CREATE TRIGGER approval_events_no_delete BEFORE DELETE ON approval_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the approval event log is append-only'); END`,
    ]
    : []),
];

/** The names of the triggers `statements` create. */
const triggerNames = (statements: readonly string[]) =>
  statements.map((sql) => /^CREATE TRIGGER (\w+)/.exec(sql)![1]);

/** The grant tables and triggers (version 2). */
const GRANT_OBJECTS: readonly string[] = [
  `CREATE TABLE approval_grants (
        id TEXT PRIMARY KEY NOT NULL,
        server_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        binding_id TEXT NOT NULL,
        catalog_digest TEXT NOT NULL,
        run_id TEXT,
        expires_at INTEGER,
        max_uses INTEGER NOT NULL CHECK (max_uses > 0),
        arguments_schema_json TEXT,
        granted_by TEXT NOT NULL,
        note TEXT,
        created_at INTEGER NOT NULL,
        uses INTEGER NOT NULL CHECK (${GRANT_CHECKS_SQL.uses}),
        last_approval_id TEXT,
        last_used_at INTEGER,
        revoked_by TEXT,
        revoked_at INTEGER,
        CHECK (${GRANT_CHECKS_SQL.bounded}),
        CHECK (${GRANT_CHECKS_SQL.revoked})
      ) STRICT`,
  `CREATE TABLE approval_grant_events (
        grant_id TEXT NOT NULL REFERENCES approval_grants (id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        kind TEXT NOT NULL CHECK (kind IN ('created', 'used', 'revoked')),
        at INTEGER NOT NULL,
        by TEXT,
        approval_id TEXT,
        PRIMARY KEY (grant_id, seq)
      ) STRICT, WITHOUT ROWID`,
  `CREATE TRIGGER approval_grants_insert BEFORE INSERT ON approval_grants
        WHEN NEW.uses <> 0 OR NEW.last_approval_id IS NOT NULL OR NEW.revoked_at IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'sluice: a grant starts unused and unrevoked'); END`,
  `CREATE TRIGGER approval_grants_no_delete BEFORE DELETE ON approval_grants
        BEGIN SELECT RAISE(ABORT, 'sluice: grants are never deleted'); END`,
  `CREATE TRIGGER approval_grants_guard BEFORE UPDATE ON approval_grants
        WHEN ${grantUpdateRefusedSql(changed)}
        BEGIN SELECT RAISE(ABORT, 'sluice: illegal grant change'); END`,
  `CREATE TRIGGER approval_grants_event_created AFTER INSERT ON approval_grants
        BEGIN
          ${GRANT_CREATED_EVENT_SQL};
        END`,
  `CREATE TRIGGER approval_grants_event_used AFTER UPDATE OF uses ON approval_grants
        WHEN NEW.uses <> OLD.uses
        BEGIN
          ${GRANT_USED_EVENT_SQL};
        END`,
  `CREATE TRIGGER approval_grants_event_revoked AFTER UPDATE OF revoked_at ON approval_grants
        WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
        BEGIN
          ${GRANT_REVOKED_EVENT_SQL};
        END`,
  `CREATE TRIGGER approval_grant_events_no_update BEFORE UPDATE ON approval_grant_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the grant event log is append-only'); END`,
  `CREATE TRIGGER approval_grant_events_no_delete BEFORE DELETE ON approval_grant_events
        BEGIN SELECT RAISE(ABORT, 'sluice: the grant event log is append-only'); END`,
];

/**
 * Every migration, oldest first. Version 2 adds the `superseded` state, the edit link and the
 * grant tables: SQLite cannot change a table's checks in place, so it rebuilds both approval
 * tables (rename, create, copy, drop) inside the migration's one atomic batch, with the triggers
 * dropped first and created again after the copy. Version 3 drops the event log, whose rows
 * repeated what the approval's write-once columns hold, and refuses a state change that does not
 * record its instant.
 *
 * @category Approvals
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = Object.freeze([
  { version: 1, statements: [...approvalTables(V1), RUN_CALL_INDEX, ...approvalGuards(V1)] },
  {
    version: 2,
    statements: [
      ...triggerNames(approvalGuards(V1)).map((name) => `DROP TRIGGER ${name}`),
      "DROP INDEX approvals_run_call",
      "ALTER TABLE approval_events RENAME TO approval_events_v1",
      "ALTER TABLE approvals RENAME TO approvals_v1",
      ...approvalTables(V2),
      `INSERT INTO approvals (${APPROVAL_COLUMNS_V1.join(", ")})
        SELECT ${APPROVAL_COLUMNS_V1.join(", ")} FROM approvals_v1 ORDER BY rowid`,
      `INSERT INTO approval_events (${EVENT_COLUMNS.join(", ")})
        SELECT ${EVENT_COLUMNS.join(", ")} FROM approval_events_v1`,
      "DROP TABLE approval_events_v1",
      "DROP TABLE approvals_v1",
      RUN_CALL_INDEX,
      ...approvalGuards(V2),
      ...GRANT_OBJECTS,
    ],
  },
  {
    version: 3,
    // The guards are created again so the new one is the oldest; `IF EXISTS`, so that a
    // database whose event triggers were dropped migrates and the open check judges the rest.
    statements: [
      ...triggerNames(approvalGuards(V2)).map((name) => `DROP TRIGGER IF EXISTS ${name}`),
      "DROP TABLE IF EXISTS approval_events",
      ...approvalGuards(V3),
    ],
  },
  {
    version: 4,
    // A nullable column is added in place (no table rebuild); SQLite writes it into the table's
    // stored definition after the last column, which the open check expects (`schema_check.ts`).
    statements: [
      "ALTER TABLE approvals ADD COLUMN trace_link TEXT",
      "DROP TRIGGER IF EXISTS approvals_identity_immutable",
      identityGuard(V4),
    ],
  },
]);

/**
 * The newest schema version this code knows.
 *
 * @category Approvals
 */
export const LATEST_SCHEMA_VERSION: number = latestVersion(SQLITE_MIGRATIONS);
