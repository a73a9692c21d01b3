/**
 * Versioned PostgreSQL schema of the approval store. The state machine is enforced here as well
 * as in code, as on libSQL: a row trigger refuses an insert that does not start pending, any
 * deletion, any change to the bound identity, any change to a terminal row, any rewrite of a
 * recorded fact, any illegal or backward transition and (version 3) any state change that does
 * not record its instant; `TRUNCATE` is refused. Versions 1 and 2 also kept an event log written
 * by a trigger; version 3 drops it, as the history is read from the approval's write-once
 * columns. Constraints are named so the open check can find each of them.
 *
 * @module
 */
import {
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
 * The table of applied versions.
 *
 * @category Approvals
 */
export const POSTGRES_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY NOT NULL, applied_at BIGINT NOT NULL)`;

const distinct = (column: string) => `NEW.${column} IS DISTINCT FROM OLD.${column}`;

/**
 * The guard on `approvals` of a version (1: frozen; 2: with `superseded` and edit links; 3: a
 * state change records its instant).
 */
const guardBody = (version: 1 | 2 | 3 | 4) => {
  const v2 = version >= 2;
  return `
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'sluice: approvals are never deleted' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.state <> 'pending' THEN
      RAISE EXCEPTION 'sluice: an approval starts pending' USING ERRCODE = 'check_violation';
    END IF;${
    v2
      ? `
    IF ${SUPERSEDES_REFUSED_SQL} THEN
      RAISE EXCEPTION 'sluice: an edit replaces a superseded approval'
        USING ERRCODE = 'check_violation';
    END IF;`
      : ""
  }
    RETURN NEW;
  END IF;
  IF ${
    (version >= 4 ? IDENTITY_COLUMNS : v2 ? IDENTITY_COLUMNS_V2 : IDENTITY_COLUMNS_V1).map(distinct)
      .join("\n    OR ")
  } THEN
    RAISE EXCEPTION 'sluice: the bound identity of an approval is immutable'
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.state IN (${v2 ? TERMINAL : TERMINAL_V1}) THEN
    RAISE EXCEPTION 'sluice: a terminal approval is immutable' USING ERRCODE = 'check_violation';
  END IF;
  IF ${
    (v2 ? WRITE_ONCE_COLUMNS : WRITE_ONCE_COLUMNS_V1).map((column) =>
      `(OLD.${column} IS NOT NULL AND ${distinct(column)})`
    )
      .join("\n    OR ")
  } THEN
    RAISE EXCEPTION 'sluice: a recorded approval fact is immutable'
      USING ERRCODE = 'check_violation';
  END IF;
  IF NOT (
    ${v2 ? LEGAL_TRANSITION_SQL : LEGAL_TRANSITION_SQL_V1}) THEN
    RAISE EXCEPTION 'sluice: illegal approval transition' USING ERRCODE = 'check_violation';
  END IF;${
    version >= 3
      ? `
  IF (${TRANSITION_INSTANT_SQL}) IS NULL THEN
    RAISE EXCEPTION 'sluice: a state change records when it happened'
      USING ERRCODE = 'check_violation';
  END IF;`
      : ""
  }
  RETURN NEW;
END`;
};

/**
 * The body of the guard on `approvals` (compared verbatim by the open check).
 *
 * @category Approvals
 */
export const GUARD_FUNCTION_BODY: string = guardBody(4);

/** The event-log trigger of a version. */
const eventBody = (transitionEvent: string) => `
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${PENDING_EVENT_SQL};
    RETURN NULL;
  END IF;
  ${transitionEvent};
  RETURN NULL;
END`;

/**
 * The body of the guard on `approval_grants`: an insert starts unused and unrevoked, no
 * deletion, and an update only adds one use (with its approval) or revokes (compared verbatim).
 *
 * @category Approvals
 */
export const GRANT_GUARD_FUNCTION_BODY = `
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'sluice: grants are never deleted' USING ERRCODE = 'check_violation';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.uses <> 0 OR NEW.last_approval_id IS NOT NULL OR NEW.revoked_at IS NOT NULL THEN
      RAISE EXCEPTION 'sluice: a grant starts unused and unrevoked'
        USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF ${grantUpdateRefusedSql(distinct)} THEN
    RAISE EXCEPTION 'sluice: illegal grant change' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END`;

/**
 * The body of the trigger that writes the grant event log (compared verbatim).
 *
 * @category Approvals
 */
export const GRANT_EVENT_FUNCTION_BODY = `
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${GRANT_CREATED_EVENT_SQL};
    RETURN NULL;
  END IF;
  IF NEW.uses <> OLD.uses THEN
    ${GRANT_USED_EVENT_SQL};
  END IF;
  IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
    ${GRANT_REVOKED_EVENT_SQL};
  END IF;
  RETURN NULL;
END`;

/**
 * The body of the refusal of every change to the event log and of `TRUNCATE`.
 *
 * @category Approvals
 */
export const APPEND_ONLY_FUNCTION_BODY = `
BEGIN
  RAISE EXCEPTION 'sluice: approvals and their event log are append-only'
    USING ERRCODE = 'check_violation';
END`;

/**
 * Every trigger of the schema: its table and the function (and body) it runs.
 *
 * @category Approvals
 */
export const POSTGRES_TRIGGERS: readonly {
  readonly name: string;
  readonly table: string;
  readonly fn: string;
  readonly body: string;
}[] = Object.freeze([
  {
    name: "approvals_guard",
    table: "approvals",
    fn: "sluice_approvals_guard",
    body: GUARD_FUNCTION_BODY,
  },
  {
    name: "approvals_no_truncate",
    table: "approvals",
    fn: "sluice_append_only",
    body: APPEND_ONLY_FUNCTION_BODY,
  },
  {
    name: "approval_grants_guard",
    table: "approval_grants",
    fn: "sluice_grants_guard",
    body: GRANT_GUARD_FUNCTION_BODY,
  },
  {
    name: "approval_grants_event",
    table: "approval_grants",
    fn: "sluice_grants_event",
    body: GRANT_EVENT_FUNCTION_BODY,
  },
  {
    name: "approval_grants_no_truncate",
    table: "approval_grants",
    fn: "sluice_append_only",
    body: APPEND_ONLY_FUNCTION_BODY,
  },
  {
    name: "approval_grant_events_append_only",
    table: "approval_grant_events",
    fn: "sluice_append_only",
    body: APPEND_ONLY_FUNCTION_BODY,
  },
  {
    name: "approval_grant_events_no_truncate",
    table: "approval_grant_events",
    fn: "sluice_append_only",
    body: APPEND_ONLY_FUNCTION_BODY,
  },
]);

/**
 * The tables the open check looks at.
 *
 * @category Approvals
 */
export const POSTGRES_TABLES: readonly string[] = Object.freeze([
  "approvals",
  "approval_grants",
  "approval_grant_events",
]);

const APPROVALS_TABLE = `CREATE TABLE approvals (
  position BIGINT GENERATED ALWAYS AS IDENTITY CONSTRAINT approvals_position_unique UNIQUE,
  id TEXT CONSTRAINT approvals_pkey PRIMARY KEY,
  state TEXT NOT NULL CONSTRAINT approvals_state_known CHECK (state IN (${STATES_V1})),
  server_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  remote_tool_name TEXT NOT NULL,
  catalog_digest TEXT NOT NULL,
  binding_id TEXT NOT NULL,
  scope_id TEXT NOT NULL,
  scope_revision TEXT NOT NULL,
  effect TEXT NOT NULL CONSTRAINT approvals_effect_known CHECK (effect IN ('write', 'destructive')),
  arguments_digest TEXT NOT NULL,
  arguments_json TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  run_id TEXT,
  call_id TEXT,
  created_at BIGINT NOT NULL,
  decided_by TEXT,
  decided_at BIGINT,
  decision_note TEXT,
  claimed_at BIGINT,
  refusal_code TEXT,
  refused_at BIGINT,
  result_digest TEXT,
  receipt_at BIGINT,
  outcome_reason TEXT,
  outcome_at BIGINT,
  reconciled_outcome TEXT CONSTRAINT approvals_reconciled_known
    CHECK (reconciled_outcome IN ('committed', 'not_started')),
  reconciled_evidence TEXT,
  reconciled_by TEXT,
  reconciled_at BIGINT,
  expired_at BIGINT,
  CONSTRAINT approvals_run_call_together CHECK ((run_id IS NULL) = (call_id IS NULL)),
  CONSTRAINT approvals_decided CHECK (state NOT IN ('approved', 'denied') OR decided_by IS NOT NULL),
  CONSTRAINT approvals_claimed CHECK (
    state NOT IN ('claimed', 'committed', 'not_started', 'unknown', 'reconciled')
    OR claimed_at IS NOT NULL),
  CONSTRAINT approvals_receipt CHECK (state <> 'committed' OR result_digest IS NOT NULL),
  CONSTRAINT approvals_expired CHECK (state <> 'expired' OR expired_at IS NOT NULL),
  CONSTRAINT approvals_reconciliation CHECK (state <> 'reconciled' OR (
    reconciled_outcome IS NOT NULL AND reconciled_evidence IS NOT NULL
    AND reconciled_by IS NOT NULL))
)`;

const EVENTS_TABLE = `CREATE TABLE approval_events (
  approval_id TEXT NOT NULL CONSTRAINT approval_events_approval REFERENCES approvals (id),
  seq INTEGER NOT NULL CONSTRAINT approval_events_seq_positive CHECK (seq > 0),
  from_state TEXT CONSTRAINT approval_events_from_known CHECK (from_state IN (${STATES_V1})),
  to_state TEXT NOT NULL CONSTRAINT approval_events_to_known CHECK (to_state IN (${STATES_V1})),
  at BIGINT NOT NULL,
  by TEXT,
  detail TEXT,
  CONSTRAINT approval_events_pkey PRIMARY KEY (approval_id, seq)
)`;

/** Version 2 on the approval tables: the `superseded` state, the edit link, the grant. */
const APPROVALS_V2 = [
  `ALTER TABLE approvals ADD COLUMN supersedes TEXT, ADD COLUMN superseded_by TEXT,
  ADD COLUMN superseded_at BIGINT, ADD COLUMN grant_id TEXT,
  DROP CONSTRAINT approvals_state_known,
  ADD CONSTRAINT approvals_state_known CHECK (state IN (${STATES})),
  ADD CONSTRAINT approvals_superseded CHECK (state <> 'superseded' OR (
    superseded_by IS NOT NULL AND superseded_at IS NOT NULL AND decided_by IS NOT NULL))`,
  `ALTER TABLE approval_events DROP CONSTRAINT approval_events_from_known,
  DROP CONSTRAINT approval_events_to_known,
  ADD CONSTRAINT approval_events_from_known CHECK (from_state IN (${STATES})),
  ADD CONSTRAINT approval_events_to_known CHECK (to_state IN (${STATES}))`,
];

const GRANTS_TABLE = `CREATE TABLE approval_grants (
  id TEXT CONSTRAINT approval_grants_pkey PRIMARY KEY,
  server_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  binding_id TEXT NOT NULL,
  catalog_digest TEXT NOT NULL,
  run_id TEXT,
  expires_at BIGINT,
  max_uses INTEGER NOT NULL CONSTRAINT approval_grants_max_uses CHECK (max_uses > 0),
  arguments_schema_json TEXT,
  granted_by TEXT NOT NULL,
  note TEXT,
  created_at BIGINT NOT NULL,
  uses INTEGER NOT NULL CONSTRAINT approval_grants_uses CHECK (${GRANT_CHECKS_SQL.uses}),
  last_approval_id TEXT,
  last_used_at BIGINT,
  revoked_by TEXT,
  revoked_at BIGINT,
  CONSTRAINT approval_grants_bounded CHECK (${GRANT_CHECKS_SQL.bounded}),
  CONSTRAINT approval_grants_revoked CHECK (${GRANT_CHECKS_SQL.revoked})
)`;

const GRANT_EVENTS_TABLE = `CREATE TABLE approval_grant_events (
  grant_id TEXT NOT NULL CONSTRAINT approval_grant_events_grant REFERENCES approval_grants (id),
  seq INTEGER NOT NULL CONSTRAINT approval_grant_events_seq_positive CHECK (seq > 0),
  kind TEXT NOT NULL CONSTRAINT approval_grant_events_kind CHECK (
    kind IN ('created', 'used', 'revoked')),
  at BIGINT NOT NULL,
  by TEXT,
  approval_id TEXT,
  CONSTRAINT approval_grant_events_pkey PRIMARY KEY (grant_id, seq)
)`;

const constraintNames = (
  ...texts: string[]
) => [
  ...new Set(texts.flatMap((text) => [...text.matchAll(/CONSTRAINT (\w+)/g)].map((m) => m[1]))),
];

/**
 * Every named constraint of the schema, by table (the open check finds each).
 *
 * @category Approvals
 */
export const POSTGRES_CONSTRAINTS: ReadonlyMap<string, readonly string[]> = new Map([
  ["approvals", constraintNames(APPROVALS_TABLE, APPROVALS_V2[0])],
  ["approval_grants", constraintNames(GRANTS_TABLE)],
  ["approval_grant_events", constraintNames(GRANT_EVENTS_TABLE)],
]);

/**
 * Columns declared `NOT NULL`, by table (the open check finds each still so).
 *
 * @category Approvals
 */
export const POSTGRES_NOT_NULL: ReadonlyMap<string, readonly string[]> = new Map([
  [
    "approvals",
    [...APPROVALS_TABLE.matchAll(/^ {2}(\w+) \w+ NOT NULL/gm)].map((match) => match[1]),
  ],
  [
    "approval_grants",
    [...GRANTS_TABLE.matchAll(/^ {2}(\w+) \w+ NOT NULL/gm)].map((match) => match[1]),
  ],
  [
    "approval_grant_events",
    [...GRANT_EVENTS_TABLE.matchAll(/^ {2}(\w+) \w+ NOT NULL/gm)].map((match) => match[1]),
  ],
]);

const createFunction = (fn: string, body: string, replace = false) =>
  `CREATE ${
    replace ? "OR REPLACE " : ""
  }FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $sluice$${body}$sluice$`;

/**
 * Every migration, oldest first.
 *
 * @category Approvals
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    statements: [
      APPROVALS_TABLE,
      `CREATE UNIQUE INDEX approvals_run_call ON approvals (run_id, call_id)
        WHERE run_id IS NOT NULL`,
      EVENTS_TABLE,
      createFunction("sluice_approvals_guard", guardBody(1)),
      createFunction("sluice_approvals_event", eventBody(TRANSITION_EVENT_SQL_V1)),
      createFunction("sluice_append_only", APPEND_ONLY_FUNCTION_BODY),
      `CREATE TRIGGER approvals_guard BEFORE INSERT OR UPDATE OR DELETE ON approvals
        FOR EACH ROW EXECUTE FUNCTION sluice_approvals_guard()`,
      `CREATE TRIGGER approvals_event AFTER INSERT OR UPDATE OF state ON approvals
        FOR EACH ROW EXECUTE FUNCTION sluice_approvals_event()`,
      `CREATE TRIGGER approvals_no_truncate BEFORE TRUNCATE ON approvals
        FOR EACH STATEMENT EXECUTE FUNCTION sluice_append_only()`,
      `CREATE TRIGGER approval_events_append_only BEFORE UPDATE OR DELETE ON approval_events
        FOR EACH ROW EXECUTE FUNCTION sluice_append_only()`,
      `CREATE TRIGGER approval_events_no_truncate BEFORE TRUNCATE ON approval_events
        FOR EACH STATEMENT EXECUTE FUNCTION sluice_append_only()`,
    ],
  },
  {
    version: 2,
    statements: [
      ...APPROVALS_V2,
      createFunction("sluice_approvals_guard", guardBody(2), true),
      createFunction("sluice_approvals_event", eventBody(TRANSITION_EVENT_SQL), true),
      GRANTS_TABLE,
      GRANT_EVENTS_TABLE,
      createFunction("sluice_grants_guard", GRANT_GUARD_FUNCTION_BODY),
      createFunction("sluice_grants_event", GRANT_EVENT_FUNCTION_BODY),
      `CREATE TRIGGER approval_grants_guard BEFORE INSERT OR UPDATE OR DELETE ON approval_grants
        FOR EACH ROW EXECUTE FUNCTION sluice_grants_guard()`,
      `CREATE TRIGGER approval_grants_event AFTER INSERT OR UPDATE ON approval_grants
        FOR EACH ROW EXECUTE FUNCTION sluice_grants_event()`,
      `CREATE TRIGGER approval_grants_no_truncate BEFORE TRUNCATE ON approval_grants
        FOR EACH STATEMENT EXECUTE FUNCTION sluice_append_only()`,
      `CREATE TRIGGER approval_grant_events_append_only BEFORE UPDATE OR DELETE
        ON approval_grant_events FOR EACH ROW EXECUTE FUNCTION sluice_append_only()`,
      `CREATE TRIGGER approval_grant_events_no_truncate BEFORE TRUNCATE ON approval_grant_events
        FOR EACH STATEMENT EXECUTE FUNCTION sluice_append_only()`,
    ],
  },
  {
    version: 3,
    // `IF EXISTS`, so that a database whose event trigger was dropped migrates and the open
    // check judges the rest. Dropping the table drops its own two triggers.
    statements: [
      createFunction("sluice_approvals_guard", guardBody(3), true),
      "DROP TRIGGER IF EXISTS approvals_event ON approvals",
      "DROP FUNCTION IF EXISTS sluice_approvals_event()",
      "DROP TABLE IF EXISTS approval_events",
    ],
  },
  {
    version: 4,
    // The span that prepared the approval (telemetry's cross-process link), set at insertion
    // and kept immutable by the guard like the rest of the identity.
    statements: [
      "ALTER TABLE approvals ADD COLUMN trace_link TEXT",
      createFunction("sluice_approvals_guard", GUARD_FUNCTION_BODY, true),
    ],
  },
]);

/**
 * The newest schema version this code knows.
 *
 * @category Approvals
 */
export const POSTGRES_LATEST_VERSION: number = latestVersion(POSTGRES_MIGRATIONS);
