/**
 * Schema version 3 (the history read from the approval's columns, the event log dropped) on a
 * database written at version 2: approvals driven along every path by hand-written SQL, their
 * events written by version 2's own triggers, then the store opens it, migrates it, and reads
 * exactly those events back from the rows. On libSQL and PostgreSQL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import postgres from "postgres";
import { processGone } from "../../fixtures/process.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalEvent, ApprovalStore } from "../../src/approvals/mod.ts";
import { INSERT_COLUMNS } from "../../src/approvals/sql/columns.ts";
import { requestFields } from "../../src/approvals/sql/rows.ts";
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import { POSTGRES_SCHEMA } from "../../src/approvals/postgres/schema_check.ts";
import type { SqlConnection, SqlStatement } from "../../src/approvals/sql/connection.ts";
import type { SchemaDefinition } from "../../src/approvals/sql/migrate.ts";
import { SQLITE_SCHEMA } from "../../src/approvals/sqlite/schema_check.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";
import { migrateTo } from "../support/schema_at.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";

const T = Date.UTC(2026, 10, 30, 12, 0, 0);
const set = (id: string, assignments: string, args: (string | number)[]): SqlStatement => ({
  sql: `UPDATE approvals SET ${assignments} WHERE id = ?`,
  args: [...args, id],
});
/** One pending approval inserted, then moved along one path; returns the statements. */
async function story(
  path: string,
  id: string,
  insert: (id: string, extra?: Record<string, string>) => Promise<SqlStatement>,
): Promise<SqlStatement[]> {
  const decide = (note: string | null) =>
    note === null
      ? set(id, "state = 'approved', decided_by = ?, decided_at = ?", ["alice", T + 1])
      : set(id, "state = 'approved', decided_by = ?, decided_at = ?, decision_note = ?", [
        "alice",
        T + 1,
        note,
      ]);
  const claim = set(id, "state = 'claimed', claimed_at = ?", [T + 2]);
  const steps: Record<string, SqlStatement[]> = {
    committed: [
      decide("looks right"),
      claim,
      set(id, "state = 'committed', result_digest = ?, receipt_at = ?, outcome_at = ?", [
        "sha256:r",
        T + 3,
        T + 4,
      ]),
    ],
    denied: [set(id, "state = 'denied', decided_by = ?, decided_at = ?", ["bob", T + 1])],
    "expired pending": [set(id, "state = 'expired', expired_at = ?", [T + 5])],
    "expired approved": [decide(null), set(id, "state = 'expired', expired_at = ?", [T + 6])],
    "refused claim": [
      decide(null),
      set(id, "state = 'claimed', claimed_at = ?, refusal_code = ?, refused_at = ?", [
        T + 2,
        "approval_scope_revoked",
        T + 2,
      ]),
      set(id, "state = 'not_started', outcome_reason = ?, outcome_at = ?", [
        "approval_scope_revoked",
        T + 2,
      ]),
    ],
    "not started": [
      decide(null),
      claim,
      set(id, "state = 'not_started', outcome_reason = ?, outcome_at = ?", ["mcp_refused", T + 3]),
    ],
    reconciled: [
      decide(null),
      claim,
      set(id, "state = 'unknown', outcome_reason = ?, outcome_at = ?", ["mcp_timeout", T + 3]),
      set(
        id,
        `state = 'reconciled', reconciled_outcome = ?, reconciled_evidence = ?,
          reconciled_by = ?, reconciled_at = ?`,
        ["committed", "ledger row 7", "ops", T + 9],
      ),
    ],
  };
  if (path === "superseded") {
    const edited = crypto.randomUUID();
    return [
      await insert(id),
      set(
        id,
        `state = 'superseded', decided_by = ?, decided_at = ?, superseded_by = ?,
          superseded_at = ?`,
        ["erin", T + 1, edited, T + 1],
      ),
      await insert(edited, { supersedes: id }),
      set(edited, "state = 'approved', decided_by = ?, decided_at = ?", ["erin", T + 1]),
    ];
  }
  return [await insert(id), ...steps[path]];
}

const PATHS = [
  "committed",
  "denied",
  "expired pending",
  "expired approved",
  "refused claim",
  "not started",
  "reconciled",
  "superseded",
];

/** An insert of a pending approval with version 2's columns. */
async function insertPending(
  id: string,
  extra: Record<string, string> = {},
): Promise<SqlStatement> {
  const request = await makeRequest(T);
  const fields = { ...requestFields(request, JSON.stringify(request.arguments), id, T), ...extra };
  // A version-2 row: `trace_link` came with version 4.
  const columns = INSERT_COLUMNS.filter((column) => column !== "trace_link");
  return {
    sql: `INSERT INTO approvals (${columns.join(", ")})
      VALUES (${columns.map(() => "?").join(", ")})`,
    args: columns.map((column) => fields[column]),
  };
}

/** Version 2's event rows as events. */
const asEvent = (row: Record<string, unknown>): ApprovalEvent => ({
  seq: Number(row.seq),
  approvalId: String(row.approval_id),
  from: (row.from_state ?? null) as ApprovalEvent["from"],
  to: row.to_state as ApprovalEvent["to"],
  at: Number(row.at),
  ...(row.by === null ? {} : { by: String(row.by) }),
  ...(row.detail === null ? {} : { detail: String(row.detail) }),
});

/**
 * Brings the database behind `db` to version 2, drives one approval along each path with raw
 * statements, and returns their ids and the events version 2's triggers logged; closes `db`.
 */
async function writeVersion2(
  db: SqlConnection,
  schema: SchemaDefinition,
): Promise<{ ids: string[]; logged: ApprovalEvent[] }> {
  try {
    await migrateTo(db, schema, 2);
    const ids: string[] = [];
    for (const name of PATHS) {
      const id = crypto.randomUUID();
      ids.push(id);
      for (const statement of await story(name, id, insertPending)) await db.batch([statement]);
    }
    const rows = await db.query({
      sql: "SELECT * FROM approval_events ORDER BY approval_id, seq",
      args: [],
    });
    return { ids, logged: rows.map(asEvent) };
  } finally {
    await db.close();
  }
}

/** After the upgrade: every approval's history is the one version 2's triggers wrote. */
async function checkHistories(
  store: ApprovalStore,
  logged: ApprovalEvent[],
  ids: string[],
): Promise<void> {
  assert.ok(logged.length >= 20, `version 2 logged ${logged.length} events`);
  for (const id of ids) {
    const expected = logged.filter((event) => event.approvalId === id);
    assert.ok(expected.length >= 1, id);
    assert.deepEqual(await store.events(id), expected, id);
  }
}

Deno.test("libSQL: a version-2 database migrates to 3 and its history reads back exactly as version 2 logged it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-v3-" });
  const path = join(dir, "approvals.db");
  try {
    const { ids, logged } = await writeVersion2(
      await NativeConnection.open(path, 5_000, true),
      SQLITE_SCHEMA,
    );
    const store = await LibsqlApprovalStore.open(path);
    try {
      await checkHistories(store, logged, ids);
    } finally {
      await store.close();
    }
    const after = createClient({ url: `file:${path}` });
    try {
      const left = await after.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'approval_events%' OR name LIKE '%event_transition'",
      );
      assert.deepEqual(left.rows, [], "the event log and its triggers are gone");
      const version = await after.execute("SELECT max(version) AS v FROM schema_version");
      assert.equal(Number(version.rows[0].v), 4, "through 3 to the latest");
    } finally {
      after.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("PostgreSQL: a version-2 database migrates to 3 and its history reads back exactly as version 2 logged it", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      const { ids, logged } = await writeVersion2(
        PostgresConnection.open(url, { max: 1, lockTimeoutMs: 5_000 }),
        POSTGRES_SCHEMA,
      );
      const store = await PostgresApprovalStore.open(url);
      try {
        await checkHistories(store, logged, ids);
      } finally {
        await store.close();
      }
      const after = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const [{ table }] = await after`SELECT to_regclass('approval_events') AS table`;
        assert.equal(table, null, "the event log is gone");
        const [{ v }] = await after`SELECT max(version) AS v FROM schema_version`;
        assert.equal(Number(v), 4, "through 3 to the latest");
      } finally {
        await after.end();
      }
    } finally {
      const pid = server.pid;
      await server.stop();
      assert.ok(await processGone(pid));
    }
  });
}
