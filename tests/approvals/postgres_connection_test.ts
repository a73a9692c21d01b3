/**
 * The PostgreSQL connection under the store, against a real server: statements prepared once per
 * connection and reused; a batch of several
 * statements is one transaction sent in one piece on a reserved connection, which goes back to
 * the pool after a statement fails; when its session dies the batch fails at once and the next
 * one runs (on a new pool: the driver cannot hand out that connection again safely); a
 * `sync: "with_next"` batch turns off `synchronous_commit` for its own transaction only.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import {
  postgresAvailable,
  type PostgresServer,
  startPostgres,
} from "../../fixtures/postgres_server.ts";

const available = postgresAvailable();
let server: PostgresServer | undefined;
const theServer = async () => server ??= await startPostgres();

/** A raw connection of the test's own to `url`. */
const raw = (url: string) => postgres(url, { max: 1, onnotice: () => {} });

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

  Deno.test("postgres connection: the test server stops", async () => {
    await server?.stop();
  });
}
