/**
 * Two `sluice serve` gateways side by side in one run: this checkout's and another's (a `git
 * archive` of a base commit), both in front of one upstream (`connect_server.ts`), each in its
 * own process as deployed (`serve_process.ts` of its checkout, started with `--trace-gc`), one
 * raw v2 client each. Calls alternate between the gateways call by call (which goes first
 * switching), so both meet the same contention; per result size it prints, for each gateway,
 * its CPU time per call (all threads), p50 / p99 per call, and its scavenges per 1,000 calls
 * with their pauses (sum and largest, from V8's `--trace-gc` lines on the gateway's stdout).
 *
 * `deno run -A scripts/bench/serve_ab.ts <other checkout> [calls per size]`
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { startConnectServer } from "./connect_server.ts";
import { CPU_PATH, SERVE_BENCH_TOKEN } from "./serve_process.ts";
import { quantile } from "./types.ts";

const SIZES = ["small", "medium", "large"] as const;
const WARMUP = 100;

interface Gateway {
  readonly label: string;
  readonly origin: string;
  /** `--trace-gc` scavenge pauses (ms) seen since the last `take()`. */
  take(): number[];
  close(): Promise<void>;
}

async function startGateway(label: string, checkout: string, upstream: string): Promise<Gateway> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--v8-flags=--trace-gc",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      `${checkout}/scripts/bench/serve_process.ts`,
      upstream,
    ],
    cwd: checkout,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!/LISTENING \S+\n/.test(buffered)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gateway ${label} exited before listening`);
    buffered += value;
  }
  const origin = /LISTENING (\S+)/.exec(buffered)![1];
  let pauses: number[] = [];
  let tail = "";
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const lines = (tail + value).split("\n");
      tail = lines.pop()!;
      for (const line of lines) {
        const match = /Scavenge.*?MB, ([0-9.]+) \//.exec(line);
        if (match) pauses.push(Number(match[1]));
      }
    }
  })();
  return {
    label,
    origin,
    take() {
      const taken = pauses;
      pauses = [];
      return taken;
    },
    async close() {
      await child.stdin.close();
      await child.status;
      await reading.catch(() => {});
    },
  };
}

async function cpu(origin: string): Promise<number> {
  const usage = await (await fetch(`${origin}${CPU_PATH}`)).json() as {
    user: number;
    system: number;
  };
  return usage.user + usage.system;
}

async function client(origin: string): Promise<Client> {
  const connected = new Client({ name: "serve-ab", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await connected.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${SERVE_BENCH_TOKEN}` } },
    }),
  );
  return connected;
}

if (import.meta.main) {
  const other = Deno.args[0];
  const calls = Number(Deno.args[1] ?? 2000);
  if (other === undefined) throw new Error("usage: serve_ab.ts <other checkout> [calls]");
  const here = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  const upstream = await startConnectServer();
  const gateways = [
    await startGateway("other", other, upstream.origin),
    await startGateway("this", here, upstream.origin),
  ];
  const clients = await Promise.all(gateways.map((gateway) => client(gateway.origin)));
  console.log(`load average ${Deno.loadavg()[0].toFixed(2)}; ${calls} calls per gateway and size`);
  try {
    for (const size of SIZES) {
      const call = (index: number) =>
        clients[index].callTool({ name: `bench__${size}`, arguments: { query: "q" } });
      for (let i = 0; i < WARMUP; i++) for (const index of [0, 1]) await call(index);
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const gateway of gateways) gateway.take();
      const before = await Promise.all(gateways.map((gateway) => cpu(gateway.origin)));
      const samples: [number[], number[]] = [[], []];
      for (let i = 0; i < calls; i++) {
        for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const start = performance.now();
          await call(index);
          samples[index].push(performance.now() - start);
        }
      }
      const after = await Promise.all(gateways.map((gateway) => cpu(gateway.origin)));
      // Let the gateways' last trace lines arrive before they are counted.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const [index, gateway] of gateways.entries()) {
        const pauses = gateway.take();
        const sum = pauses.reduce((total, pause) => total + pause, 0);
        console.log(
          `${size.padEnd(6)} ${gateway.label.padEnd(5)} cpu ${
            Math.round((after[index] - before[index]) / calls)
          } us/call, p50 ${quantile(samples[index], 0.5).toFixed(2)} ms, p99 ${
            quantile(samples[index], 0.99).toFixed(2)
          } ms, scavenges ${(pauses.length * 1000 / calls).toFixed(1)} per 1000 calls ` +
            `(pause sum ${sum.toFixed(0)} ms, max ${Math.max(0, ...pauses).toFixed(1)} ms)`,
        );
      }
    }
  } finally {
    await Promise.all(clients.map((connected) => connected.close()));
    for (const gateway of gateways) await gateway.close();
    await upstream.close();
  }
}
