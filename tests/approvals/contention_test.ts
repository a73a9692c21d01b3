/**
 * Every promise under contention, on every store: P processes × K concurrent chains × N stories
 * (prepare, approve, deny, approveWithEdits, approveByGrant, claim, recordOutcome), racing for
 * shared approvals and grants in seeded interleavings (tests/support/contention.ts). A fresh
 * connection then finds every acknowledged write recorded, nothing claimed or decided twice,
 * every grant's uses equal to its acknowledged uses, and every history legal.
 *
 * The memory store runs its chains in this process; the libSQL file and PostgreSQL run separate
 * processes on one database; D1 runs concurrent requests of a real Worker (Miniflare), each with
 * a fresh store, as stateless Workers do.
 *
 * `SLUICE_CONTENTION_SEED` replays a seed; `SLUICE_CONTENTION_SIZE=P,K,N` sets the size (the
 * stress task uses it).
 */
import assert from "node:assert/strict";
import Database from "libsql";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import { openSchema } from "../../src/approvals/sql/migrate.ts";
import type { SqlConnection } from "../../src/approvals/sql/connection.ts";
import { SqlApprovalStore } from "../../src/approvals/sql/store.ts";
import { SQLITE_SCHEMA } from "../../src/approvals/sqlite/schema_check.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import {
  checkContention,
  type ContentionFindings,
  type ContentionPlan,
  contentionPlan,
  prepareShared,
  type ProcessReport,
  runProcess,
  type SharedIds,
} from "../support/contention.ts";
import { openStore } from "../support/open_store.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import { d1Store, startD1Worker } from "../support/d1_rpc.ts";

const child = new URL("../support/contention_child.ts", import.meta.url).pathname;
const [PROCESSES, CHAINS, STORIES] = (Deno.env.get("SLUICE_CONTENTION_SIZE") ?? "4,3,5")
  .split(",").map(Number);
const ROUNDS = Deno.env.has("SLUICE_CONTENTION_SIZE") ? 1 : 2;

const seedOf = (round: number) =>
  Number(Deno.env.get("SLUICE_CONTENTION_SEED") ?? Math.floor(Math.random() * 2 ** 31)) + round;

/** Asserts the findings are clean, naming the seed that replays them. */
function assertClean(where: string, plan: ContentionPlan, findings: ContentionFindings) {
  const context = `${where}, seed ${plan.seed} (SLUICE_CONTENTION_SEED=${plan.seed} replays it)`;
  assert.deepEqual(findings.lost, [], `${context}: acknowledged writes lost`);
  assert.deepEqual(findings.duplicated, [], `${context}: done twice`);
  assert.deepEqual(findings.illegal, [], `${context}: illegal state`);
  assert.ok(findings.acks > PROCESSES * CHAINS, `${context}: the run acknowledged little`);
}

/** Prints the run's figures: what the stress task reports. */
function tell(where: string, reports: readonly ProcessReport[], ms: number, f: ContentionFindings) {
  const calls = reports.reduce((sum, report) => sum + report.calls, 0);
  console.log(
    `contention ${where}: ${PROCESSES}x${CHAINS}x${STORIES}, ${f.approvals} approvals, ` +
      `${f.acks} acks, lost ${f.lost.length}, duplicated ${f.duplicated.length}, ` +
      `illegal ${f.illegal.length}, ${(f.approvals / (ms / 1000)).toFixed(0)} approvals/s, ` +
      `${(calls / (ms / 1000)).toFixed(0)} calls/s`,
  );
}

/** The processes' unexpected errors, none expected. */
function assertNoErrors(where: string, plan: ContentionPlan, reports: readonly ProcessReport[]) {
  const errors = reports.flatMap((report) => report.errors);
  assert.deepEqual(errors, [], `${where}, seed ${plan.seed}: unexpected errors`);
}

/** One round in separate processes on the database `url`. */
async function inProcesses(where: string, url: string, round: number) {
  const plan = contentionPlan(seedOf(round), PROCESSES, CHAINS, STORIES);
  const setup = await openStore(url);
  let shared: SharedIds;
  try {
    shared = await prepareShared(setup, plan);
  } finally {
    await setup.close();
  }
  const planPath = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(planPath, JSON.stringify({ plan, shared }));
  const startAt = Date.now() + 2_000 + 300 * PROCESSES;
  const children = Array.from({ length: PROCESSES }, (_, p) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", child, url, planPath, String(p), String(startAt)],
      stdout: "piped",
      stderr: "piped",
    }).spawn());
  let reports: ProcessReport[];
  try {
    const outputs = await Promise.all(children.map((running) => running.output()));
    reports = outputs.map((output, p) => {
      const text = new TextDecoder().decode(output.stdout).trim();
      assert.ok(output.success, `process ${p}: ${new TextDecoder().decode(output.stderr)}`);
      return JSON.parse(text.split("\n").at(-1)!) as ProcessReport;
    });
  } finally {
    await Deno.remove(planPath);
  }
  const elapsed = Date.now() - startAt;
  const fresh = await openStore(url);
  try {
    const findings = await checkContention(fresh, shared, reports);
    tell(where, reports, elapsed, findings);
    assertNoErrors(where, plan, reports);
    assertClean(where, plan, findings);
  } finally {
    await fresh.close();
  }
}

/** One round with every chain in this process, on `store`; `fresh` reads it afterwards. */
async function inThisProcess(
  where: string,
  round: number,
  store: ApprovalStore,
  fresh: ApprovalStore,
) {
  const plan = contentionPlan(seedOf(round), PROCESSES, CHAINS, STORIES);
  const shared = await prepareShared(store, plan);
  const start = Date.now();
  const reports = await Promise.all(
    plan.stories.map((_, p) => runProcess(store, plan, shared, p)),
  );
  const elapsed = Date.now() - start;
  const findings = await checkContention(fresh, shared, reports);
  tell(where, reports, elapsed, findings);
  assertNoErrors(where, plan, reports);
  assertClean(where, plan, findings);
}

Deno.test("contention: memory store, every chain at once in one process", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const store = new MemoryApprovalStore();
    await inThisProcess("memory", round, store, store);
  }
});

Deno.test("contention: libSQL file, several processes on one file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-contention-" });
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await inProcesses("libsql file", `${dir}/approvals-${round}.db`, round);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("libSQL: a write that waits for another connection's lock leaves nothing open: the next write of the same connection is committed", async () => {
  // The shape of the loss the contention run found, made deterministic: a statement that met
  // the lock must not keep the connection's transaction open while it waits, or the connection's
  // next write joins that transaction and is rolled back with it when the wait ends.
  const dir = await Deno.makeTempDir({ prefix: "sluice-stuck-" });
  const path = `${dir}/t.db`;
  const setup = new Database(path);
  setup.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);");
  setup.exec("INSERT INTO t VALUES (1, 'a')");
  setup.close();
  const connection = await NativeConnection.open(path, 5_000, true);
  const other = new Database(path, { timeout: 0 });
  try {
    other.exec("BEGIN IMMEDIATE");
    const waiting = connection.batch([{ sql: "UPDATE t SET v = 'b' WHERE id = 1", args: [] }]);
    other.exec("COMMIT");
    const [inserted] = await connection.batch([
      { sql: "INSERT INTO t (id, v) VALUES (2, 'acknowledged')", args: [] },
    ]);
    assert.equal(inserted.changes, 1);
    await waiting;
    const reader = new Database(path);
    try {
      assert.deepEqual(
        reader.prepare("SELECT id, v FROM t ORDER BY id").all(),
        [{ id: 1, v: "b" }, { id: 2, v: "acknowledged" }],
      );
    } finally {
      reader.close();
    }
  } finally {
    other.close();
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("contention: D1 (workerd), concurrent Worker requests, each with a fresh store", async () => {
  const worker = await startD1Worker(ROUNDS);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const db = `DB${round}`;
      const store = d1Store(worker, db, Date.now, { fresh: true });
      await inThisProcess("d1", round, store, store);
    }
  } finally {
    await worker.stop();
  }
});

if (postgresAvailable()) {
  Deno.test("contention: PostgreSQL, several processes on one database", async () => {
    const server = await startPostgres();
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await inProcesses("postgres", await server.createDatabase(), round);
      }
    } finally {
      await server.stop();
    }
  });
}

/** A store whose connection acknowledges the `UPDATE` to `committed` without making it, `lose` times. */
class LosingStore extends SqlApprovalStore {
  static async open(path: string, lose: number): Promise<LosingStore> {
    const native = await NativeConnection.open(path, 5_000, true);
    await openSchema(native, SQLITE_SCHEMA);
    const losing: SqlConnection = {
      dialect: native.dialect,
      batch(statements, options) {
        const [first] = statements;
        if (lose > 0 && statements.length === 1 && first.args[0] === "committed") {
          lose--;
          return Promise.resolve([{ rows: [], changes: 0 }]);
        }
        return native.batch(statements, options);
      },
      query: (statement) => native.query(statement),
      describe: (error) => native.describe(error),
      close: () => native.close(),
    };
    return new LosingStore({ connection: losing, durable: true, now: Date.now });
  }
}

Deno.test("an outcome whose UPDATE changed no row is never reported as recorded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-unapplied-" });
  const receipt = { resultDigest: "sha256:" + "b".repeat(64), at: Date.now() };
  try {
    for (const [lose, expect] of [[1, "committed"], [100, "refused"]] as const) {
      const store = await LosingStore.open(`${dir}/a-${lose}.db`, 0);
      const request = await makeRequest(Date.now());
      const { id } = await store.prepare(request);
      await store.approve(id, { by: "alice" });
      assert.equal((await store.claim(id, expectationFor(request))).ok, true);
      await store.close();
      const losing = await LosingStore.open(`${dir}/a-${lose}.db`, lose);
      try {
        if (expect === "committed") {
          // Lost once: tried again, and then recorded.
          const record = await losing.recordOutcome(id, { outcome: "committed", receipt });
          assert.equal(record.state, "committed");
          assert.equal((await losing.get(id))?.state, "committed");
        } else {
          await assert.rejects(
            losing.recordOutcome(id, { outcome: "committed", receipt }),
            (error: unknown) => (error as { code?: string }).code === "approval_invalid_transition",
          );
          assert.equal((await losing.get(id))?.state, "claimed");
        }
      } finally {
        await losing.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
