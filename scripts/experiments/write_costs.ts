/**
 * Where the embedded libSQL write cycle spends its time beyond the floor (the bench's bare loop
 * of four one-row durable transactions plus one raw `callTool`), layer by layer, rounds
 * interleaved in a rotating order, wall and process CPU per write:
 *
 * - `gate`: full gate write cycles on a libSQL file store (what `deno task bench write_path` times);
 * - `store`: the same store calls straight on a libSQL file store (no gate), as the gate's inline
 *   path makes them: `findCall`, `prepareClaimed` (the approval with its claim), `recordOutcome`;
 * - `sql`: the exact batches those calls send (recorded from one cycle, replayed with fresh ids)
 *   on the store's schema through the native driver, a batch of several statements in one
 *   transaction, no store code;
 * - `sql (connection)`: the same batches through the store's `NativeConnection` (its retry
 *   wrapper and statement cache);
 * - `bare`: four one-row durable (`synchronous = FULL`) `INSERT`s (the bench's bare loop);
 * - `raw`: one raw SDK `callTool`;
 * - `gate (memory)` and `store (memory)`: the same on the memory store, to price the gate alone.
 *
 * Also the WAL frames each write appends (deterministic: no timing), store schema vs bare table.
 * Not part of `deno task bench`: `deno run -A scripts/experiments/write_costs.ts [rounds]`.
 *
 * @module
 */
import process from "node:process";
import Database from "libsql";
import { type Gate, MemoryApprovalStore } from "../../mod.ts";
import type { ApprovalStore } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import type { SqlStatement } from "../../src/approvals/sql/connection.ts";
import { SQLITE_MIGRATIONS } from "../../src/approvals/sqlite/migrations.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { makeRequest } from "../../tests/support/approval_requests.ts";
import { median } from "../bench/types.ts";
import { observeBatches } from "../bench/store_batches.ts";
import { inlineGates } from "../bench/write_path.ts";

const CYCLES = 10;
const ROUNDS = Number(Deno.args[0] ?? 40);
const BODY = JSON.stringify({ key: "k", value: SYNTHETIC_VALUE }).repeat(4);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
type Db = InstanceType<typeof Database>;

function durable(path: string): Db {
  const db = new Database(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  return db;
}

function bareTable(db: Db): (count: number) => void {
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");
  const insert = db.prepare("INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)");
  let n = 0;
  return (count) => {
    for (let i = 0; i < count; i++) insert.run(`b${n++}`, "pending", BODY, Date.now());
  };
}

let sequence = 0;

/** One write's store calls, as the gate's inline path makes them. */
async function storeCycle(store: ApprovalStore): Promise<void> {
  const callId = `c${sequence++}`;
  const request = {
    ...await makeRequest(Date.now(), { runId: "costs", callId }),
    id: crypto.randomUUID(),
  };
  if (await store.findCall("costs", callId) !== undefined) throw new Error("a call met again");
  const claimed = await store.prepareClaimed(request, { by: "costs" });
  if (!claimed.ok) throw new Error("not claimed");
  await store.recordOutcome(request.id, {
    outcome: "committed",
    receipt: { resultDigest: "sha256:" + "b".repeat(64), at: Date.now() },
  });
}

/** The batches one store cycle sends, recorded from the driver, with its id and call id. */
async function recordCycle(dir: string) {
  const store = await LibsqlApprovalStore.open(`${dir}/record.db`);
  const callId = `c${sequence}`;
  const { batches: sent } = await observeBatches(() => storeCycle(store));
  const [id] = (await store.list()).map((record) => record.id);
  await store.close();
  return { sent, id, callId };
}

const dir = await Deno.makeTempDir({ prefix: "sluice-write-costs-" });
const { sent, id: recordedId, callId: recordedCall } = await recordCycle(dir);
const sqlDb = durable(`${dir}/sql.db`);
for (const statement of SQLITE_MIGRATIONS.flatMap((m) => m.statements)) sqlDb.exec(statement);
const replay = sent.map((statements) =>
  statements.map(({ sql, args }) => ({ prepared: sqlDb.prepare(sql), args }))
);
const begin = sqlDb.prepare("BEGIN IMMEDIATE");
const commit = sqlDb.prepare("COMMIT");
const fresh = (args: SqlStatement["args"], id: string, call: string) =>
  args.map((arg) => arg === recordedId ? id : arg === recordedCall ? call : arg);
const sqlCycle = () => {
  const id = crypto.randomUUID();
  const call = `r${sequence++}`;
  for (const statements of replay) {
    // A batch of several statements is one transaction, as the store's connection runs it.
    if (statements.length > 1) begin.run();
    for (const { prepared, args } of statements) prepared.run(fresh(args, id, call));
    if (statements.length > 1) commit.run();
  }
};
const viaConnection = await NativeConnection.open(`${dir}/conn.db`, 10_000, true);
for (const statement of SQLITE_MIGRATIONS.flatMap((m) => m.statements)) {
  await viaConnection.batch([{ sql: statement, args: [] }]);
}
const connectionCycle = async () => {
  const id = crypto.randomUUID();
  const call = `q${sequence++}`;
  for (const statements of sent) {
    await viaConnection.batch(statements.map(({ sql, args }) => ({
      sql,
      args: fresh(args, id, call),
    })));
  }
};
const bare = bareTable(durable(`${dir}/bare.db`));
const fileStore = await LibsqlApprovalStore.open(`${dir}/store.db`);
const gateStore = await LibsqlApprovalStore.open(`${dir}/gate.db`);
const memoryStore = new MemoryApprovalStore();
const server = await startMemoryWriteServer();
const gateOn = await inlineGates(server);
const gates = [gateOn(gateStore), gateOn(new MemoryApprovalStore())];
const gateCycles = (gate: Gate) => async () => {
  for (let i = 0; i < CYCLES; i++) {
    const n = sequence++;
    const [envelope] = await gate.run([
      { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
    ], { runId: "costs" });
    if (envelope.effect !== "committed") throw new Error("a write did not commit");
  }
};
const loops: [string, () => Promise<void>][] = [
  ["gate", gateCycles(gates[0])],
  ["store", async () => {
    for (let i = 0; i < CYCLES; i++) await storeCycle(fileStore);
  }],
  ["sql", () => {
    for (let i = 0; i < CYCLES; i++) sqlCycle();
    return Promise.resolve();
  }],
  ["sql (connection)", async () => {
    for (let i = 0; i < CYCLES; i++) await connectionCycle();
  }],
  ["bare", () => Promise.resolve(bare(4 * CYCLES))],
  ["raw", async () => {
    for (let i = 0; i < CYCLES; i++) {
      const result = await server.client.callTool({
        name: "write_record",
        arguments: { key: `f${sequence++}`, value: SYNTHETIC_VALUE },
      });
      if (result.isError) throw new Error("a raw call failed");
    }
  }],
  ["gate (memory)", gateCycles(gates[1])],
  ["store (memory)", async () => {
    for (let i = 0; i < CYCLES; i++) await storeCycle(memoryStore);
  }],
];
const wall = loops.map((): number[] => []);
const cpu = loops.map((): number[] => []);
for (let round = -5; round < ROUNDS; round++) {
  for (let step = 0; step < loops.length; step++) {
    const index = (round + 5 + step) % loops.length;
    const [startCpu, start] = [cpuMs(), performance.now()];
    await loops[index][1]();
    if (round < 0) continue;
    wall[index].push(performance.now() - start);
    cpu[index].push(cpuMs() - startCpu);
  }
}
const at = (name: string) => loops.findIndex(([loop]) => loop === name);
/** Median over rounds of `sum(sign * loop)`, in microseconds per write. */
const combine = (series: number[][], terms: [string, number][]) =>
  median(
    series[0].map((_, round) =>
      terms.reduce((sum, [name, sign]) => sum + sign * series[at(name)][round], 0)
    ),
  ) * 1000 / CYCLES;
const line = (label: string, terms: [string, number][]) =>
  console.log(
    `${label.padEnd(58)} wall ${combine(wall, terms).toFixed(0).padStart(6)} us   cpu ${
      combine(cpu, terms).toFixed(0).padStart(6)
    } us`,
  );
console.log(`per write, median of ${ROUNDS} rounds of ${CYCLES} writes`);
for (const [name] of loops) line(name, [[name, 1]]);
console.log("");
line("above the floor (gate - bare - raw)", [["gate", 1], ["bare", -1], ["raw", -1]]);
line("  the store's SQL above bare (sql - bare)", [["sql", 1], ["bare", -1]]);
line("  the store's own code (store - sql (connection))", [["store", 1], ["sql (connection)", -1]]);
line("  the connection wrapper (sql (connection) - sql)", [["sql (connection)", 1], ["sql", -1]]);
line("  the gate around a store (gate (memory) - store (memory) - raw)", [
  ["gate (memory)", 1],
  ["store (memory)", -1],
  ["raw", -1],
]);
line("  the rest (gate on file beyond those)", [
  ["gate", 1],
  ["store", -1],
  ["gate (memory)", -1],
  ["store (memory)", 1],
]);

/** WAL frames per write with checkpoints off: the store's statements vs the bare table. */
function frames(label: string, db: Db, write: () => void) {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  for (let i = 0; i < 200; i++) write();
  const [, logged] = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw(true).get() as number[];
  console.log(`${label}: ${(logged / 200).toFixed(1)} WAL frames (pages) per write`);
}
console.log("");
frames("store statements", sqlDb, sqlCycle);
const bareDb = durable(`${dir}/frames.db`);
const bareFrames = bareTable(bareDb);
bareFrames(2000);
frames("bare (4 one-row transactions)", bareDb, () => bareFrames(4));
bareDb.close();
sqlDb.close();
await fileStore.close();
await gateStore.close();
await server.close();
await Deno.remove(dir, { recursive: true });
