/**
 * Schema version 4 (the `trace_link` column: the span that prepared an approval) on a real
 * libSQL file and a real PostgreSQL: a version-3 database with approvals in it migrates in place,
 * its approvals read back unchanged and without a link, the open check accepts the result, a new
 * approval keeps its link, and the database itself refuses to change a link once written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { processGone } from "../../fixtures/process.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import { POSTGRES_SCHEMA } from "../../src/approvals/postgres/schema_check.ts";
import type { SqlConnection } from "../../src/approvals/sql/connection.ts";
import type { SchemaDefinition } from "../../src/approvals/sql/migrate.ts";
import { SQLITE_SCHEMA } from "../../src/approvals/sqlite/schema_check.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";
import { migrateTo } from "../support/schema_at.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";

const LINK = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const OTHER = "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01";

/**
 * Brings the database behind `db` to version 3 and writes one pending approval as a version-3
 * store would (no `trace_link` column yet); returns its id and closes `db`.
 */
async function writeVersion3(db: SqlConnection, schema: SchemaDefinition): Promise<string> {
  try {
    await migrateTo(db, schema, 3);
    const id = crypto.randomUUID();
    const request = await makeRequest(Date.now());
    await db.batch([{
      sql: `INSERT INTO approvals (id, state, server_id, tool_name, remote_tool_name,
        catalog_digest, binding_id, scope_id, scope_revision, effect, arguments_digest,
        arguments_json, expires_at, created_at)
        VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: [
        id,
        request.serverId,
        request.toolName,
        request.remoteToolName,
        request.catalogDigest,
        request.bindingId,
        request.scopeId,
        request.scopeRevision,
        request.effect,
        request.argumentsDigest,
        JSON.stringify(request.arguments),
        request.expiresAt,
        Date.now(),
      ],
    }]);
    return id;
  } finally {
    await db.close();
  }
}

/** The upgraded store: old rows have no link, new ones keep theirs, the database guards it. */
async function checkVersion4(
  store: ApprovalStore,
  raw: (sql: string, args: unknown[]) => Promise<unknown>,
  old: string,
): Promise<void> {
  const before = await store.get(old);
  assert.equal(before?.state, "pending");
  assert.equal("traceLink" in before!, false);
  const linked = await store.prepare(await makeRequest(Date.now(), { traceLink: LINK }));
  assert.equal((await store.get(linked.id))?.traceLink, LINK);
  await assert.rejects(
    raw("UPDATE approvals SET trace_link = ? WHERE id = ?", [OTHER, linked.id]),
    /bound identity of an approval is immutable/,
  );
  await assert.rejects(
    raw("UPDATE approvals SET trace_link = ? WHERE id = ?", [OTHER, old]),
    /bound identity of an approval is immutable/,
  );
  assert.equal((await store.get(linked.id))?.traceLink, LINK);
}

Deno.test("libSQL: a version-3 database migrates to 4: old approvals unchanged, links kept and guarded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-v4-" });
  const path = join(dir, "approvals.db");
  try {
    const old = await writeVersion3(await NativeConnection.open(path, 5_000, true), SQLITE_SCHEMA);
    const store = await LibsqlApprovalStore.open(path);
    const raw = await NativeConnection.open(path, 5_000, true);
    try {
      await checkVersion4(store, (sql, args) => raw.batch([{ sql, args: args as never }]), old);
      const [{ v }] = await raw.query({
        sql: "SELECT max(version) AS v FROM schema_version",
        args: [],
      });
      assert.equal(Number(v), 4);
    } finally {
      await raw.close();
      await store.close();
    }
    // Opened again: the open check accepts the altered table as the migrations left it.
    const again = await LibsqlApprovalStore.open(path);
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("PostgreSQL: a version-3 database migrates to 4: old approvals unchanged, links kept and guarded", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      const old = await writeVersion3(
        PostgresConnection.open(url, { max: 1, lockTimeoutMs: 5_000 }),
        POSTGRES_SCHEMA,
      );
      const store = await PostgresApprovalStore.open(url);
      const raw = PostgresConnection.open(url, { max: 1, lockTimeoutMs: 5_000 });
      try {
        await checkVersion4(store, (sql, args) => raw.batch([{ sql, args: args as never }]), old);
      } finally {
        await raw.close();
        await store.close();
      }
      const again = await PostgresApprovalStore.open(url);
      await again.close();
    } finally {
      const pid = server.pid;
      await server.stop();
      assert.ok(await processGone(pid));
    }
  });
}
