/**
 * `sluice serve` vs the same client straight to the upstream, side by side in one run: a raw v2
 * SDK `Client` (cfworker validator, 2026-07-28) calls a read tool of the benchmark server
 * (`connect_server.ts`, its own process) directly, and through `serve()` (`serve_process.ts`,
 * its own process as deployed, over loopback, the tool pre-approved, one bearer-token client).
 *
 * - Latency: calls alternate between the two paths, which one goes first switching every call,
 *   each timed on its own (wall clock). Per result size (1 KiB, 32 KiB, 64 KiB of text): p50 and
 *   p99 of each path over every call, the median and range of the per-round ratios (10 rounds of
 *   200 calls), the pooled differences in ms, and the per-round differences' median, min and
 *   max; and the gateway process's CPU time per call (all its threads, from `process.cpuUsage()`
 *   at `serve_process.ts`'s bench-only route), which contention on the machine blurs far less
 *   than wall-clock tails. The load average at the start is printed with the description.
 * - Throughput: 8 and 64 concurrent clients (each its own `Client`, calling one after another),
 *   32 KiB results; rounds alternate the paths. Per concurrency: calls per second of each path
 *   (median of rounds, per-round ratio range) and p50 / p99 per call under that load.
 *
 * `deno task bench serve` runs it.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { startConnectServer } from "./connect_server.ts";
import { CPU_PATH, SERVE_BENCH_TOKEN as TOKEN, startServeProcess } from "./serve_process.ts";
import { type Benchmark, type BenchRow, median, quantile } from "./types.ts";

// Enough calls that one round's p99 is not its single slowest call (200 per round: the 2nd).
const ROUNDS = 10;
const CALLS_PER_ROUND = 200;
const CALLS = ROUNDS * CALLS_PER_ROUND;
const WARMUP = 60;
const SIZES = [
  { tool: "small", label: "1 KiB" },
  { tool: "medium", label: "32 KiB" },
  { tool: "large", label: "64 KiB" },
] as const;
/** Concurrent clients of the throughput runs, and the calls each makes per round. */
const LOADS = [{ clients: 8, calls: 60 }, { clients: 64, calls: 12 }] as const;
const LOAD_ROUNDS = 6;
const LOAD_TOOL = "medium";

async function client(url: URL, token?: string): Promise<Client> {
  const connected = new Client({ name: "serve-bench", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await connected.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return connected;
}

/** The machine's 1-minute load average, where the runtime can read it. */
function loadAverage(): string {
  try {
    return Deno.loadavg()[0].toFixed(2);
  } catch {
    return "unknown";
  }
}

/** The gateway process's CPU time so far, in microseconds. */
async function gatewayCpu(origin: string): Promise<number> {
  const usage = await (await fetch(`${origin}${CPU_PATH}`)).json() as {
    user: number;
    system: number;
  };
  return usage.user + usage.system;
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** The `sluice serve` benchmark. */
export const serveBenchmark: Benchmark = {
  name: "serve",
  describe: () =>
    `sluice serve vs direct, one raw v2 client, ${CALLS} alternating calls per path and size ` +
    `(${SIZES.map((size) => size.label).join(", ")}), after ${WARMUP} warm-up calls; ` +
    `throughput at ${LOADS.map((load) => load.clients).join(" and ")} concurrent clients, ` +
    `${LOAD_ROUNDS} alternating rounds, 32 KiB; ` +
    `load average at start ${loadAverage()}`,
  async run() {
    const upstream = await startConnectServer();
    const gateway = await startServeProcess(upstream.origin);
    const endpoint = new URL(`${gateway.origin}/mcp`);
    const direct = await client(new URL(`${upstream.origin}/calls`));
    const through = await client(endpoint, TOKEN);
    const rows: BenchRow[] = [];
    try {
      for (const size of SIZES) {
        const args = { query: "q" };
        const paths = [
          () => direct.callTool({ name: size.tool, arguments: args }),
          () => through.callTool({ name: `bench__${size.tool}`, arguments: args }),
        ];
        for (let i = 0; i < WARMUP; i++) for (const path of paths) await path();
        const samples: [number[], number[]] = [[], []];
        const cpuBefore = await gatewayCpu(gateway.origin);
        for (let i = 0; i < CALLS; i++) {
          const order = i % 2 === 0 ? [0, 1] : [1, 0];
          for (const index of order) samples[index].push(await timed(paths[index]));
        }
        // The gateway's own CPU time per call (user + system): what contention does not blur.
        rows.push({
          kind: "figure",
          name: `sluice serve gateway CPU per call ${size.label}`,
          value: Math.round(((await gatewayCpu(gateway.origin)) - cpuBefore) / CALLS),
          unit: "us",
        });
        for (const q of [0.5, 0.99]) {
          const name = q === 0.5 ? "p50" : "p99";
          const [base, subject] = samples.map((values) => quantile(values, q));
          // Per round of CALLS_PER_ROUND calls: the ratio of the two paths' quantiles.
          const ratios = Array.from({ length: ROUNDS }, (_, round) => {
            const slice = (values: number[]) =>
              values.slice(round * CALLS_PER_ROUND, (round + 1) * CALLS_PER_ROUND);
            return quantile(slice(samples[1]), q) / quantile(slice(samples[0]), q);
          });
          rows.push({
            kind: "comparison",
            subject: `sluice serve callTool ${size.label}, ${name}`,
            subjectMs: subject,
            baseline: `direct callTool ${size.label}, ${name}`,
            baselineMs: base,
            ratio: median(ratios),
            ratioRange: [Math.min(...ratios), Math.max(...ratios)],
          });
          rows.push({
            kind: "figure",
            name: `sluice serve added latency ${size.label}, ${name}`,
            value: Number((subject - base).toFixed(3)),
            unit: "ms",
          });
          // The same difference per round (interleaved calls of both paths): its spread says how
          // much of the pooled figure is the machine rather than the gateway.
          const added = Array.from({ length: ROUNDS }, (_, round) => {
            const slice = (values: number[]) =>
              values.slice(round * CALLS_PER_ROUND, (round + 1) * CALLS_PER_ROUND);
            return quantile(slice(samples[1]), q) - quantile(slice(samples[0]), q);
          });
          for (
            const [label, value] of [
              ["round median", median(added)],
              ["round min", Math.min(...added)],
              ["round max", Math.max(...added)],
            ] as const
          ) {
            rows.push({
              kind: "figure",
              name: `sluice serve added latency ${size.label}, ${name}, ${label}`,
              value: Number(value.toFixed(3)),
              unit: "ms",
            });
          }
        }
      }
      for (const load of LOADS) rows.push(...await loadRows(upstream.origin, endpoint, load));
    } finally {
      await direct.close();
      await through.close();
      await gateway.close();
      await upstream.close();
    }
    return rows;
  },
};

/** One round of `clients` concurrent clients, each making `calls` calls one after another. */
async function loadRound(
  clients: readonly Client[],
  name: string,
  calls: number,
): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(clients.map(async (connected) => {
    for (let i = 0; i < calls; i++) {
      latencies.push(
        await timed(() => connected.callTool({ name, arguments: { query: "q" } })),
      );
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: (clients.length * calls) / seconds, latencies };
}

/** Throughput and latency under load, direct vs through serve, rounds alternating. */
async function loadRows(
  origin: string,
  endpoint: URL,
  load: { readonly clients: number; readonly calls: number },
): Promise<BenchRow[]> {
  const open = (url: URL, token?: string) =>
    Promise.all(Array.from({ length: load.clients }, () => client(url, token)));
  const paths = [
    { clients: await open(new URL(`${origin}/calls`)), name: LOAD_TOOL },
    {
      clients: await open(endpoint, TOKEN),
      name: `bench__${LOAD_TOOL}`,
    },
  ];
  try {
    for (const path of paths) await loadRound(path.clients, path.name, 3);
    const rates: [number[], number[]] = [[], []];
    const latencies: [number[], number[]] = [[], []];
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const result = await loadRound(paths[index].clients, paths[index].name, load.calls);
        rates[index].push(result.perSecond);
        latencies[index].push(...result.latencies);
      }
    }
    const ratios = rates[1].map((rate, round) => rate / rates[0][round]);
    const label = `32 KiB, ${load.clients} clients`;
    const rows: BenchRow[] = [{
      kind: "comparison",
      subject: `sluice serve throughput ${label}`,
      subjectMs: median(rates[1]),
      baseline: `direct throughput ${label}`,
      baselineMs: median(rates[0]),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
      unit: "calls/s",
    }];
    for (const q of [0.5, 0.99]) {
      const name = q === 0.5 ? "p50" : "p99";
      const [base, subject] = latencies.map((values) => quantile(values, q));
      rows.push({
        kind: "comparison",
        subject: `sluice serve callTool under load ${label}, ${name}`,
        subjectMs: subject,
        baseline: `direct callTool under load ${label}, ${name}`,
        baselineMs: base,
      });
    }
    return rows;
  } finally {
    for (const path of paths) await Promise.all(path.clients.map((connected) => connected.close()));
  }
}
