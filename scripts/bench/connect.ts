/**
 * `connect()` vs the raw v2 SDK, against one loopback Streamable HTTP server on the 2026-07-28
 * revision (`connect_server.ts`, in its own process, so the CPU figures are the client's
 * alone):
 *
 * 1. Calls: the raw `Client.callTool` (cfworker validator, global `fetch`, after one
 *    `listTools`) vs `toolkit.call` of a `connect()` with the tool pre-approved
 *    (`transport: { dangerouslyAllowLoopback: true }`), for a 1 KiB and a 64 KiB text result.
 *    Each round is a run of call pairs whose order alternates (raw, sluice, sluice, raw, ...),
 *    every call timed on its own with its process CPU time (`process.cpuUsage`); a round gives
 *    each side's median call. Reported: the median over rounds, and the median and range of
 *    the per-round ratios. Target: at most 1.10×.
 * 2. Discovery of a 188-tool, ~1 MiB list (`large_list.ts`, from the shared corpus): a fresh
 *    raw `Client` (probe, then `listTools()`) vs `connect()` allowing five of the tools (probe,
 *    then its one `tools/list`); both send the same two requests. Then the heap each retains
 *    (the raw client with its result, the connection), after a forced GC when `gc` is exposed
 *    (`deno task bench` passes `--v8-flags=--expose-gc`). Targets: at most 1.5× each.
 *
 * `deno task bench connect` runs it.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import process from "node:process";
import { connect, type Connection } from "../../mod.ts";
import { CALL_RESULTS } from "./connect_server.ts";
import { corpusDir, LARGE_LIST_BYTES, LARGE_LIST_TOOLS, largeToolList } from "./large_list.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const MODERN = "2026-07-28";
const ROOT = new URL("../../", import.meta.url);

/** Rounds, and call pairs per round, by tool. */
const CALL_PLAN = [
  { tool: "small", label: "1 KiB", calls: 100, rounds: 15 },
  { tool: "large", label: "64 KiB", calls: 30, rounds: 15 },
] as const;
const CALL_WARMUP = 150;
const DISCOVERY_ROUNDS = 8;
const DISCOVERY_WARMUP = 3;
const HEAP_ROUNDS = 6;
const HEAP_HELD = 6;
/** Tools of the large list connect() allows, by their index in it. */
const ALLOWED_INDEXES = [0, 47, 94, 141, 187];

interface BenchServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts `connect_server.ts` as a child process and waits for its address. */
async function startServer(): Promise<BenchServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      new URL("connect_server.ts", import.meta.url).pathname,
    ],
    cwd: ROOT.pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the benchmark server exited before listening");
    buffered += value;
  }
  const match = /LISTENING (\S+)/.exec(buffered);
  if (match === null) throw new Error(`unexpected server output: ${buffered}`);
  lines.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    origin: match[1],
    close: async () => {
      // Closing stdin stops the server; SIGTERM if it does not go within 5 s.
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
      }, 5_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

/** A connected raw v2 SDK client, as a host that owns its session would make it. */
async function rawClient(url: string): Promise<Client> {
  const client = new Client({ name: "raw-bench", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getNegotiatedProtocolVersion() !== MODERN) {
    throw new Error(`raw client negotiated ${client.getNegotiatedProtocolVersion()}`);
  }
  return client;
}

async function sluiceConnection(url: string, allow: readonly string[]): Promise<Connection> {
  const connection = await connect(url, {
    id: "bench",
    allow,
    preApproved: allow,
    transport: { dangerouslyAllowLoopback: true },
  });
  const report = connection.report();
  if (report.ready.length !== allow.length) {
    await connection.close();
    throw new Error(`connect() skipped ${JSON.stringify(report.skipped)}`);
  }
  if (report.servers[0].protocolVersion !== MODERN) {
    await connection.close();
    throw new Error(`connect() negotiated ${report.servers[0].protocolVersion}`);
  }
  return connection;
}

/** One measurement: milliseconds and process CPU milliseconds. */
interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

/** Runs `work` once and measures its time and the process's CPU time. */
async function timed(work: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  const after = process.cpuUsage();
  return { ms, cpuMs: (after.user - cpu.user + after.system - cpu.system) / 1000 };
}

/** The per-measure median of `samples`. */
function medianSample(samples: readonly Sample[]): Sample {
  return {
    ms: median(samples.map((sample) => sample.ms)),
    cpuMs: median(samples.map((sample) => sample.cpuMs)),
  };
}

/**
 * Runs `rounds` rounds of `perRound` pairs of `raw` and `sluice`, alternating which goes
 * first from pair to pair (raw, sluice, sluice, raw, ...), each timed on its own, and returns
 * each side's median per round: both sides of a round see the same machine, and a median
 * ignores the calls a busy machine stalls.
 */
async function alternate(
  raw: () => Promise<unknown>,
  sluice: () => Promise<unknown>,
  rounds: number,
  perRound: number,
): Promise<{ raw: Sample[]; sluice: Sample[] }> {
  const samples = { raw: [] as Sample[], sluice: [] as Sample[] };
  for (let round = 0; round < rounds; round++) {
    const rawRound: Sample[] = [];
    const sluiceRound: Sample[] = [];
    for (let pair = 0; pair < perRound; pair++) {
      if ((round * perRound + pair) % 2 === 0) {
        rawRound.push(await timed(raw));
        sluiceRound.push(await timed(sluice));
      } else {
        sluiceRound.push(await timed(sluice));
        rawRound.push(await timed(raw));
      }
    }
    samples.raw.push(medianSample(rawRound));
    samples.sluice.push(medianSample(sluiceRound));
  }
  return samples;
}

/** The comparison rows (time and CPU) of paired rounds. */
function pairedRows(
  samples: { raw: Sample[]; sluice: Sample[] },
  subject: string,
  baseline: string,
  targetRatio: number | undefined,
): BenchRow[] {
  return (["ms", "cpuMs"] as const).map((key): BenchRow => {
    const ratios = samples.sluice.map((sample, index) => sample[key] / samples.raw[index][key]);
    const cpu = key === "cpuMs" ? " CPU" : "";
    return {
      kind: "comparison",
      subject: `${subject}${cpu}`,
      subjectMs: median(samples.sluice.map((sample) => sample[key])),
      baseline: `${baseline}${cpu}`,
      baselineMs: median(samples.raw.map((sample) => sample[key])),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
      ...(targetRatio !== undefined && key === "ms" ? { targetRatio } : {}),
    };
  });
}

async function callRows(origin: string): Promise<BenchRow[]> {
  const url = `${origin}/calls`;
  const client = await rawClient(url);
  await client.listTools();
  const connection = await sluiceConnection(url, CALL_PLAN.map((plan) => plan.tool));
  const args = { query: "sluice" };
  const rows: BenchRow[] = [];
  try {
    for (const plan of CALL_PLAN) {
      const expected = CALL_RESULTS[plan.tool].length;
      const rawCall = async () => {
        const result = await client.callTool({ name: plan.tool, arguments: args });
        const first = (result.content as { text?: string }[])[0];
        if (first?.text?.length !== expected) throw new Error("raw callTool failed");
      };
      const sluiceCall = async () => {
        const envelope = await connection.toolkit.call(`bench__${plan.tool}`, args);
        if (envelope.text[0]?.length !== expected) {
          throw new Error(`toolkit.call failed: ${envelope.errorCode}`);
        }
      };
      for (let i = 0; i < CALL_WARMUP; i++) {
        await rawCall();
        await sluiceCall();
      }
      const samples = await alternate(rawCall, sluiceCall, plan.rounds, plan.calls);
      rows.push(
        ...pairedRows(
          samples,
          `toolkit.call, ${plan.label} result (per call)`,
          "raw callTool",
          1.1,
        ),
      );
    }
  } finally {
    await connection.close();
    await client.close();
  }
  return rows;
}

const gc = (globalThis as { gc?: () => void }).gc;

function collect(): void {
  gc?.();
  gc?.();
}

/**
 * Heap (in KiB) each of `count` results of `make` keeps alive: the heap growth while holding
 * them, after a GC when `gc` is exposed, divided by `count`.
 */
async function retainedKiB<T>(
  make: () => Promise<T>,
  release: (held: T) => Promise<void>,
  count: number,
): Promise<number> {
  collect();
  const before = Deno.memoryUsage().heapUsed;
  const held: T[] = [];
  for (let i = 0; i < count; i++) held.push(await make());
  collect();
  const after = Deno.memoryUsage().heapUsed;
  for (const item of held) await release(item);
  return (after - before) / count / 1024;
}

async function discoveryRows(origin: string): Promise<BenchRow[]> {
  const url = `${origin}/catalog`;
  const list = largeToolList(corpusDir(ROOT)!);
  const allow = ALLOWED_INDEXES.map((index) => list[index].name as string);
  const rawDiscover = async () => {
    const client = await rawClient(url);
    const result = await client.listTools();
    if (result.tools.length !== LARGE_LIST_TOOLS) throw new Error("raw listTools missed tools");
    return { client, result };
  };
  const sluiceDiscover = () => sluiceConnection(url, allow);
  const closeRaw = async (held: { client: Client }) => await held.client.close();
  const closeSluice = async (connection: Connection) => await connection.close();
  for (let i = 0; i < DISCOVERY_WARMUP; i++) {
    await closeRaw(await rawDiscover());
    await closeSluice(await sluiceDiscover());
  }
  const samples = await alternate(
    async () => await closeRaw(await rawDiscover()),
    async () => await closeSluice(await sluiceDiscover()),
    DISCOVERY_ROUNDS,
    3,
  );
  const rows = pairedRows(
    samples,
    `connect() allowing ${allow.length} of ${LARGE_LIST_TOOLS} tools`,
    "raw connect + listTools()",
    1.5,
  );
  const heap = { raw: [] as number[], sluice: [] as number[] };
  for (let round = 0; round < HEAP_ROUNDS; round++) {
    const rawKiB = () => retainedKiB(rawDiscover, closeRaw, HEAP_HELD);
    const sluiceKiB = () => retainedKiB(sluiceDiscover, closeSluice, HEAP_HELD);
    if (round % 2 === 0) {
      heap.raw.push(await rawKiB());
      heap.sluice.push(await sluiceKiB());
    } else {
      heap.sluice.push(await sluiceKiB());
      heap.raw.push(await rawKiB());
    }
  }
  const ratios = heap.sluice.map((kib, index) => kib / heap.raw[index]);
  rows.push({
    kind: "comparison",
    subject: `retained heap per connection${gc ? "" : " (no forced GC)"}`,
    subjectMs: median(heap.sluice),
    baseline: "per raw client + listTools result",
    baselineMs: median(heap.raw),
    unit: "KiB",
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    targetRatio: 1.5,
  });
  return rows;
}

/** The `connect` benchmark, registered in `scripts/bench.ts`. */
export const connectBenchmark: Benchmark = {
  name: "connect",
  describe: () =>
    `connect() vs the raw v2 SDK on one loopback Streamable HTTP server (${MODERN}, own ` +
    `process): ${
      CALL_PLAN.map((plan) => `${plan.rounds} x ${plan.calls} call pairs (${plan.label})`)
        .join(", ")
    }; ${DISCOVERY_ROUNDS} x 3 discovery pairs of ${LARGE_LIST_TOOLS} tools ` +
    `(${(LARGE_LIST_BYTES / 1024 / 1024).toFixed(2)} MiB); retained heap of ${HEAP_ROUNDS} x ` +
    `${HEAP_HELD} held`,
  async run() {
    const server = await startServer();
    try {
      const rows = await callRows(server.origin);
      if (corpusDir(ROOT) === undefined) {
        console.warn("connect: corpus not found (set SLUICE_CORPUS_DIR); discovery skipped");
        return rows;
      }
      return [...rows, ...await discoveryRows(server.origin)];
    } finally {
      await server.close();
    }
  },
};
