/**
 * `deno task bench pinning`: the per-request cost of DNS pinning on Deno, over a loopback HTTPS
 * server with a throwaway CA (openssl). Requests are sequential (50 per round, interleaved
 * rounds); each figure is milliseconds per request, each ratio the median of per-round ratios
 * against the unpinned secureFetch, which reuses one kept-alive connection.
 *
 * - pinned, sequential: nothing else in flight, so every request opens the proxy, a tunnel and a
 *   TLS handshake again (the pinned path releases everything when idle).
 * - pinned, held: `hold()` taken for the round (as `connect()` does for a connection's lifetime),
 *   so requests reuse the tunnelled connection.
 * - unpinned, new connection each: a fresh client per request, for the handshake's own share.
 *
 * @module
 */
import { type FetchFunction, secureFetch } from "../../src/transport/mod.ts";
import { makeCa } from "../../fixtures/pki.ts";
import { type Benchmark, type BenchRow, median, sampleInterleaved } from "./types.ts";

const PER_ROUND = 50;
const ROUNDS = 7;

async function runPinningBench(): Promise<BenchRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-bench-pinning-" });
  const pki = await makeCa(dir);
  const cert = await pki.issue("localhost", "DNS:localhost");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...cert },
    () => Response.json({ ok: true }),
  );
  const url = `https://localhost:${server.addr.port}/mcp`;
  const base = {
    dangerouslyAllowLoopback: true,
    resolve: () => Promise.resolve(["127.0.0.1"]),
    timeoutMs: 10_000,
  };
  const client = Deno.createHttpClient({ caCerts: [pki.ca] });
  const trusting: FetchFunction = (input, init) => fetch(input, { ...init, client } as RequestInit);
  const unpinned = secureFetch({ ...base, fetch: trusting });
  const pinned = secureFetch({ ...base, caCerts: [pki.ca] });
  const fresh = secureFetch({
    ...base,
    fetch: async (input, init) => {
      const once = Deno.createHttpClient({ caCerts: [pki.ca] });
      try {
        const response = await fetch(input, { ...init, client: once } as RequestInit);
        const body = await response.arrayBuffer();
        return new Response(body, { status: response.status, headers: response.headers });
      } finally {
        once.close();
      }
    },
  });
  const requests = (fetchFn: FetchFunction) => async () => {
    for (let index = 0; index < PER_ROUND; index++) await (await fetchFn(url)).arrayBuffer();
  };
  const held = async () => {
    const release = pinned.hold();
    try {
      await requests(pinned)();
    } finally {
      release();
    }
  };
  try {
    const [base0, sequential, withHold, freshEach] = await sampleInterleaved([
      requests(unpinned),
      requests(pinned),
      held,
      requests(fresh),
    ], { rounds: ROUNDS, warmup: 1 });
    const perRequest = (samples: number[]) => median(samples) / PER_ROUND;
    const row = (subject: string, samples: number[]): BenchRow => {
      const ratios = samples.map((ms, round) => ms / base0[round]);
      return {
        kind: "comparison",
        subject,
        subjectMs: perRequest(samples),
        baseline: "unpinned secureFetch, kept-alive connection",
        baselineMs: perRequest(base0),
        ratio: median(ratios),
        ratioRange: [Math.min(...ratios), Math.max(...ratios)],
        unit: "ms/request",
      };
    };
    return [
      row("pinned, sequential (proxy + TLS handshake each)", sequential),
      row("pinned, held (connection reused)", withHold),
      row("unpinned, new connection each (for scale)", freshEach),
    ];
  } finally {
    client.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The pinning benchmark registered in `scripts/bench.ts`. */
export const pinningBenchmark: Benchmark = {
  name: "pinning",
  describe: () =>
    `secureFetch pinned vs unpinned on Deno, loopback HTTPS, ${PER_ROUND} sequential requests x ` +
    `${ROUNDS} interleaved rounds`,
  run: runPinningBench,
};

if (import.meta.main) {
  for (const row of await runPinningBench()) console.log(JSON.stringify(row));
}
