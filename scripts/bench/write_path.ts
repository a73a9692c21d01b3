/**
 * Write-path benchmark, per durable store: full write cycles through the `Gate` (prepare, inline
 * approve, claim, dispatch to an in-memory v2 SDK server, record the committed outcome) next to
 * two loops with no sluice code in them, on the same database and driver:
 *
 * - the bare loop: the same number of durable transactions (one single-row `INSERT` each, the
 *   store's own driver, statements prepared once);
 * - the floor: the bare loop plus one raw SDK `callTool` per write to the same server, the parts
 *   a write cycle cannot leave out.
 *
 * "sluice's cost per write above the floor" is (gate cycles - floor) per write; the ratio is gate
 * cycles / bare loop. Targets on the embedded libSQL file: at most 300 us above the floor and
 * 1.3x the bare loop. PostgreSQL (a real server started for the run, when its binaries exist) is
 * reported beside it against its own bare loop.
 *
 * The bare loop has one durable transaction per state change of a write, measured, not assumed:
 * every state change appends one event, so the events of one approval count them (four: pending,
 * approved, claimed, committed). It syncs every one of its transactions (libSQL
 * `synchronous=FULL`; PostgreSQL `synchronous_commit=on`). The gate's inline cycle records those
 * four state changes in two commits, both synced: the new approval with its claim
 * (`prepareClaimed`), then the outcome (`tests/gate/commit_sync_test.ts` counts the fsyncs);
 * the commits per write are counted too, from the store connection's batches during a probe
 * write. So the ratio can fall below 1.
 *
 * Stalls (also alone: `deno task bench stalls`): with another connection holding the lock the
 * claim needs for 1.5 s (a separate process holding the SQLite write lock; a PostgreSQL
 * transaction holding the row with `FOR UPDATE`), the claim runs next to a 1 ms interval timer and the longest gap between its ticks is reported, with
 * the same wait done the old way (`@libsql/client` with a driver busy timeout) for comparison.
 * Each stall round first measures the same timer with nothing but a sleep running, so the
 * machine's own jitter (two cores shared with other work) is reported beside the claims' lag,
 * and each store's claim is also measured with no lock held: the lag of its own commit (on the
 * embedded file a synchronous `fsync`, as long as the disk takes). On the embedded file every
 * synchronous driver call during the claim is timed as well: the longest busy attempt (what the
 * lock wait itself holds the event loop for) and the longest call that succeeded (the commit).
 *
 * fsync latency on a shared machine swings widely within seconds, so rounds of every loop
 * alternate (in an order rotated every round) and each ratio is the median of per-round ratios,
 * with quartiles as figures. Beside the wall-clock figures, the process CPU time of each loop
 * (user + system, `process.cpuUsage`) gives sluice's CPU above the floor without the fsync
 * waits, which dominate the wall-clock noise.
 *
 * @module
 */
import { createClient } from "@libsql/client";
import postgres from "postgres";
import {
  type ApprovalStore,
  digest,
  discoverWriteTools,
  Gate,
  MemoryApprovalStore,
} from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import { observeBatches } from "./store_batches.ts";
import { bareTable } from "./bare_loop.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import { postgresBinDir, startPostgres } from "../../fixtures/postgres_server.ts";
import {
  type DriverCalls,
  holdSqliteLock,
  longestDriverCalls,
  measureStall,
  type StallMeasurement,
} from "./stalls.ts";
import process from "node:process";
import { type Benchmark, type BenchRow, median, quantile } from "./types.ts";

/** Write cycles per timed round. */
const CYCLES_PER_ROUND = 10;
const ROUNDS = 40;
const WARMUP = 5;
/** How long another connection holds the lock in the stall measurement. */
const LOCK_HOLD_MS = 1_500;
/** Stall rounds: each measures the idle timer once and every store's claim once. */
const STALL_ROUNDS = 5;

/** One durable store under test, with the loops that measure it. */
interface Target {
  readonly name: string;
  readonly store: ApprovalStore;
  /** Ratio target against the bare loop, where the project has one. */
  readonly targetRatio?: number;
  /** `n` durable single-row transactions on the store's own driver, no sluice code. */
  bare(n: number): Promise<void>;
  /**
   * Makes another connection hold what a claim of `id` needs for `ms`; resolves once it is held,
   * with a promise that settles when it was released.
   */
  holdLock(id: string, ms: number): Promise<{ released: Promise<void> }>;
  /** For a synchronous driver: runs `call` and returns its longest single driver calls. */
  longestDriverCalls?(call: () => Promise<unknown>): Promise<DriverCalls>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function libsqlTarget(dir: string): Promise<Target> {
  const path = `${dir}/approvals.db`;
  const store = await LibsqlApprovalStore.open(path);
  const settings = await store.durability();
  if (settings.journalMode !== "wal" || settings.synchronous < 2) {
    throw new Error("the benchmark store is not WAL + synchronous=FULL");
  }
  const { db: bareDb, insert } = bareTable(`${dir}/bare.db`);
  let n = 0;
  return {
    name: "libSQL file",
    store,
    targetRatio: 1.3,
    bare(count) {
      for (let i = 0; i < count; i++) insert.run(`b${n++}`, "pending", BODY, Date.now());
      return Promise.resolve();
    },
    holdLock: (_id, ms) => holdSqliteLock(path, ms),
    longestDriverCalls: (call) => longestDriverCalls(bareDb, call),
    async close() {
      bareDb.close();
      await store.close();
    },
  };
}

async function postgresTarget(url: string): Promise<Target> {
  const store = await PostgresApprovalStore.open(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const holder = postgres(url, { max: 1, onnotice: () => {} });
  await sql.unsafe("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at BIGINT)");
  let n = 0;
  return {
    name: "PostgreSQL",
    store,
    async bare(count) {
      for (let i = 0; i < count; i++) {
        await sql.unsafe("INSERT INTO t (id, state, body, at) VALUES ($1, $2, $3, $4)", [
          `b${n++}`,
          "pending",
          BODY,
          Date.now(),
        ], { prepare: true });
      }
    },
    async holdLock(id, ms) {
      let held!: () => void;
      const locked = new Promise<void>((resolve) => held = resolve);
      const released: Promise<void> = holder.begin(async (tx) => {
        await tx.unsafe("SELECT id FROM approvals WHERE id = $1 FOR UPDATE", [id]);
        held();
        await sleep(ms);
      }).then(() => undefined);
      await locked;
      return { released };
    },
    async close() {
      await sql.end();
      await holder.end();
      await store.close();
    },
  };
}

const BODY = JSON.stringify({ key: "k", value: SYNTHETIC_VALUE }).repeat(4);

/** The claim of an approved call while another connection holds its lock for 1.5 s. */
/** A stall measurement, with the longest single driver call when the driver is synchronous. */
interface ClaimStall extends StallMeasurement {
  readonly driver?: DriverCalls;
}

async function claimStall(target: Target, lockHeld = true): Promise<ClaimStall> {
  const request = await makeRequest(Date.now());
  const { id } = await target.store.prepare(request);
  await target.store.approve(id, { by: "bench" });
  const { released } = lockHeld
    ? await target.holdLock(id, LOCK_HOLD_MS)
    : { released: Promise.resolve() };
  let driver: DriverCalls | undefined;
  const claim = async () => {
    const claim = await target.store.claim(id, expectationFor(request));
    if (!claim.ok) throw new Error(`the stalled claim was refused: ${claim.code}`);
  };
  const measured = await measureStall(async () => {
    if (target.longestDriverCalls === undefined) await claim();
    else driver = await target.longestDriverCalls(claim);
  });
  await released;
  return { ...measured, ...(driver === undefined ? {} : { driver }) };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** This process's CPU time so far (user + system), in milliseconds. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Runs every loop once per round, `warmup` rounds untimed first, and returns each round's wall
 * and process CPU milliseconds per loop (`wall[loop][round]`). The order rotates every round, so
 * no loop always follows the same one (fsync latency depends on what the disk did just before).
 */
async function sampleRounds(
  loops: readonly (() => Promise<void>)[],
  options: { rounds: number; warmup: number },
): Promise<{ wall: number[][]; cpu: number[][] }> {
  for (let round = 0; round < options.warmup; round++) {
    for (const loop of loops) await loop();
  }
  const wall = loops.map((): number[] => []);
  const cpu = loops.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let step = 0; step < loops.length; step++) {
      const index = (round + step) % loops.length;
      const startCpu = cpuMs();
      const start = performance.now();
      await loops[index]();
      wall[index].push(performance.now() - start);
      cpu[index].push(cpuMs() - startCpu);
    }
  }
  return { wall, cpu };
}

/**
 * The stall figures: {@link STALL_ROUNDS} rounds, each measuring the timer lag with nothing but a
 * sleep running (this machine's own jitter: two cores shared with other work) and then each
 * store's claim waiting for a held lock, so both see the same machine state. A forced GC (when
 * `gc` is exposed) before every measurement keeps the garbage of earlier work out of it.
 */
async function stallRows(targets: readonly Target[]): Promise<BenchRow[]> {
  const idle: StallMeasurement[] = [];
  const claims = targets.map((): ClaimStall[] => []);
  const unlocked = targets.map((): ClaimStall[] => []);
  for (let round = 0; round < STALL_ROUNDS; round++) {
    gc?.();
    idle.push(await measureStall(() => sleep(LOCK_HOLD_MS)));
    for (const [index, target] of targets.entries()) {
      gc?.();
      claims[index].push(await claimStall(target));
      gc?.();
      unlocked[index].push(await claimStall(target, false));
    }
  }
  const range = (stalls: StallMeasurement[]) => {
    const lags = stalls.map((stall) => stall.maxLagMs);
    return {
      median: median(lags),
      unit: `ms (range ${Math.min(...lags).toFixed(1)} .. ${Math.max(...lags).toFixed(1)})`,
    };
  };
  const idleRange = range(idle);
  const rows: BenchRow[] = [{
    kind: "figure",
    name: `timer lag with only a ${LOCK_HOLD_MS} ms sleep running (this machine's jitter), ` +
      `median of ${STALL_ROUNDS}`,
    value: idleRange.median,
    unit: idleRange.unit,
  }];
  for (const [index, target] of targets.entries()) {
    const { median: value, unit } = range(claims[index]);
    rows.push({
      kind: "figure",
      name: `${target.name}: max event-loop lag, claim waiting ${LOCK_HOLD_MS} ms for a lock` +
        ` (median of ${STALL_ROUNDS}; target <= 5)`,
      value,
      unit,
    }, {
      kind: "figure",
      name: `${target.name}: those claims' shortest duration (they did wait)`,
      value: Math.min(...claims[index].map((stall) => stall.callMs)),
      unit: "ms",
    });
    const driver = claims[index].flatMap((stall) => stall.driver ?? []);
    const spread = (values: number[]) =>
      `ms (range ${Math.min(...values).toFixed(2)} .. ${Math.max(...values).toFixed(2)})`;
    if (driver.length > 0) {
      const failed = driver.map((calls) => calls.failedMs);
      const succeeded = driver.map((calls) => calls.succeededMs);
      rows.push({
        kind: "figure",
        name: `${target.name}: those claims' longest busy attempt (one synchronous driver call)`,
        value: median(failed),
        unit: spread(failed),
      }, {
        kind: "figure",
        name: `${target.name}: those claims' longest call that succeeded (the commit, its fsync)`,
        value: median(succeeded),
        unit: spread(succeeded),
      });
    }
    rows.push({
      kind: "figure",
      name: `${target.name}: the same claim with no lock held (its own commit), max lag`,
      ...(({ median: value, unit }) => ({ value, unit }))(range(unlocked[index])),
    });
  }
  return rows;
}

/** The same wait as `@libsql/client` does it with a driver busy timeout (the old store). */
async function oldBusyWaitStall(dir: string): Promise<StallMeasurement> {
  const path = `${dir}/approvals.db`;
  const client = createClient({ url: `file:${path}` });
  try {
    await client.execute("PRAGMA busy_timeout = 10000");
    const { released } = await holdSqliteLock(path, LOCK_HOLD_MS);
    const measured = await measureStall(async () => {
      (await client.transaction("write")).close();
    });
    await released;
    return measured;
  } finally {
    client.close();
  }
}

/** The write-path benchmark registered in `scripts/bench.ts`. */
export const writePathBenchmark: Benchmark = {
  name: "write_path",
  describe: () =>
    `${CYCLES_PER_ROUND} gate write cycles per round x ${ROUNDS} rounds per store (libSQL file, ` +
    `PostgreSQL) vs a bare loop of the same durable transactions on the same driver, and the ` +
    `event-loop lag of a claim waiting ${LOCK_HOLD_MS} ms for a lock`,
  run: () =>
    withTargets(async (targets, dir) => {
      const server = await startMemoryWriteServer();
      try {
        return [
          ...await writeRows(targets, server),
          ...await stallRows(targets),
          await oldWay(dir),
        ];
      } finally {
        await server.close();
      }
    }),
};

/** The stall figures alone (`deno task bench stalls`), as `write_path` reports them. */
export const stallsBenchmark: Benchmark = {
  name: "stalls",
  describe: () =>
    `the event-loop lag of a claim waiting ${LOCK_HOLD_MS} ms for a lock, per store, ` +
    `${STALL_ROUNDS} rounds beside the idle timer's own lag`,
  run: () => withTargets(async (targets, dir) => [...await stallRows(targets), await oldWay(dir)]),
};

/** Opens every store under test (PostgreSQL when its binaries exist), runs `use`, closes them. */
async function withTargets(
  use: (targets: readonly Target[], dir: string) => Promise<BenchRow[]>,
): Promise<BenchRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-bench-write-" });
  const pg = postgresBinDir() === undefined ? undefined : await startPostgres();
  const targets: Target[] = [];
  try {
    targets.push(await libsqlTarget(dir));
    if (pg !== undefined) targets.push(await postgresTarget(await pg.createDatabase()));
    else console.log("write_path: no PostgreSQL binaries; PostgreSQL figures left out");
    return await use(targets, dir);
  } finally {
    for (const target of targets) await target.close();
    await pg?.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Gates over `server`'s write tool that approve every call inline, one per store they are given
 * (the memory store allowed, for pricing the gate alone).
 */
export async function inlineGates(
  server: Awaited<ReturnType<typeof startMemoryWriteServer>>,
): Promise<(store: ApprovalStore) => Gate> {
  const writes = await discoverWriteTools(server.client, "bench", {
    write_record: writeBinding(),
  }, { monitor: server.monitor });
  return (store) =>
    new Gate({
      catalogs: [writes],
      store,
      approve: () => true,
      allowNonDurableStoreForTests: store instanceof MemoryApprovalStore,
    });
}

/** The write-cycle figures: gate cycles, bare loop and floor per store, rounds interleaved. */
async function writeRows(
  targets: readonly Target[],
  server: Awaited<ReturnType<typeof startMemoryWriteServer>>,
): Promise<BenchRow[]> {
  const gateOn = await inlineGates(server);
  let sequence = 0;
  const cyclesOn = (gate: Gate, check?: (approvalId: string) => void) => async () => {
    for (let i = 0; i < CYCLES_PER_ROUND; i++) {
      const n = sequence++;
      const [envelope] = await gate.run([
        {
          id: `c${n}`,
          name: "save_record",
          arguments: { key: `k${n}`, value: SYNTHETIC_VALUE },
        },
      ], { runId: "bench" });
      if (envelope.effect !== "committed") throw new Error("a write did not commit");
      check?.(envelope.approvalId!);
    }
  };
  const rawCalls = async () => {
    for (let i = 0; i < CYCLES_PER_ROUND; i++) {
      const result = await server.client.callTool({
        name: "write_record",
        arguments: { key: `f${sequence++}`, value: SYNTHETIC_VALUE },
      });
      if (result.isError) throw new Error("a floor call failed");
    }
  };
  const loops: (() => Promise<void>)[] = [];
  const perTarget: { target: Target; tx: number; commits: number; lastId: () => string }[] = [];
  for (const target of targets) {
    const gate = gateOn(target.store);
    const { value: [probe], batches } = await observeBatches(() =>
      gate.run([
        {
          id: "probe",
          name: "save_record",
          arguments: { key: `probe-${target.name}`, value: SYNTHETIC_VALUE },
        },
      ], { runId: `probe-${target.name}` })
    );
    if (probe.effect !== "committed") {
      throw new Error(`the probe write did not commit: ${JSON.stringify(probe)}`);
    }
    const tx = (await target.store.events(probe.approvalId!)).length;
    const commits = batches.length;
    let lastId = "";
    loops.push(
      cyclesOn(gate, (id) => lastId = id),
      () => target.bare(CYCLES_PER_ROUND * tx),
      async () => {
        await target.bare(CYCLES_PER_ROUND * tx);
        await rawCalls();
      },
    );
    perTarget.push({ target, tx, commits, lastId: () => lastId });
  }
  loops.push(cyclesOn(gateOn(new MemoryApprovalStore())));
  const { wall: samples, cpu } = await sampleRounds(loops, { rounds: ROUNDS, warmup: WARMUP });
  const rows: BenchRow[] = [];
  const perWriteUs = (ms: number) => (ms * 1000) / CYCLES_PER_ROUND;
  const perRound = (a: number[], b: number[], f: (x: number, y: number) => number) =>
    a.map((x, round) => f(x, b[round]));
  for (const [index, { target, tx, commits, lastId }] of perTarget.entries()) {
    const [gate, bare, floor] = samples.slice(index * 3, index * 3 + 3);
    const [gateCpu, , floorCpu] = cpu.slice(index * 3, index * 3 + 3);
    const aboveCpu = perRound(gateCpu, floorCpu, (g, f) => perWriteUs(g - f));
    if ((await target.store.events(lastId())).length !== tx) {
      throw new Error("a timed cycle made another number of transactions than the probe");
    }
    const ratios = perRound(gate, bare, (g, b) => g / b);
    const above = perRound(gate, floor, (g, f) => perWriteUs(g - f));
    rows.push({
      kind: "comparison",
      subject:
        `${target.name}: ${CYCLES_PER_ROUND} write cycles (${tx} state changes in ${commits} commits each)`,
      subjectMs: median(gate),
      baseline: `${CYCLES_PER_ROUND * tx} bare transactions, same driver`,
      baselineMs: median(bare),
      ratio: median(ratios),
      ...(target.targetRatio === undefined ? {} : { targetRatio: target.targetRatio }),
    }, {
      kind: "comparison",
      subject: `${target.name}: floor (the same tx + ${CYCLES_PER_ROUND} raw callTool)`,
      subjectMs: median(floor),
      baseline: `${CYCLES_PER_ROUND * tx} bare transactions, same driver`,
      baselineMs: median(bare),
      ratio: median(perRound(floor, bare, (f, b) => f / b)),
    }, {
      kind: "figure",
      name: `${target.name}: sluice's cost per write above the floor (median)` +
        (target.targetRatio === undefined ? "" : " (target <= 300)"),
      value: median(above),
      unit: "us",
    }, {
      kind: "figure",
      name: `${target.name}: sluice above the floor, 25th-75th percentile`,
      value: quantile(above, 0.25),
      unit: `us .. ${quantile(above, 0.75).toFixed(0)} us`,
    }, {
      kind: "figure",
      name: `${target.name}: sluice's process CPU per write above the floor's, median`,
      value: median(aboveCpu),
      unit: `us (25th-75th percentile ${quantile(aboveCpu, 0.25).toFixed(0)} .. ${
        quantile(aboveCpu, 0.75).toFixed(0)
      } us)`,
    }, {
      kind: "figure",
      name: `${target.name}: gate cycles / bare, per-round ratio, 25th percentile`,
      value: quantile(ratios, 0.25),
      unit: "x",
    }, {
      kind: "figure",
      name: `${target.name}: gate cycles / bare, per-round ratio, 75th percentile`,
      value: quantile(ratios, 0.75),
      unit: "x",
    }, {
      kind: "figure",
      name: `${target.name}: bare time per durable transaction`,
      value: (median(bare) * 1000) / (CYCLES_PER_ROUND * tx),
      unit: "us",
    }, {
      kind: "figure",
      name: `${target.name}: state changes per write (the bare loop's transactions per write)`,
      value: tx,
      unit: "tx",
    }, {
      kind: "figure",
      name: `${target.name}: the gate's commits per write`,
      value: commits,
      unit: "commits",
    });
  }
  rows.push({
    kind: "figure",
    name: "gate with no SQL (MemoryApprovalStore) - raw callTool, per write",
    value: perWriteUs(median(samples.at(-1)!)) -
      perWriteUs(median(samples[2]) - median(samples[1])),
    unit: "us",
  }, {
    kind: "figure",
    name: "the same in process CPU time",
    value: perWriteUs(median(cpu.at(-1)!)) - perWriteUs(median(cpu[2]) - median(cpu[1])),
    unit: "us",
  });
  return rows;
}

/** The same wait done the old way, for comparison. */
async function oldWay(dir: string): Promise<BenchRow> {
  const old = await oldBusyWaitStall(dir);
  return {
    kind: "figure",
    name: "old way (@libsql/client, driver busy timeout): max event-loop lag, same wait",
    value: old.maxLagMs,
    unit: "ms",
  };
}

/** Runs the arguments digest once so module loading is not inside the first timed round. */
await digest({});
