/**
 * Which commits of a write wait for the disk. A new inline-approved call is recorded with its
 * claim in one synced commit (`prepareClaimed`); an inline approval of a call already pending
 * rides on the claim's synced commit; every other commit is synced itself.
 *
 * - libSQL file: a real count of the fsyncs, by `strace` on a subprocess
 *   (`tests/support/sync_count_child.ts`): a new inline cycle syncs the WAL exactly twice (the
 *   approval with its claim, the outcome), a deferred one four times (prepare, the person's
 *   approval, claim, outcome), the inline decision of a pending call twice (claim, outcome).
 * - PostgreSQL (a real server): a trigger of the test's own on `approvals` records, in the
 *   transaction of every write to the row, the `synchronous_commit` in effect there: `off` only
 *   for the inline approval of the pending call.
 *
 * A SIGKILL right after the unsynced commit is in `write_crash_test.ts` (`approved`).
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PostgresApprovalStore } from "../../postgres.ts";
import { run } from "../../fixtures/package/npm_cache.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import { writeCycles } from "../support/write_cycles.ts";

const STRACE = "/usr/bin/strace";

/** Whether strace runs here; in CI its absence fails the test instead of skipping it. */
function straceAvailable(): boolean {
  try {
    Deno.statSync(STRACE);
    return true;
  } catch {
    if (Deno.env.get("CI") === "true") {
      throw new Error("CI is set but /usr/bin/strace is missing: .ci/run should install it");
    }
    console.error("\n!!! SKIPPING the fsync count: no /usr/bin/strace (apt-get install strace)\n");
    return false;
  }
}

/** The files each marked section of a traced run fsynced, in order, by section name. */
function syncsBetweenMarks(trace: string, dir: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const match of trace.matchAll(/\b(?:fsync|fdatasync)\(\d+<([^>]*)>/g)) {
    const path = match[1];
    const mark = path.startsWith(`${dir}/mark-`) ? path.slice(`${dir}/mark-`.length) : undefined;
    if (mark?.endsWith("-start")) {
      current = [];
      sections.set(mark.slice(0, -"-start".length), current);
    } else if (mark?.endsWith("-end")) {
      current = undefined;
    } else if (current !== undefined && path.startsWith(dir)) {
      current.push(path.slice(dir.length + 1));
    }
  }
  return sections;
}

if (straceAvailable()) {
  Deno.test("libSQL file: an inline write fsyncs the WAL twice, a deferred one four times, an inline decision of a pending one twice", async () => {
    const dir = await Deno.makeTempDir({ prefix: "sluice-sync-count-" });
    try {
      const result = await run(STRACE, [
        "-f",
        "-q",
        "-y",
        "-e",
        "trace=fsync,fdatasync",
        "-e",
        "signal=none",
        "-o",
        `${dir}/trace`,
        Deno.execPath(),
        "run",
        "-A",
        "--quiet",
        "tests/support/sync_count_child.ts",
        dir,
      ], { timeoutMs: 120_000 });
      assert.equal(result.code, 0, result.stderr);
      const sections = syncsBetweenMarks(await Deno.readTextFile(`${dir}/trace`), dir);
      assert.deepEqual(sections.get("inline"), ["approvals.db-wal", "approvals.db-wal"]);
      assert.deepEqual(sections.get("deferred"), Array(4).fill("approvals.db-wal"));
      assert.deepEqual(sections.get("waiting"), ["approvals.db-wal", "approvals.db-wal"]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** A trigger of the test's own: each write to an approval row notes the commit setting in force. */
const PROBE = [
  `CREATE TABLE sync_probe (seq SERIAL PRIMARY KEY, approval_id TEXT, state TEXT,
    synchronous_commit TEXT)`,
  `CREATE FUNCTION sync_probe() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    INSERT INTO sync_probe (approval_id, state, synchronous_commit)
      VALUES (NEW.id, NEW.state, current_setting('synchronous_commit'));
    RETURN NEW; END $$`,
  `CREATE TRIGGER sync_probe AFTER INSERT OR UPDATE ON approvals
    FOR EACH ROW EXECUTE FUNCTION sync_probe()`,
];

if (postgresAvailable()) {
  Deno.test("PostgreSQL: only the inline approval of a pending call commits asynchronously", async () => {
    const server = await startPostgres();
    try {
      const url = await server.createDatabase();
      const store = await PostgresApprovalStore.open(url);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        // Added after open, which would refuse a schema with triggers it does not know. The
        // setting is read inside each writing transaction: the one its commit runs under.
        for (const statement of PROBE) await sql.unsafe(statement);
        const cycles = await writeCycles(store);
        try {
          await cycles.inline("inline");
          await cycles.deferred("deferred");
          await cycles.pending("waiting");
          await cycles.inline("waiting");
        } finally {
          await cycles.close();
        }
        const rows = await sql.unsafe(`SELECT a.call_id, p.state, p.synchronous_commit
          FROM sync_probe AS p JOIN approvals AS a ON a.id = p.approval_id ORDER BY p.seq`);
        assert.deepEqual(rows.map((row) => [row.call_id, row.state, row.synchronous_commit]), [
          ["call-inline", "pending", "on"],
          ["call-inline", "approved", "on"],
          ["call-inline", "claimed", "on"],
          ["call-inline", "committed", "on"],
          ["call-deferred", "pending", "on"],
          ["call-deferred", "approved", "on"],
          ["call-deferred", "claimed", "on"],
          ["call-deferred", "committed", "on"],
          ["call-waiting", "pending", "on"],
          ["call-waiting", "approved", "off"],
          ["call-waiting", "claimed", "on"],
          ["call-waiting", "committed", "on"],
        ]);
      } finally {
        await sql.end();
        await store.close();
      }
    } finally {
      await server.stop();
    }
  });
}
