/**
 * Schema version 2 (the `superseded` state, edit links, grants) on a database written at version
 * 1: libSQL and PostgreSQL migrate it in place, keep every approval and event, pass the open
 * check, and then enforce the new state in SQL against raw statements.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import postgres from "postgres";
import { processGone } from "../../fixtures/process.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { INSERT_COLUMNS } from "../../src/approvals/sql/columns.ts";
import { requestFields } from "../../src/approvals/sql/rows.ts";
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import { POSTGRES_SCHEMA } from "../../src/approvals/postgres/schema_check.ts";
import type { SqlConnection } from "../../src/approvals/sql/connection.ts";
import type { SchemaDefinition } from "../../src/approvals/sql/migrate.ts";
import { SQLITE_SCHEMA } from "../../src/approvals/sqlite/schema_check.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";
import { migrateTo } from "../support/schema_at.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";

/** The columns of a version-1 row (no `supersedes`) and their values for a pending approval. */
async function v1Row(id: string, call = true) {
  const ids = call ? { runId: "run-v1", callId: "call-v1" } : {};
  const request = await makeRequest(Date.now(), ids);
  const fields = requestFields(request, JSON.stringify(request.arguments), id, Date.now());
  const columns = INSERT_COLUMNS.filter((column) =>
    column !== "supersedes" && column !== "trace_link"
  );
  return { columns, values: columns.map((column) => fields[column]) };
}

/** Brings the database behind `db` to version 1 and inserts one pending approval `id`; closes `db`. */
async function writeVersion1(db: SqlConnection, schema: SchemaDefinition, id: string) {
  try {
    await migrateTo(db, schema, 1);
    const row = await v1Row(id);
    await db.batch([{
      sql: `INSERT INTO approvals (${row.columns.join(", ")})
        VALUES (${row.columns.map(() => "?").join(", ")})`,
      args: row.values,
    }]);
  } finally {
    await db.close();
  }
}

/** After the upgrade: the old approval is there with its history; edits and grants work. */
async function checkUpgraded(store: ApprovalStore, id: string): Promise<void> {
  const record = (await store.get(id))!;
  assert.equal(record.state, "pending");
  assert.equal(record.runId, "run-v1");
  assert.deepEqual((await store.events(id)).map((e) => [e.from, e.to]), [[null, "pending"]]);
  const { original, approval } = await store.approveWithEdits(id, {
    by: "erin",
    arguments: { document: "doc-1", title: "edited after upgrade" },
  });
  assert.equal(original.state, "superseded");
  assert.equal(approval.supersedes, id);
  const grant = await store.createGrant({
    serverId: "docs",
    toolName: "update_doc",
    bindingId: "docs-update",
    catalogDigest: record.catalogDigest,
    runId: "run-v1",
    maxUses: 1,
    by: "gina",
  });
  assert.equal((await store.getGrant(grant.id))?.uses, 0);
}

Deno.test("libSQL: a version-1 database is upgraded in place and enforces superseded in SQL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-v2-" });
  const path = join(dir, "approvals.db");
  try {
    const id = crypto.randomUUID();
    await writeVersion1(await NativeConnection.open(path, 5_000, true), SQLITE_SCHEMA, id);
    const store = await LibsqlApprovalStore.open(path);
    try {
      await checkUpgraded(store, id);
    } finally {
      await store.close();
    }
    const after = createClient({ url: `file:${path}` });
    try {
      // The database itself refuses to move a superseded approval on, or to link an edit to an
      // approval that was not superseded by it.
      await assert.rejects(
        after.execute({ sql: "UPDATE approvals SET state = 'approved' WHERE id = ?", args: [id] }),
        /terminal approval is immutable/,
      );
      const other = await v1Row(crypto.randomUUID(), false);
      await assert.rejects(
        after.execute({
          sql: `INSERT INTO approvals (${[...other.columns, "supersedes"].join(", ")})
            VALUES (${[...other.columns, "supersedes"].map(() => "?").join(", ")})`,
          args: [...other.values, id],
        }),
        /edit replaces a superseded approval/,
      );
      await assert.rejects(
        after.execute("UPDATE approval_grants SET uses = uses + 2"),
        /illegal grant change/,
      );
    } finally {
      after.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("PostgreSQL: a version-1 database is upgraded in place and enforces superseded in SQL", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      const id = crypto.randomUUID();
      await writeVersion1(
        PostgresConnection.open(url, { max: 1, lockTimeoutMs: 5_000 }),
        POSTGRES_SCHEMA,
        id,
      );
      const store = await PostgresApprovalStore.open(url);
      try {
        await checkUpgraded(store, id);
      } finally {
        await store.close();
      }
      const after = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await assert.rejects(
          after.unsafe("UPDATE approvals SET state = 'approved' WHERE id = $1", [id]),
          /terminal approval is immutable/,
        );
        await assert.rejects(
          after.unsafe("UPDATE approval_grants SET uses = uses + 2"),
          /illegal grant change/,
        );
        await assert.rejects(after.unsafe("DELETE FROM approval_grants"), /never deleted/);
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
