/**
 * `deno task bench write_fleet`: durable gated writes at fleet speed on PostgreSQL. A real
 * server (`fixtures/postgres_server.ts`, synced commits), and {@link RUNS} concurrent runs, each
 * making {@link WRITES_PER_RUN} writes one after another through `connect()`'s toolkit: the
 * write tool of a loopback Streamable HTTP server in its own process (`connect_server.ts`),
 * approved inline and recorded in a `PostgresApprovalStore` (a read for the call's approval,
 * the approval with its claim in one transaction, then the outcome), the call itself between.
 *
 * The baseline replays the same store statements with no sluice code: one probe write's batches
 * and reads are captured from the store's connection, and each replayed write sends them again
 * (fresh approval, run and call ids) with the `postgres` driver directly, on a database of the
 * same schema (so the same triggers run), with the same concurrency and the same pool size:
 * prepared statements, a lone statement on its own, a batch of several in the driver's
 * transaction (`begin`), its statements pipelined. The ratio is sluice's writes per second over
 * the replay's, the median of the per-round ratios, with their range. Target: at least 0.8×.
 *
 * Beside it: the floor, the replay plus one raw v2 SDK `tools/call` per write to the same server
 * (what a write cannot leave out), and sluice against that; the replay sent through the store's
 * own `PostgresConnection` instead of the bare driver (the same SQL inside sluice's connection
 * layer, nothing else of sluice around it); this process's CPU time per write of
 * each loop (the server's and PostgreSQL's are not in it); and with `--against <checkout>`, the
 * same `connect()` writes on that checkout's `PostgresApprovalStore`, an A/B of the store alone.
 * Every loop runs once per round, in an order rotated every round.
 *
 * @module
 */
import postgres from "postgres";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { type ApprovalStore, connect } from "../../mod.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import type { SqlStatement } from "../../src/approvals/sql/connection.ts";
import type { SqlValue } from "../../src/approvals/sql/rows.ts";
import { postgresBinDir, startPostgres } from "../../fixtures/postgres_server.ts";
import { SYNTHETIC_VALUE, TOOLS, WRITE_TOOL } from "../../fixtures/write_server.ts";
import { startConnectServer } from "./connect_server.ts";
import { type Benchmark, type BenchRow, median, quantile, sampleInterleaved } from "./types.ts";

/** This process's CPU time so far (user + system), in milliseconds. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Concurrent runs. */
const RUNS = 8;
/** Writes each run makes per round, one after another. */
const WRITES_PER_RUN = 10;
const ROUNDS = 30;
const WARMUP = 2;
/** The store's pool (its default), which the replay gets too. */
const POOL = 4;
const TARGET = 0.8;

/** One store operation of a write, as the connection was given it. */
type Operation =
  | { readonly kind: "batch"; readonly statements: readonly SqlStatement[] }
  | { readonly kind: "query"; readonly statement: SqlStatement };

/** Runs `work`, returning every batch and read the PostgreSQL store connections were given. */
async function captureOperations(work: () => Promise<unknown>): Promise<Operation[]> {
  const operations: Operation[] = [];
  const prototype = PostgresConnection.prototype;
  const { batch, query } = prototype;
  prototype.batch = function (this: PostgresConnection, ...args: Parameters<typeof batch>) {
    operations.push({ kind: "batch", statements: args[0] });
    return batch.apply(this, args);
  };
  prototype.query = function (this: PostgresConnection, ...args: Parameters<typeof query>) {
    operations.push({ kind: "query", statement: args[0] });
    return query.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.batch = batch;
    prototype.query = query;
  }
  return operations;
}

/** The write tool as the server lists it, answering text only (so without an output schema). */
const FLEET_TOOL = (() => {
  const { outputSchema: _, ...tool } = TOOLS.find((entry) => entry.name === WRITE_TOOL)!;
  return tool;
})();

/** Sends one write's operations somewhere: a read, or a batch (one transaction). */
interface Executor {
  query(statement: SqlStatement): Promise<unknown>;
  batch(statements: readonly SqlStatement[]): Promise<unknown>;
  close(): Promise<void>;
}

/** The driver alone: prepared statements, a batch of several in its `begin`, pipelined. */
function driverExecutor(url: string): Executor {
  const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} });
  const numbered = new Map<string, string>();
  const text = (statement: SqlStatement) => {
    let n = 0;
    let found = numbered.get(statement.sql);
    if (found === undefined) {
      found = statement.sql.replace(/\?/g, () => `$${++n}`);
      numbered.set(statement.sql, found);
    }
    return found;
  };
  const run = (tx: postgres.Sql | postgres.TransactionSql, statement: SqlStatement) =>
    tx.unsafe(text(statement), statement.args as postgres.ParameterOrJSON<never>[], {
      prepare: true,
    });
  return {
    query: (statement) => run(sql, statement),
    batch: (statements) =>
      statements.length === 1
        ? run(sql, statements[0])
        : sql.begin((tx) => Promise.all(statements.map((statement) => run(tx, statement)))),
    close: () => sql.end({ timeout: 5 }),
  };
}

/** The store's own connection, with no store, gate or call around it. */
function connectionExecutor(url: string): Executor {
  const connection = PostgresConnection.open(url, { lockTimeoutMs: 10_000, max: POOL });
  return {
    query: (statement) => connection.query(statement),
    batch: (statements) => connection.batch(statements),
    close: () => connection.close(),
  };
}

/** A replay of captured operations: each write sends them again, each id swapped for a new one. */
function replay(executor: Executor, operations: readonly Operation[], ids: readonly string[]) {
  let sequence = 0;
  return {
    async write() {
      const n = sequence++;
      const swap = new Map<SqlValue, SqlValue>(ids.map((id, index) => [id, `r${n}-${index}`]));
      const fresh = (statement: SqlStatement): SqlStatement => ({
        sql: statement.sql,
        args: statement.args.map((arg) => swap.get(arg) ?? arg),
      });
      for (const operation of operations) {
        if (operation.kind === "query") await executor.query(fresh(operation.statement));
        else await executor.batch(operation.statements.map(fresh));
      }
    },
    close: () => executor.close(),
  };
}

/** {@link RUNS} concurrent runs of {@link WRITES_PER_RUN} sequential `write` calls each. */
const fleet = (write: (run: number) => Promise<unknown>) => () =>
  Promise.all(
    Array.from({ length: RUNS }, async (_, run) => {
      for (let i = 0; i < WRITES_PER_RUN; i++) await write(run);
    }),
  );

/** What the A/B needs of another checkout: its PostgreSQL store. */
type StoreOpener = (url: string) => Promise<ApprovalStore>;

/** The other checkout's `PostgresApprovalStore.open`, imported from its own `postgres.ts`. */
async function storeOf(dir: string): Promise<StoreOpener> {
  const root = await Deno.realPath(dir);
  const { PostgresApprovalStore: Other } = await import(
    pathToFileURL(`${root}/postgres.ts`).href
  ) as typeof import("../../postgres.ts");
  return (url) => Other.open(url, { maxConnections: POOL });
}

/** A `connect()` to the fleet tool on `store`, approving inline; `write(run)` makes one write. */
async function gatedWriter(origin: string, store: ApprovalStore, tag: string) {
  const connection = await connect(`${origin}/lists/writes`, {
    id: "fleet",
    allow: [WRITE_TOOL],
    approve: () => true,
    store,
    transport: { dangerouslyAllowLoopback: true },
  });
  let sequence = 0;
  return {
    connection,
    async write(run: number, ids?: { runId: string; callId: string }) {
      const envelope = await connection.toolkit.call(`fleet__${WRITE_TOOL}`, {
        key: `${tag}${sequence++}`,
        value: SYNTHETIC_VALUE,
      }, ids ?? { runId: `${tag}-run-${run}` });
      if (envelope.effect !== "committed") {
        throw new Error(`a write did not commit: ${JSON.stringify(envelope)}`);
      }
      return envelope.approvalId!;
    },
  };
}

async function measure(against: string | undefined): Promise<BenchRow[]> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const pg = await startPostgres();
    cleanups.push(() => pg.stop());
    const listsDir = await Deno.makeTempDir({ prefix: "sluice-bench-fleet-" });
    cleanups.push(() => Deno.remove(listsDir, { recursive: true }));
    const listsFile = `${listsDir}/lists.json`;
    await Deno.writeTextFile(listsFile, JSON.stringify({ writes: [FLEET_TOOL] }));
    const server = await startConnectServer(listsFile);
    cleanups.push(() => server.close());
    const bareUrl = await pg.createDatabase();
    // The replay's database gets the same schema (tables, triggers) from a store opened once.
    await (await PostgresApprovalStore.open(bareUrl)).close();
    const opened = async (open: StoreOpener) => {
      const store = await open(await pg.createDatabase());
      cleanups.push(() => store.close());
      return store;
    };
    const mine = await gatedWriter(
      server.origin,
      await opened((url) => PostgresApprovalStore.open(url, { maxConnections: POOL })),
      "a",
    );
    cleanups.push(() => mine.connection.close());
    let probeId = "";
    const ids = { runId: "probe-run", callId: "probe-call" };
    const operations = await captureOperations(async () => probeId = await mine.write(0, ids));
    const captured = [probeId, ids.runId, ids.callId];
    const bare = replay(driverExecutor(bareUrl), operations, captured);
    cleanups.push(() => bare.close());
    // The same replay through the store's connection, on a database of its own.
    const connectionUrl = await pg.createDatabase();
    await (await PostgresApprovalStore.open(connectionUrl)).close();
    const throughConnection = replay(connectionExecutor(connectionUrl), operations, captured);
    cleanups.push(() => throughConnection.close());
    const raw = new Client({ name: "fleet-floor", version: "0.0.0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    await raw.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/lists/writes`)));
    cleanups.push(() => raw.close());
    let floorSequence = 0;
    // The floor: the replay plus the one tools/call a write cannot leave out, raw SDK client.
    const floorWrite = async () => {
      await bare.write();
      const result = await raw.callTool({
        name: WRITE_TOOL,
        arguments: { key: `f${floorSequence++}`, value: SYNTHETIC_VALUE },
      });
      if (result.isError) throw new Error("a floor call failed");
    };
    const loops = [
      fleet(mine.write),
      fleet(() => bare.write()),
      fleet(floorWrite),
      fleet(() => throughConnection.write()),
    ];
    if (against !== undefined) {
      const theirs = await gatedWriter(server.origin, await opened(await storeOf(against)), "b");
      cleanups.push(() => theirs.connection.close());
      loops.push(fleet(theirs.write));
    }
    // Each loop's process CPU time too (this process only: not the server's, not PostgreSQL's).
    const cpu = loops.map((): number[] => []);
    const timed = loops.map((loop, index) => async () => {
      const start = cpuMs();
      await loop();
      cpu[index].push(cpuMs() - start);
    });
    const [sluiceMs, bareMs, floorMs, connectionMs, theirsMs] = await sampleInterleaved(timed, {
      rounds: ROUNDS,
      warmup: WARMUP,
      rotate: true,
    });
    const names = ["sluice", "bare replay", "floor", "replay through the store's connection"];
    const cpuRows = [...names, "--against"].slice(0, loops.length).map((
      name,
      index,
    ): BenchRow => ({
      kind: "figure",
      name: `${name}: this process's CPU per write (median round)`,
      value: (median(cpu[index].slice(WARMUP)) * 1000) / (RUNS * WRITES_PER_RUN),
      unit: "us",
    }));
    return [
      ...rows(operations, { sluiceMs, bareMs, floorMs, connectionMs, theirsMs }, against),
      ...cpuRows,
    ];
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** Throughput of `a` over `b`, per round: median and range. */
function throughput(a: readonly number[], b: readonly number[]) {
  const each = a.map((ms, round) => b[round] / ms);
  return { median: median(each), range: [Math.min(...each), Math.max(...each)] as const, each };
}

function rows(
  operations: readonly Operation[],
  samples: Record<"sluiceMs" | "bareMs" | "floorMs" | "connectionMs", number[]> & {
    theirsMs?: number[];
  },
  against: string | undefined,
): BenchRow[] {
  const { sluiceMs, bareMs, floorMs, connectionMs, theirsMs } = samples;
  const writes = RUNS * WRITES_PER_RUN;
  const perSecond = (ms: number) => (writes * 1000) / ms;
  const statements = operations.reduce(
    (sum, operation) => sum + (operation.kind === "query" ? 1 : operation.statements.length),
    0,
  );
  const shape = operations.map((operation) =>
    operation.kind === "query" ? "read" : `${operation.statements.length}-statement batch`
  ).join(", ");
  const vsBare = throughput(sluiceMs, bareMs);
  const vsFloor = throughput(sluiceMs, floorMs);
  const floorVsBare = throughput(floorMs, bareMs);
  const range = (r: readonly [number, number]) =>
    `x (range ${r[0].toFixed(2)} .. ${r[1].toFixed(2)})`;
  const result: BenchRow[] = [{
    kind: "comparison",
    subject: `PostgreSQL: ${RUNS} runs x ${WRITES_PER_RUN} connect() gated writes`,
    subjectMs: median(sluiceMs),
    baseline: `the same ${statements} statements per write replayed bare`,
    baselineMs: median(bareMs),
    ratio: 1 / vsBare.median,
    ratioRange: [1 / vsBare.range[1], 1 / vsBare.range[0]],
    // Time over time: at most 1.25x is a throughput of at least 0.8x the replay's.
    targetRatio: 1 / TARGET,
  }, {
    kind: "figure",
    name: `throughput: sluice / bare replay, median of rounds (target >= ${TARGET})`,
    value: vsBare.median,
    unit: range(vsBare.range),
  }, {
    kind: "figure",
    name: "throughput: sluice / bare replay, 25th-75th percentile",
    value: quantile(vsBare.each, 0.25),
    unit: `x .. ${quantile(vsBare.each, 0.75).toFixed(2)} x`,
  }, {
    kind: "figure",
    name: "throughput: floor (the replay + one raw SDK tools/call per write) / bare replay",
    value: floorVsBare.median,
    unit: range(floorVsBare.range),
  }, {
    kind: "figure",
    name: "throughput: the replay through the store's connection / bare replay",
    value: throughput(connectionMs, bareMs).median,
    unit: range(throughput(connectionMs, bareMs).range),
  }, {
    kind: "figure",
    name: "throughput: sluice / floor",
    value: vsFloor.median,
    unit: range(vsFloor.range),
  }, {
    kind: "figure",
    name: "writes per second: sluice, bare replay, floor (median rounds)",
    value: perSecond(median(sluiceMs)),
    unit: `/s, ${perSecond(median(bareMs)).toFixed(0)} /s, ${
      perSecond(median(floorMs)).toFixed(0)
    } /s`,
  }, {
    kind: "figure",
    name: `store operations per write: ${shape}`,
    value: operations.length,
    unit: "operations",
  }];
  if (theirsMs !== undefined) {
    const ab = throughput(sluiceMs, theirsMs);
    result.push({
      kind: "figure",
      name: `throughput: this checkout's store / --against ${against}'s`,
      value: ab.median,
      unit: range(ab.range),
    }, {
      kind: "figure",
      name: `throughput: --against ${against}'s store / bare replay`,
      value: throughput(theirsMs, bareMs).median,
      unit: "x",
    });
  }
  return result;
}

/** The registered benchmark. */
export const writeFleetBenchmark: Benchmark = {
  name: "write_fleet",
  describe: () =>
    `${RUNS} concurrent runs x ${WRITES_PER_RUN} durable gated writes through connect() on ` +
    `PostgreSQL vs the same store statements replayed bare, ${ROUNDS} rotated rounds; ` +
    `throughput ratio target >= ${TARGET}x`,
  run: async ({ against }) => {
    if (postgresBinDir() === undefined) {
      console.log("write_fleet: no PostgreSQL binaries; nothing measured");
      return [];
    }
    return await measure(against);
  },
};
