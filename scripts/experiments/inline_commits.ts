/**
 * The SQL of one inline write as the gate now sends it (the approval with its claim in one
 * batch, then the outcome), recorded from a store and replayed on the native driver with no
 * sluice code, on WAL files at `synchronous = FULL`: with the full schema and without any
 * trigger, next to the bench's bare loop (four synced one-row inserts), rounds interleaved; then
 * each step of the full schema's cycle timed on its own.
 *
 * `deno run -A scripts/experiments/inline_commits.ts [rounds]`. Not part of `deno task bench`.
 *
 * @module
 */
import Database from "libsql";
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { SqlStatement } from "../../src/approvals/sql/connection.ts";
import { SQLITE_MIGRATIONS } from "../../src/approvals/sqlite/migrations.ts";
import { makeRequest } from "../../tests/support/approval_requests.ts";
import { median } from "../bench/types.ts";
import { observeBatches } from "../bench/store_batches.ts";

const ROUNDS = Number(Deno.args[0] ?? 40);
const WRITES = 10;
const BODY = "x".repeat(600);
const dir = await Deno.makeTempDir({ prefix: "sluice-inline-commits-" });

/** The statements of one inline write, recorded from the store's connection. */
async function recordStatements(): Promise<{ sent: SqlStatement[]; id: string }> {
  const store = await LibsqlApprovalStore.open(`${dir}/record.db`);
  const id = crypto.randomUUID();
  try {
    const { batches } = await observeBatches(async () => {
      const request = { ...await makeRequest(Date.now(), { runId: "r", callId: "c0" }), id };
      await store.prepareClaimed(request, { by: "inline" });
      await store.recordOutcome(id, {
        outcome: "committed",
        receipt: { resultDigest: "sha256:" + "b".repeat(64), at: Date.now() },
      });
    });
    const sent = batches.flat();
    if (sent.length !== 4) throw new Error(`expected 4 statements, recorded ${sent.length}`);
    return { sent, id };
  } finally {
    await store.close();
  }
}

const { sent, id: recordedId } = await recordStatements();

function durable(name: string): InstanceType<typeof Database> {
  const db = new Database(`${dir}/${name}.db`);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  return db;
}

/** The recorded write on the store's schema with the triggers `drop` names removed. */
function replay(name: string, drop: (trigger: string) => boolean) {
  const db = durable(name);
  for (const statement of SQLITE_MIGRATIONS.flatMap((m) => m.statements)) db.exec(statement);
  const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    .all() as { name: string }[];
  for (const { name: trigger } of triggers) if (drop(trigger)) db.exec(`DROP TRIGGER ${trigger}`);
  const statements = sent.map((statement) => db.prepare(statement.sql));
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  let n = 0;
  const args = (i: number, id: string, call: string) =>
    sent[i].args.map((arg) => arg === recordedId ? id : arg === "c0" ? call : arg);
  /** One write; `time(step, run)` wraps each driver call. */
  return (time: (step: string, run: () => void) => void = (_, run) => run()) => {
    const id = crypto.randomUUID();
    const call = `${name}-${n++}`;
    time("BEGIN", () => begin.run());
    time("insert", () => statements[0].run(args(0, id, call)));
    time("pending → approved", () => statements[1].run(args(1, id, call)));
    time("approved → claimed", () => statements[2].run(args(2, id, call)));
    time("COMMIT (fsync)", () => commit.run());
    time("outcome (fsync)", () => statements[3].run(args(3, id, call)));
  };
}

function bare() {
  const db = durable("bare");
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");
  const insert = db.prepare("INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)");
  let n = 0;
  return () => {
    for (let i = 0; i < 4; i++) insert.run(`b${n++}`, "pending", BODY, Date.now());
  };
}

const full = replay("full", () => false);
const loops: [string, () => void][] = [
  ["full schema (2 commits)", () => full()],
  ["no trigger at all", replay("no-triggers", () => true)],
  ["bare loop (4 synced inserts)", bare()],
];
const times = loops.map((): number[] => []);
for (let round = -3; round < ROUNDS; round++) {
  for (let step = 0; step < loops.length; step++) {
    const index = (round + 3 + step) % loops.length;
    const start = performance.now();
    for (let i = 0; i < WRITES; i++) loops[index][1]();
    if (round >= 0) times[index].push((performance.now() - start) * 1000 / WRITES);
  }
}
console.log(`per write, median of ${ROUNDS} rounds of ${WRITES}`);
for (const [index, [name]] of loops.entries()) {
  console.log(`  ${name.padEnd(30)} ${median(times[index]).toFixed(0).padStart(6)} us`);
}
const steps = new Map<string, number[]>();
for (let i = 0; i < 2_000; i++) {
  full((step, run) => {
    const start = performance.now();
    run();
    if (i >= 200) steps.set(step, [...steps.get(step) ?? [], (performance.now() - start) * 1000]);
  });
}
console.log("the full schema's write, each driver call (median of 1,800)");
for (const [step, values] of steps) {
  console.log(`  ${step.padEnd(30)} ${median(values).toFixed(0).padStart(6)} us`);
}
await Deno.remove(dir, { recursive: true });
