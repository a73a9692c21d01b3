/**
 * What telemetry costs per call: `toolkit.call` of a `connect()` with no telemetry against the
 * same call with the real OpenTelemetry SDK recording every span and metric into in-memory
 * exporters (`fixtures/otel_sdk.ts`), on one loopback Streamable HTTP server in its own process
 * (`connect_server.ts`, 2026-07-28, the 1 KiB tool). One connection per path, all in this
 * process. Each round is a run of turns; in each turn every path makes one call, in an order
 * that rotates from turn to turn, each call timed on its own (wall and this process's CPU
 * time). A round gives each path's mean call (stalls and garbage collection included: they are
 * part of what recording costs); between rounds, outside the timing, the spans are counted and
 * dropped (as an exporter that sends them does) and, with `--expose-gc`, the heap is collected.
 * Reported: the median and range of the per-round ratios to the no-telemetry path. Target: at
 * most 1.10× with the SDK recording.
 *
 * Paths: the SDK with its `SimpleSpanProcessor` (every span exported as it ends) and with its
 * `BatchSpanProcessor` (what production setups use), each with the `MeterProvider` recording
 * the histograms; the API's no-op tracer and meter (sluice's own instrumentation without a
 * recording SDK); a second connection without telemetry (the noise between two equal
 * connections); and the batch setup once more with every SDK method timed
 * (`sdk_timing.ts`): the SDK's own time per call on the real call path, as a share of that
 * path's call, and by method. Last, the same SDK calls as one recorded call asked for, replayed
 * alone in a loop after the warm-up (warm caches).
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
import { sdkAlone, SdkClock, timedTelemetry } from "./sdk_timing.ts";

const ROUNDS = 80;
const TURNS = 25;
const WARMUP_TURNS = 100;
const TOOL = "small";
const ALONE_ITERATIONS = 10_000;

async function connection(url: string, telemetry?: GateTelemetry): Promise<Connection> {
  return await connect(url, {
    id: "bench",
    allow: [TOOL],
    preApproved: [TOOL],
    transport: { dangerouslyAllowLoopback: true },
    ...(telemetry ? { telemetry } : {}),
  });
}

/** One checked call on `connection`. */
function caller(connection: Connection): () => Promise<void> {
  const expected = CALL_RESULTS[TOOL].length;
  return async () => {
    const envelope = await connection.toolkit.call(`bench__${TOOL}`, { query: "sluice" });
    if (envelope.errorCode !== undefined || envelope.text[0]?.length !== expected) {
      throw new Error(`toolkit.call failed: ${envelope.errorCode}`);
    }
  };
}

/** One path's mean call in one round: wall and process CPU milliseconds. */
interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

/** Forces a collection between rounds, when `gc` is exposed: each round starts alike. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

/**
 * `ROUNDS` rounds of `TURNS` turns; in each turn every path makes one call, timed on its own,
 * in an order that rotates. Returns each path's mean call per round (`samples[path][round]`).
 */
async function interleaved(
  fns: readonly (() => Promise<void>)[],
  warmedUp: () => void,
  betweenRounds: () => Promise<void>,
): Promise<Sample[][]> {
  for (let turn = 0; turn < WARMUP_TURNS; turn++) for (const fn of fns) await fn();
  warmedUp();
  const samples = fns.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) {
    await betweenRounds();
    collect();
    const ms = fns.map(() => 0);
    const cpuMs = fns.map(() => 0);
    for (let turn = 0; turn < TURNS; turn++) {
      for (let step = 0; step < fns.length; step++) {
        const index = (step + turn + round) % fns.length;
        const cpu = process.cpuUsage();
        const start = performance.now();
        await fns[index]();
        ms[index] += performance.now() - start;
        const used = process.cpuUsage(cpu);
        cpuMs[index] += (used.user + used.system) / 1000;
      }
    }
    fns.forEach((_, index) =>
      samples[index].push({ ms: ms[index] / TURNS, cpuMs: cpuMs[index] / TURNS })
    );
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
    subjectMs: median(samples),
    baseline: `toolkit.call, no telemetry${measure}`,
    baselineMs: median(baseline),
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    ...(target !== undefined ? { targetRatio: target } : {}),
  };
}

/** The paths' connections and the SDKs under them. */
async function setUp(url: string) {
  const simple = startOtelSdk();
  const batched = startOtelSdk({}, "batch");
  const timedSdk = startOtelSdk({}, "batch");
  const clock = new SdkClock();
  const connections = {
    plain: await connection(url),
    simple: await connection(url, simple.telemetry),
    batched: await connection(url, batched.telemetry),
    noop: await connection(url, {
      tracer: trace.getTracer("noop"),
      meter: metrics.getMeter("noop"),
    }),
    control: await connection(url),
    timed: await connection(url, timedTelemetry(timedSdk.telemetry, clock)),
  };
  return { sdks: [simple, batched, timedSdk], clock, connections };
}

/** The figures of the timed path: the SDK's time per call in situ, and alone. */
function sdkFigures(
  clock: SdkClock,
  timedCall: Sample[],
  base: Sample[],
  aloneUs: number,
): BenchRow[] {
  const calls = ROUNDS * TURNS;
  const inSitu = clock.netMs() * 1000 / calls;
  const callUs = median(timedCall.map((sample) => sample.ms)) * 1000;
  const baseCpuUs = median(base.map((sample) => sample.cpuMs)) * 1000;
  return [
    {
      kind: "figure",
      name: "SDK's own time per call, in situ (batch + metrics)",
      value: inSitu,
      unit: "us",
    },
    {
      kind: "figure",
      name: "  as a share of that path's call",
      value: inSitu / callUs * 100,
      unit: "%",
    },
    {
      kind: "figure",
      name: "  as a share of a no-telemetry call's client CPU",
      value: inSitu / baseCpuUs * 100,
      unit: "%",
    },
    { kind: "figure", name: "  SDK method calls per call", value: clock.calls / calls, unit: "" },
    {
      kind: "figure",
      name: "  timing overhead per method, subtracted",
      value: clock.idleMs * 1000 / clock.idleCalls,
      unit: "us",
    },
    ...[...clock.methods].map(([method, { ms, calls: count }]): BenchRow => ({
      kind: "figure",
      name: `    ${method} (${(count / calls).toFixed(0)} per call)`,
      value: (ms - count * clock.idleOverheadMs()) * 1000 / calls,
      unit: "us",
    })),
    {
      kind: "figure",
      name: "the same SDK calls alone, per call (warm loop)",
      value: aloneUs,
      unit: "us",
    },
  ];
}

/** The set-up's paths, interleaved; the comparison rows and the timed path's samples. */
async function measure(setup: Awaited<ReturnType<typeof setUp>>) {
  const { sdks: [simple, batched, timedSdk], clock, connections: c } = setup;
  const paths = [c.plain, c.simple, c.batched, c.noop, c.control, c.timed].map(caller);
  const counted = [0, 0];
  let aloneUs = 0;
  // Between rounds every span is counted, then dropped, as an exporter that sends spans does
  // (a heap growing by every span of the run is the in-memory exporter's cost, not recording's).
  const count = async () => {
    for (const [index, recording] of [simple, batched, timedSdk].entries()) {
      await recording.flush();
      // Each connection's set-up requests (server/discover, tools/list) have spans too.
      const calls = recording.spans().filter((span) => span.name.startsWith("tools/call "));
      if (index < counted.length) counted[index] += calls.length;
      recording.reset();
    }
  };
  const [base, withSimple, withBatches, withNoop, again, timed] = await interleaved(
    paths,
    // The timed path's clock counts the measured rounds only.
    () => {
      // After the warm-up, before the rounds (the heap is small then): the warm-up's first call
      // asked the SDK for what every call does; the same calls alone in a loop of their own.
      const alone = startOtelSdk({}, "batch");
      aloneUs = sdkAlone(alone.telemetry, clock.recorded(), ALONE_ITERATIONS);
      alone.shutdown();
      clock.reset();
    },
    count,
  );
  await count();
  const expected = WARMUP_TURNS + ROUNDS * TURNS;
  for (const spans of counted) {
    if (spans !== expected) throw new Error(`recorded ${spans} spans, expected ${expected}`);
  }
  return {
    rows: [
      ...rows("toolkit.call, SDK: simple processor + metrics", withSimple, base, 1.1),
      ...rows("toolkit.call, SDK: batch processor + metrics", withBatches, base, 1.1),
      ...rows("toolkit.call, API no-op tracer + meter", withNoop, base),
      ...rows("toolkit.call, no telemetry (another connection)", again, base),
    ],
    timed,
    base,
    aloneUs,
  };
}

/** The `telemetry` benchmark, registered in `scripts/bench.ts`. */
export const telemetryBenchmark: Benchmark = {
  name: "telemetry",
  describe: () =>
    `toolkit.call with and without OpenTelemetry (SDK in-memory exporters), one loopback ` +
    `server (own process): ${ROUNDS} rounds x ${TURNS} turns, one call per path per turn, rotating`,
  async run() {
    const server = await startConnectServer();
    const setup = await setUp(`${server.origin}/calls`);
    let measured: Awaited<ReturnType<typeof measure>>;
    try {
      measured = await measure(setup);
    } finally {
      await Promise.all(Object.values(setup.connections).map((item) => item.close()));
      await Promise.all(setup.sdks.map((sdk) => sdk.shutdown()));
      await server.close();
    }
    const { rows, timed, base, aloneUs } = measured;
    return [...rows, ...sdkFigures(setup.clock, timed, base, aloneUs)];
  },
};
