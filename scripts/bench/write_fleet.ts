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
 * transaction (`begin`), its statements pipelined. The two loops alternate round by round (the
 * order rotated); the ratio is sluice's writes per second over the replay's, the median of the
 * per-round ratios, with their range. Target: at least 0.8×.
 *
 * @module
 */
import postgres from "postgres";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connect, type Connection } from "../../mod.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import type { SqlStatement } from "../../src/approvals/sql/connection.ts";
import type { SqlValue } from "../../src/approvals/sql/rows.ts";
import { postgresBinDir, startPostgres } from "../../fixtures/postgres_server.ts";
import { SYNTHETIC_VALUE, TOOLS, WRITE_TOOL } from "../../fixtures/write_server.ts";
import { startConnectServer } from "./connect_server.ts";
import { type Benchmark, type BenchRow, median, quantile, sampleInterleaved } from "./types.ts";

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

/** The replay of captured operations on another database, with the driver alone. */
function bareReplay(url: string, operations: readonly Operation[], ids: readonly string[]) {
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
  let sequence = 0;
  type Tx = postgres.Sql | postgres.TransactionSql;
  const run = (tx: Tx, statement: SqlStatement, swap: Map<SqlValue, SqlValue>) =>
    tx.unsafe(
      text(statement),
      statement.args.map((arg) => swap.get(arg) ?? arg) as postgres.ParameterOrJSON<never>[],
      { prepare: true },
    );
  return {
    /** One write: the captured operations, each id swapped for a fresh one. */
    async write() {
      const n = sequence++;
      const swap = new Map<SqlValue, SqlValue>(ids.map((id, index) => [id, `bare-${n}-${index}`]));
      for (const operation of operations) {
        if (operation.kind === "query") await run(sql, operation.statement, swap);
        else if (operation.statements.length === 1) {
          await run(sql, operation.statements[0], swap);
        } else {
          await sql.begin((tx) =>
            Promise.all(operation.statements.map((statement) => run(tx, statement, swap)))
          );
        }
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

/** {@link RUNS} concurrent runs of {@link WRITES_PER_RUN} sequential `write` calls each. */
const fleet = (write: (run: number) => Promise<void>) => () =>
  Promise.all(
    Array.from({ length: RUNS }, async (_, run) => {
      for (let i = 0; i < WRITES_PER_RUN; i++) await write(run);
    }),
  );

async function measure(): Promise<BenchRow[]> {
  const pg = await startPostgres();
  const listsDir = await Deno.makeTempDir({ prefix: "sluice-bench-fleet-" });
  const listsFile = `${listsDir}/lists.json`;
  await Deno.writeTextFile(listsFile, JSON.stringify({ writes: [FLEET_TOOL] }));
  const server = await startConnectServer(listsFile);
  const storeUrl = await pg.createDatabase();
  const bareUrl = await pg.createDatabase();
  // The replay's database gets the same schema (tables, triggers) from a store opened once.
  await (await PostgresApprovalStore.open(bareUrl)).close();
  const store = await PostgresApprovalStore.open(storeUrl, { maxConnections: POOL });
  let connection: Connection | undefined;
  let bare: ReturnType<typeof bareReplay> | undefined;
  let raw: Client | undefined;
  try {
    connection = await connect(`${server.origin}/lists/writes`, {
      id: "fleet",
      allow: [WRITE_TOOL],
      approve: () => true,
      store,
      transport: { dangerouslyAllowLoopback: true },
    });
    const name = `fleet__${WRITE_TOOL}`;
    let sequence = 0;
    const write = async (run: number) => {
      const n = sequence++;
      const envelope = await connection!.toolkit.call(name, {
        key: `k${n}`,
        value: SYNTHETIC_VALUE,
      }, { runId: `run-${run}` });
      if (envelope.effect !== "committed") {
        throw new Error(`a write did not commit: ${JSON.stringify(envelope)}`);
      }
    };
    let probeId: string | undefined;
    const operations = await captureOperations(async () => {
      const envelope = await connection!.toolkit.call(name, {
        key: "probe",
        value: SYNTHETIC_VALUE,
      }, { runId: "probe-run", callId: "probe-call" });
      if (envelope.effect !== "committed") throw new Error("the probe write did not commit");
      probeId = envelope.approvalId;
    });
    bare = bareReplay(bareUrl, operations, [probeId!, "probe-run", "probe-call"]);
    const replay = bare;
    raw = new Client({ name: "fleet-floor", version: "0.0.0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    await raw.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/lists/writes`)));
    const client = raw;
    let floorSequence = 0;
    // The floor: the replay plus the one tools/call a write cannot leave out, raw SDK client.
    const floorWrite = async () => {
      await replay.write();
      const result = await client.callTool({
        name: WRITE_TOOL,
        arguments: { key: `f${floorSequence++}`, value: SYNTHETIC_VALUE },
      });
      if (result.isError) throw new Error("a floor call failed");
    };
    const [sluiceMs, bareMs, floorMs] = await sampleInterleaved(
      [fleet(write), fleet(() => replay.write()), fleet(floorWrite)],
      { rounds: ROUNDS, warmup: WARMUP, rotate: true },
    );
    const writes = RUNS * WRITES_PER_RUN;
    // Throughput ratio: sluice's writes/s over the replay's, per round.
    const ratios = sluiceMs.map((ms, round) => bareMs[round] / ms);
    const perSecond = (ms: number) => (writes * 1000) / ms;
    const statements = operations.reduce(
      (sum, operation) => sum + (operation.kind === "query" ? 1 : operation.statements.length),
      0,
    );
    const shape = operations.map((operation) =>
      operation.kind === "query" ? "read" : `${operation.statements.length}-statement batch`
    ).join(", ");
    return [{
      kind: "comparison",
      subject: `PostgreSQL: ${RUNS} runs x ${WRITES_PER_RUN} connect() gated writes`,
      subjectMs: median(sluiceMs),
      baseline: `the same ${statements} statements per write replayed bare`,
      baselineMs: median(bareMs),
      ratio: 1 / median(ratios),
      ratioRange: [1 / Math.max(...ratios), 1 / Math.min(...ratios)],
      // Time over time: at most 1.25x is a throughput of at least 0.8x the replay's.
      targetRatio: 1 / TARGET,
    }, {
      kind: "figure",
      name: `throughput: sluice / bare replay, median of rounds (target >= ${TARGET})`,
      value: median(ratios),
      unit: `x (range ${Math.min(...ratios).toFixed(2)} .. ${Math.max(...ratios).toFixed(2)})`,
    }, {
      kind: "figure",
      name: "throughput ratio, 25th-75th percentile",
      value: quantile(ratios, 0.25),
      unit: `x .. ${quantile(ratios, 0.75).toFixed(2)} x`,
    }, {
      kind: "figure",
      name: "floor (the replay + one raw SDK tools/call per write) / bare replay, throughput",
      value: median(floorMs.map((ms, round) => bareMs[round] / ms)),
      unit: "x",
    }, {
      kind: "figure",
      name: "sluice / floor, throughput",
      value: median(sluiceMs.map((ms, round) => floorMs[round] / ms)),
      unit: "x",
    }, {
      kind: "figure",
      name: "sluice writes per second (median round)",
      value: perSecond(median(sluiceMs)),
      unit: "writes/s",
    }, {
      kind: "figure",
      name: "bare replay writes per second (median round)",
      value: perSecond(median(bareMs)),
      unit: "writes/s",
    }, {
      kind: "figure",
      name: `store operations per write: ${shape}`,
      value: operations.length,
      unit: "operations",
    }, {
      kind: "figure",
      name: `sluice: time per write at ${RUNS} concurrent runs (median round)`,
      value: (median(sluiceMs) * 1000) / writes,
      unit: "us",
    }, {
      kind: "figure",
      name: `bare replay: time per write at ${RUNS} concurrent runs (median round)`,
      value: (median(bareMs) * 1000) / writes,
      unit: "us",
    }];
  } finally {
    await connection?.close();
    await bare?.close();
    await raw?.close();
    await store.close();
    await server.close();
    await pg.stop();
    await Deno.remove(listsDir, { recursive: true });
  }
}

/** The registered benchmark. */
export const writeFleetBenchmark: Benchmark = {
  name: "write_fleet",
  describe: () =>
    `${RUNS} concurrent runs x ${WRITES_PER_RUN} durable gated writes through connect() on ` +
    `PostgreSQL vs the same store statements replayed bare, ${ROUNDS} rotated rounds; ` +
    `throughput ratio target >= ${TARGET}x`,
  run: async () => {
    if (postgresBinDir() === undefined) {
      console.log("write_fleet: no PostgreSQL binaries; nothing measured");
      return [];
    }
    return await measure();
  },
};
