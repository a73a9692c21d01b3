/**
 * `sluice serve` vs the same client straight to the upstream, side by side in one run: a raw v2
 * SDK `Client` (cfworker validator, 2026-07-28) calls a read tool of the benchmark server
 * (`connect_server.ts`, its own process) directly, and through `serve()` (in this process, over
 * loopback, the tool pre-approved, one bearer-token client). Calls alternate between the two
 * paths, which one goes first switching every call, each timed on its own (wall clock). Reported
 * per result size (1 KiB and 64 KiB of text): p50 and p99 of each path over every call, the
 * median and range of the per-round ratios (8 rounds of 50 calls), and the differences in ms.
 * Only latency of sequential calls; no throughput under concurrency yet.
 *
 * `deno task bench serve` runs it.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { MemoryApprovalStore } from "../../mod.ts";
import { serve } from "../../serve.ts";
import { startConnectServer } from "./connect_server.ts";
import { type Benchmark, type BenchRow, median, quantile } from "./types.ts";

const ROUNDS = 8;
const CALLS_PER_ROUND = 50;
const CALLS = ROUNDS * CALLS_PER_ROUND;
const WARMUP = 60;
const TOKEN = "bench-token-0123456789abcdef0123456789abcdef";
const SIZES = [{ tool: "small", label: "1 KiB" }, { tool: "large", label: "64 KiB" }] as const;

async function client(url: URL, token?: string): Promise<Client> {
  const connected = new Client({ name: "serve-bench", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await connected.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return connected;
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
    `(${SIZES.map((size) => size.label).join(", ")}), after ${WARMUP} warm-up calls`,
  async run() {
    const upstream = await startConnectServer();
    const served = await serve({
      servers: [{ id: "bench", url: `${upstream.origin}/calls` }],
      allow: SIZES.map((size) => `bench.${size.tool}`),
      preApproved: SIZES.map((size) => `bench.${size.tool}`),
      store: new MemoryApprovalStore(),
      allowNonDurableStoreForTests: true,
      transport: { dangerouslyAllowLoopback: true },
      serve: { clients: [{ name: "bench", token: TOKEN }], limits: { maxConcurrentCalls: 64 } },
    });
    const listener = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      served.fetch,
    );
    const direct = await client(new URL(`${upstream.origin}/calls`));
    const through = await client(new URL(`http://127.0.0.1:${listener.addr.port}/mcp`), TOKEN);
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
        for (let i = 0; i < CALLS; i++) {
          const order = i % 2 === 0 ? [0, 1] : [1, 0];
          for (const index of order) samples[index].push(await timed(paths[index]));
        }
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
        }
      }
    } finally {
      await direct.close();
      await through.close();
      await served.close();
      await listener.shutdown();
      await upstream.close();
    }
    return rows;
  },
};
