/**
 * What telemetry costs per call: `toolkit.call` of a `connect()` with no telemetry against the
 * same call with the real OpenTelemetry SDK recording every span and metric into in-memory
 * exporters (`fixtures/otel_sdk.ts`), on one loopback Streamable HTTP server in its own process
 * (`connect_server.ts`, 2026-07-28, the 1 KiB tool). Two connections, one of each; each round
 * runs a batch of calls on each, the order rotating from round to round; reported: the median
 * batch and the median and range of the per-round ratios. Target: at most 1.10×. A third
 * connection with telemetry set to a tracer and meter that record nothing (the API's no-op
 * objects) shows what the instrumentation costs without a recording provider.
 *
 * `deno task bench telemetry` runs it.
 *
 * @module
 */
import { metrics, trace } from "@opentelemetry/api";
import { connect, type Connection, type GateTelemetry } from "../../mod.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";
import { CALL_RESULTS, startConnectServer } from "./connect_server.ts";
import { type Benchmark, type BenchRow, median, sampleInterleaved } from "./types.ts";

const ROUNDS = 30;
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

function row(subject: string, samples: number[], baseline: number[], target?: number): BenchRow {
  const ratios = samples.map((sample, index) => sample / baseline[index]);
  return {
    kind: "comparison",
    subject,
    subjectMs: median(samples) / CALLS_PER_ROUND,
    baseline: "toolkit.call, no telemetry",
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
    const url = `${server.origin}/calls`;
    const plain = await connection(url);
    const recorded = await connection(url, sdk.telemetry);
    const noop = await connection(url, {
      tracer: trace.getTracer("noop"),
      meter: metrics.getMeter("noop"),
    });
    try {
      const [base, withSdk, withNoop] = await sampleInterleaved(
        [batch(plain), batch(recorded), batch(noop)],
        { rounds: ROUNDS, warmup: WARMUP, rotate: true },
      );
      const spans = sdk.spans().length;
      const expected = (ROUNDS + WARMUP) * CALLS_PER_ROUND;
      if (spans !== expected) throw new Error(`recorded ${spans} spans, expected ${expected}`);
      return [
        row("toolkit.call, SDK recording spans + metrics", withSdk, base, 1.1),
        row("toolkit.call, API no-op tracer + meter", withNoop, base),
      ];
    } finally {
      await Promise.all([plain.close(), recorded.close(), noop.close()]);
      await sdk.shutdown();
      await server.close();
    }
  },
};
