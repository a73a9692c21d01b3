/**
 * What telemetry costs per call: `toolkit.call` of a `connect()` with no telemetry against the
 * same call with the real OpenTelemetry SDK recording every span and metric into in-memory
 * exporters (`fixtures/otel_sdk.ts`), on one loopback Streamable HTTP server in its own process
 * (`connect_server.ts`, 2026-07-28, the 1 KiB tool). One connection per path; each round runs
 * a batch of calls on each, the order rotating from round to round; reported: the median call
 * and the median and range of the per-round ratios. Target: at most 1.10×. The SDK records
 * through its `SimpleSpanProcessor` (every span exported as it ends) and, on another
 * connection, its `BatchSpanProcessor` (what production setups use); a connection given the
 * API's no-op tracer and meter shows sluice's own instrumentation without a recording provider,
 * and a second connection without telemetry shows the noise between two equal connections.
 *
 * `deno task bench telemetry` runs it.
 *
 * @module
 */
import { metrics, trace } from "@opentelemetry/api";
import { connect, type Connection, type GateTelemetry } from "../../mod.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";
import { CALL_RESULTS, startConnectServer } from "./connect_server.ts";
import process from "node:process";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const ROUNDS = 40;
const CALLS_PER_ROUND = 20;
const WARMUP = 3;
const TOOL = "small";

async function connection(url: string, telemetry?: GateTelemetry): Promise<Connection> {
  return await connect(url, {
    id: "bench",
    allow: [TOOL],
    preApproved: [TOOL],
    transport: { dangerouslyAllowLoopback: true },
    ...(telemetry ? { telemetry } : {}),
  });
}

/** A batch of calls on `connection`, each checked. */
function batch(connection: Connection): () => Promise<void> {
  const expected = CALL_RESULTS[TOOL].length;
  return async () => {
    for (let index = 0; index < CALLS_PER_ROUND; index++) {
      const envelope = await connection.toolkit.call(`bench__${TOOL}`, { query: "sluice" });
      if (envelope.errorCode !== undefined || envelope.text[0]?.length !== expected) {
        throw new Error(`toolkit.call failed: ${envelope.errorCode}`);
      }
    }
  };
}

/** One batch's wall and process CPU milliseconds. */
interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * Runs `rounds` rounds, each running every batch once in an order that rotates from round to
 * round, after `warmup` rounds; returns each batch's samples (`samples[batch][round]`). The
 * client's CPU time is less disturbed than wall time by the other processes of a shared machine.
 */
async function interleaved(fns: readonly (() => Promise<void>)[]): Promise<Sample[][]> {
  for (let index = 0; index < WARMUP; index++) for (const fn of fns) await fn();
  const samples = fns.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let step = 0; step < fns.length; step++) {
      const index = (step + round) % fns.length;
      const cpu = process.cpuUsage();
      const start = performance.now();
      await fns[index]();
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      samples[index].push({ ms, cpuMs: (used.user + used.system) / 1000 });
    }
  }
  return samples;
}

function rows(subject: string, samples: Sample[], baseline: Sample[], target?: number): BenchRow[] {
  return [
    row(subject, samples.map((s) => s.ms), baseline.map((s) => s.ms), "", target),
    row(subject, samples.map((s) => s.cpuMs), baseline.map((s) => s.cpuMs), " CPU", target),
  ];
}

function row(
  subject: string,
  samples: number[],
  baseline: number[],
  measure: string,
  target?: number,
): BenchRow {
  const ratios = samples.map((sample, index) => sample / baseline[index]);
  return {
    kind: "comparison",
    subject: `${subject}${measure}`,
    subjectMs: median(samples) / CALLS_PER_ROUND,
    baseline: `toolkit.call, no telemetry${measure}`,
    baselineMs: median(baseline) / CALLS_PER_ROUND,
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    ...(target !== undefined ? { targetRatio: target } : {}),
  };
}

/** The `telemetry` benchmark, registered in `scripts/bench.ts`. */
export const telemetryBenchmark: Benchmark = {
  name: "telemetry",
  describe: () =>
    `toolkit.call with and without OpenTelemetry (SDK in-memory exporters), one loopback ` +
    `server (own process): ${ROUNDS} rounds x ${CALLS_PER_ROUND} calls per path, rotating`,
  async run() {
    const server = await startConnectServer();
    const sdk = startOtelSdk();
    const batched = startOtelSdk({}, "batch");
    const url = `${server.origin}/calls`;
    const plain = await connection(url);
    const recorded = await connection(url, sdk.telemetry);
    const recordedInBatches = await connection(url, batched.telemetry);
    const control = await connection(url);
    const noop = await connection(url, {
      tracer: trace.getTracer("noop"),
      meter: metrics.getMeter("noop"),
    });
    try {
      const [base, withSdk, withBatches, withNoop, again] = await interleaved(
        [batch(plain), batch(recorded), batch(recordedInBatches), batch(noop), batch(control)],
      );
      await batched.flush();
      const expected = (ROUNDS + WARMUP) * CALLS_PER_ROUND;
      for (const recording of [sdk, batched]) {
        // Each connection's set-up requests (server/discover, tools/list) have spans too.
        const spans = recording.spans().filter((span) => span.name.startsWith("tools/call")).length;
        if (spans !== expected) throw new Error(`recorded ${spans} spans, expected ${expected}`);
      }
      return [
        ...rows("toolkit.call, SDK: simple processor + metrics", withSdk, base, 1.1),
        ...rows("toolkit.call, SDK: batch processor + metrics", withBatches, base, 1.1),
        ...rows("toolkit.call, API no-op tracer + meter", withNoop, base),
        ...rows("toolkit.call, no telemetry (another connection)", again, base),
      ];
    } finally {
      const all = [plain, recorded, recordedInBatches, noop, control];
      await Promise.all(all.map((item) => item.close()));
      await Promise.all([sdk.shutdown(), batched.shutdown()]);
      await server.close();
    }
  },
};
