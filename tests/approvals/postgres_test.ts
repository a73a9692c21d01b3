/**
 * The PostgreSQL store against a real PostgreSQL server started for this file: the shared store
 * suite unchanged, the state machine enforced by triggers against raw SQL, versioned migrations,
 * the open check refusing a tampered database, and connection strings. Under it, the connection:
 * statements prepared once per connection and reused; a batch of several statements is one
 * transaction sent in one piece on a reserved connection, which goes back to the pool after a
 * statement fails; when its session dies the batch fails at once and the next one runs (on a new
 * pool: the driver cannot hand out that connection again safely); a `sync: "with_next"` batch
 * turns off `synchronous_commit` for its own transaction only.
 */
import assert from "node:assert/strict";
import { processGone } from "../../fixtures/process.ts";
import postgres from "postgres";
import { PostgresApprovalStore } from "../../postgres.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import { SluiceError } from "../../mod.ts";
import { POSTGRES_LATEST_VERSION } from "../../src/approvals/postgres/migrations.ts";
import { approvalStoreSuite, rejectsWith } from "../support/approval_store_suite.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import {
  type RawSqlAttempt,
  rawSqlAttempts,
  type SeededIds,
  seedStates,
} from "../support/raw_sql_attempts.ts";
import {
  postgresAvailable,
  type PostgresServer,
  startPostgres,
} from "../../fixtures/postgres_server.ts";

const available = postgresAvailable();
let server: PostgresServer | undefined;
const theServer = async () => server ??= await startPostgres();

/** A raw connection of the test's own to `url`. */
function raw(url: string) {
  return postgres(url, { max: 1, onnotice: () => {} });
}

/** `work`, or a failure after `ms` (a reservation never released would hang the next batch). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A one-connection pool on a new database with table `t (id text primary key, n int)`. */
async function pool() {
  const url = await (await theServer()).createDatabase();
  const admin = raw(url);
  await admin.unsafe("CREATE TABLE t (id TEXT PRIMARY KEY, n INT)");
  await admin.unsafe("INSERT INTO t VALUES ('held', 0)");
  const connection = PostgresConnection.open(url, { lockTimeoutMs: 10_000, max: 1 });
  return {
    admin,
    connection,
    ids: async () => (await admin.unsafe("SELECT id FROM t ORDER BY id")).map((row) => row.id),
    async close() {
      await connection.close();
      await admin.end();
    },
  };
}

const insert = (id: string) => ({ sql: "INSERT INTO t (id, n) VALUES (?, ?)", args: [id, 1] });

if (available) {
  approvalStoreSuite("postgres", async (clock) => {
    const url = await (await theServer()).createDatabase();
    const store = await PostgresApprovalStore.open(url, { now: clock.now });
    return { store, cleanup: () => Promise.resolve() };
  });

  Deno.test("postgres: migrations are versioned, idempotent on reopen; a newer database is refused", async () => {
    const url = await (await theServer()).createDatabase();
    const first = await PostgresApprovalStore.open(url);
    const { id } = await first.prepare(await makeRequest(Date.now()));
    await first.close();
    const second = await PostgresApprovalStore.open(url);
    assert.equal((await second.get(id))?.state, "pending");
    await second.close();
    const sql = raw(url);
    try {
      const versions = await sql`SELECT version FROM schema_version ORDER BY version`;
      assert.deepEqual(
        versions.map((row) => row.version),
        Array.from({ length: POSTGRES_LATEST_VERSION }, (_, index) => index + 1),
      );
      await sql`INSERT INTO schema_version (version, applied_at)
        VALUES (${POSTGRES_LATEST_VERSION + 1}, 0)`;
    } finally {
      await sql.end();
    }
    await rejectsWith(PostgresApprovalStore.open(url), "approval_store_schema_too_new");
  });

  Deno.test("postgres: triggers abort illegal transitions and edits made with raw SQL", async () => {
    const url = await (await theServer()).createDatabase();
    const store = await PostgresApprovalStore.open(url);
    let ids: SeededIds;
    try {
      ids = await seedStates(store);
    } finally {
      await store.close();
    }
    const sql = raw(url);
    try {
      const snapshot = async () => JSON.stringify(await sql`SELECT * FROM approvals ORDER BY id`);
      const before = await snapshot();
      const attempts = [
        ...rawSqlAttempts(ids),
        ["approvals truncated", "TRUNCATE approvals CASCADE", [], /append-only/],
        ["grant events truncated", "TRUNCATE approval_grant_events", [], /append-only/],
      ] as RawSqlAttempt[];
      for (const [label, text, args, message] of attempts) {
        let n = 0;
        const numbered = text.replace(/\?/g, () => `$${++n}`);
        await assert.rejects(sql.unsafe(numbered, args), message, label);
      }
      assert.equal(await snapshot(), before, "no row changed");
      // Not a blanket refusal: a legal transition written by hand goes through, and its history
      // shows it.
      const legal = await sql.unsafe(
        "UPDATE approvals SET state = 'approved', decided_by = 'carol', decided_at = 1 WHERE id = $1 RETURNING id",
        [ids.pending2],
      );
      assert.equal(legal.length, 1);
    } finally {
      await sql.end();
    }
    const reopened = await PostgresApprovalStore.open(url);
    try {
      assert.deepEqual((await reopened.events(ids.pending2)).map((e) => [e.to, e.at, e.by]), [
        ["pending", (await reopened.get(ids.pending2))!.createdAt, undefined],
        ["approved", 1, "carol"],
      ]);
    } finally {
      await reopened.close();
    }
  });

  Deno.test("postgres: a tampered database is refused at open: approval_store_schema_invalid", async () => {
    const tamperings: [string, string[]][] = [
      ["a trigger dropped", ["DROP TRIGGER approvals_guard ON approvals"]],
      ["a trigger disabled", ["ALTER TABLE approvals DISABLE TRIGGER approvals_no_truncate"]],
      ["a trigger function weakened", [
        `CREATE OR REPLACE FUNCTION sluice_approvals_guard() RETURNS trigger
          LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
      ]],
      ["a foreign trigger added", [
        `CREATE FUNCTION sneaky() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
        `CREATE TRIGGER sneaky BEFORE UPDATE ON approvals FOR EACH ROW EXECUTE FUNCTION sneaky()`,
      ]],
      ["a constraint dropped", ["ALTER TABLE approvals DROP CONSTRAINT approvals_claimed"]],
      ["a NOT NULL dropped", ["ALTER TABLE approvals ALTER COLUMN scope_id DROP NOT NULL"]],
    ];
    for (const [label, statements] of tamperings) {
      const url = await (await theServer()).createDatabase();
      const store = await PostgresApprovalStore.open(url);
      await store.prepare(await makeRequest(Date.now()));
      await store.close();
      const sql = raw(url);
      try {
        for (const statement of statements) await sql.unsafe(statement);
      } finally {
        await sql.end();
      }
      await assert.rejects(PostgresApprovalStore.open(url), (error: unknown) => {
        assert.ok(error instanceof SluiceError, label);
        assert.equal(error.code, "approval_store_schema_invalid", label);
        return true;
      });
    }
  });

  Deno.test("postgres: connection strings: postgres: only, no password inside; an unreachable server is approval_store_error", async () => {
    for (const bad of ["", "mysql://db/a", "postgres://u:secret@127.0.0.1/a", "not a url"]) {
      await rejectsWith(PostgresApprovalStore.open(bad), "approval_store_url_invalid");
    }
    const port = (await theServer()).url("x").match(/:(\d+)\//)![1];
    // A port nothing listens on (the server's port plus one is free while the test runs here).
    await assert.rejects(
      PostgresApprovalStore.open(`postgres://postgres@127.0.0.1:${Number(port) + 1}/x`),
      (error: unknown) => {
        assert.ok(error instanceof SluiceError);
        assert.equal(error.code, "approval_store_error");
        // At most the driver's code (ECONNREFUSED): never its text, which names the host.
        assert.match(error.message, /^the approval database failed while opening it( \(\w+\))?$/);
        return true;
      },
    );
  });

  Deno.test("postgres: the sluice CLI in another process approves; this process sees it", async () => {
    const url = await (await theServer()).createDatabase();
    const store = await PostgresApprovalStore.open(url);
    try {
      const request = await makeRequest(Date.now());
      const { id } = await store.prepare(request);
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../../cli.ts", import.meta.url).pathname,
          "approvals",
          "approve",
          id,
          "--by",
          "carol",
          "--db",
          url,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      const seen = await store.get(id);
      assert.equal(seen?.state, "approved");
      assert.equal(seen?.decision?.by, "carol");
      assert.equal((await store.claim(id, expectationFor(request))).ok, true);
    } finally {
      await store.close();
    }
  });

  Deno.test("postgres: a role with only the grants docs/stores.md lists runs the store", async () => {
    const url = await (await theServer()).createDatabase();
    await (await PostgresApprovalStore.open(url)).close();
    const sql = raw(url);
    const role = `agent_${Deno.pid}_${Math.floor(Math.random() * 1e6)}`;
    try {
      await sql.unsafe(`CREATE ROLE ${role} LOGIN`);
      await sql.unsafe("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      const [{ schema }] = await sql`SELECT current_schema() AS schema`;
      await sql.unsafe(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await sql.unsafe(`GRANT SELECT, INSERT, UPDATE ON approvals TO ${role}`);
      await sql.unsafe(`GRANT SELECT ON schema_version TO ${role}`);
      await sql.unsafe(`GRANT SELECT, INSERT, UPDATE ON approval_grants TO ${role}`);
      await sql.unsafe(`GRANT SELECT, INSERT ON approval_grant_events TO ${role}`);
    } finally {
      await sql.end();
    }
    const store = await PostgresApprovalStore.open(url.replace("postgres@", `${role}@`));
    // The role may not create anything: not in its schema, not in public.
    const asRole = raw(url.replace("postgres@", `${role}@`));
    try {
      await assert.rejects(asRole.unsafe("CREATE TABLE intruder (x int)"), /permission denied/);
    } finally {
      await asRole.end();
    }
    try {
      const request = await makeRequest(Date.now());
      const { id } = await store.prepare(request);
      await store.approve(id, { by: "alice" });
      assert.equal((await store.claim(id, expectationFor(request))).ok, true);
      assert.equal((await store.events(id)).length, 3);
      // Edits and grants need nothing more.
      const edited = await store.prepare(request);
      await store.approveWithEdits(edited.id, { by: "erin", arguments: { document: "d" } });
      const granted = await store.prepare(request);
      const grant = await store.createGrant({
        serverId: request.serverId,
        toolName: request.toolName,
        bindingId: request.bindingId,
        catalogDigest: request.catalogDigest,
        expiresAt: Date.now() + 60_000,
        maxUses: 1,
        by: "gina",
      });
      assert.equal((await store.approveByGrant(granted.id, grant.id)).ok, true);
      await store.revokeGrant(grant.id, { by: "rita" });
    } finally {
      await store.close();
    }
  });

  Deno.test("postgres connection: a failing statement keeps nothing of its batch, and the one connection serves the next", async () => {
    const { connection, ids, close } = await pool();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        // The second insert breaks the key: the first is rolled back with it.
        await assert.rejects(
          within(5_000, connection.batch([insert(`a${attempt}`), insert("held"), insert("z")])),
          (error: unknown) => (error as { code?: string }).code === "23505",
        );
      }
      assert.deepEqual(await ids(), ["held"]);
      const results = await within(5_000, connection.batch([insert("b"), insert("c")]));
      assert.deepEqual(results.map((result) => result.changes), [1, 1]);
      assert.deepEqual(
        await within(5_000, connection.query({ sql: "SELECT 1 AS one", args: [] })),
        [
          { one: 1 },
        ],
      );
      assert.deepEqual(await ids(), ["b", "c", "held"]);
    } finally {
      await close();
    }
  });

  Deno.test("postgres connection: a batch whose session is terminated mid-transaction keeps nothing; the next batch runs", async () => {
    const { admin, connection, ids, close } = await pool();
    const holder = raw(await (await theServer()).createDatabase());
    let release!: () => void;
    const released = new Promise<void>((resolve) => release = resolve);
    try {
      // Another session holds the row the batch's second statement must lock.
      let held!: () => void;
      const locked = new Promise<void>((resolve) => held = resolve);
      const holding = admin.begin(async (tx) => {
        await tx.unsafe("SELECT id FROM t WHERE id = 'held' FOR UPDATE");
        held();
        await released;
      });
      await locked;
      const batch = connection.batch([
        insert("lost"),
        { sql: "UPDATE t SET n = n + 1 WHERE id = ?", args: ["held"] },
      ]).then(() => undefined, (error: unknown) => error);
      // The batch waits for the lock; end its session from outside.
      let terminated = 0;
      for (let tries = 0; tries < 200 && terminated === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        terminated = (await holder.unsafe(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = 'sluice' AND wait_event_type = 'Lock'`,
        )).length;
      }
      assert.equal(terminated, 1);
      const failure = await within(5_000, batch);
      assert.equal((failure as { code?: string } | undefined)?.code, "CONNECTION_CLOSED");
      release();
      await holding;
      // The next batch and read run at once, on new connections.
      const results = await within(
        5_000,
        connection.batch([insert("after"), insert("again")]),
      );
      assert.deepEqual(results.map((result) => result.changes), [1, 1]);
      assert.equal(
        (await connection.query({ sql: "SELECT count(*)::int AS n FROM t", args: [] }))[0].n,
        3,
      );
      assert.deepEqual(await ids(), ["after", "again", "held"]);
    } finally {
      release();
      await holder.end();
      await close();
    }
  });

  Deno.test("postgres connection: a with_next batch commits with synchronous_commit off, and only itself", async () => {
    const { admin, connection, close } = await pool();
    try {
      await admin.unsafe("CREATE TABLE seen (id TEXT, sync TEXT)");
      await admin.unsafe(`CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO seen VALUES (NEW.id, current_setting('synchronous_commit'));
        RETURN NEW; END $$`);
      await admin.unsafe(
        "CREATE TRIGGER noted AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION note()",
      );
      await connection.batch([insert("later")], { sync: "with_next" });
      await connection.batch([insert("one")]);
      await connection.batch([insert("two"), insert("three")]);
      await connection.batch([insert("four"), insert("five")], { sync: "with_next" });
      await connection.batch([insert("six")]);
      const rows = await admin.unsafe("SELECT id, sync FROM seen");
      assert.deepEqual(
        Object.fromEntries(rows.map((row) => [row.id, row.sync])),
        { later: "off", one: "on", two: "on", three: "on", four: "off", five: "off", six: "on" },
      );
    } finally {
      await close();
    }
  });

  Deno.test("postgres connection: statements are prepared once per connection and reused, alone and in transactions", async () => {
    const { connection, close } = await pool();
    try {
      for (let n = 0; n < 3; n++) {
        await connection.batch([insert(`alone${n}`)]);
        await connection.batch([insert(`first${n}`), insert(`second${n}`)]);
      }
      // The pool's one session: its prepared statements, as the server lists them.
      const prepared = await connection.query({
        sql: "SELECT statement FROM pg_prepared_statements WHERE statement LIKE ?",
        args: ["INSERT INTO t%"],
      });
      assert.deepEqual(prepared, [{ statement: "INSERT INTO t (id, n) VALUES ($1, $2)" }]);
    } finally {
      await close();
    }
  });

  Deno.test("postgres: the test server stops by its PID", async () => {
    if (server === undefined) return;
    const pid = server.pid;
    await server.stop();
    assert.ok(await processGone(pid), "the postmaster is gone");
  });
}
