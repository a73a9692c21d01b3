/**
 * `connect()` vs the raw v2 SDK, against one loopback Streamable HTTP server on the 2026-07-28
 * revision (`connect_server.ts`, in its own process, so the CPU figures are the client's
 * alone):
 *
 * 1. Calls: the raw `Client.callTool` (cfworker validator, global `fetch`, after one
 *    `listTools`) vs `toolkit.call` of a `connect()` with the tool pre-approved
 *    (`transport: { dangerouslyAllowLoopback: true }`), for a 1 KiB and a 64 KiB text result.
 *    Two more paths split the difference: the raw client over `secureFetch` (the hardened
 *    transport alone) and a read-only `Gate` over a `discoverTools` catalog on the raw client
 *    (sluice's call layers alone). Each round is a run of turns, one call of each path per turn in an order
 *    that rotates, every call timed on its own with its process CPU time
 *    (`process.cpuUsage`); a round gives each path's median call. Reported: the median over
 *    rounds, and the median and range of the per-round ratios. Target: at most 1.10×. In the
 *    same turns, the AI SDK's MCP client (`@ai-sdk/mcp`: `createMCPClient` with its HTTP
 *    transport, then the `execute` of its `tools()` entry), the fastest peer: `toolkit.call`
 *    against it, target at most 1.0×.
 * 2. Discovery of a 188-tool, ~1 MiB list (`large_list.ts`, from the shared corpus): a fresh
 *    raw `Client` (probe, then `listTools()`) vs `connect()` allowing five of the tools (probe,
 *    then its one `tools/list`; one of the five is destructive-hinted, so a read and a write
 *    catalog are built); both send the same two requests. Then the heap each retains
 *    (the raw client with its result, the connection), after a forced GC when `gc` is exposed
 *    (`deno task bench` passes `--v8-flags=--expose-gc`). Targets: at most 1.5× each.
 *
 * `deno task bench connect` runs it.
 *
 * @module
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import process from "node:process";
import {
  CatalogMonitor,
  connect,
  type Connection,
  discoverTools,
  Gate,
  type ReadToolBinding,
  type SecureFetch,
  secureFetch,
} from "../../mod.ts";
import { CALL_RESULTS, startConnectServer } from "./connect_server.ts";
import { corpusDir, LARGE_LIST_BYTES, LARGE_LIST_TOOLS, largeToolList } from "./large_list.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const MODERN = "2026-07-28";
const RAW = "raw callTool";
const AI_SDK = "AI SDK execute";
const ROOT = new URL("../../", import.meta.url);

/** Rounds, and turns per round (one call of each path), by tool. */
const CALL_PLAN = [
  { tool: "small", label: "1 KiB", calls: 60, rounds: 15 },
  { tool: "large", label: "64 KiB", calls: 24, rounds: 15 },
] as const;
const CALL_WARMUP = 100;
const DISCOVERY_ROUNDS = 8;
const DISCOVERY_WARMUP = 3;
const HEAP_ROUNDS = 6;
const HEAP_HELD = 6;
/** Tools of the large list connect() allows, by their index in it. */
const ALLOWED_INDEXES = [0, 47, 94, 141, 187];

/** A connected raw v2 SDK client, as a host that owns its session would make it. */
async function rawClient(url: string, fetch?: SecureFetch): Promise<Client> {
  const client = new Client({ name: "raw-bench", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  if (client.getNegotiatedProtocolVersion() !== MODERN) {
    throw new Error(`raw client negotiated ${client.getNegotiatedProtocolVersion()}`);
  }
  return client;
}

/**
 * A `connect()` with every tool of `allow` allowed and pre-approved. Every connection must have
 * them all ready; with `verify`, its report must also say 2026-07-28 (`report()` builds each
 * provider's export of every tool, so the timed connections skip it).
 */
async function sluiceConnection(
  url: string,
  allow: readonly string[],
  verify = false,
): Promise<Connection> {
  const connection = await connect(url, {
    id: "bench",
    allow,
    preApproved: allow,
    transport: { dangerouslyAllowLoopback: true },
  });
  if (connection.toolkit.tools.length !== allow.length || verify) {
    const report = connection.report();
    const version = report.servers[0].protocolVersion;
    if (report.ready.length !== allow.length || version !== MODERN) {
      await connection.close();
      throw new Error(`connect(): ${version}, skipped ${JSON.stringify(report.skipped)}`);
    }
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
 * Runs `rounds` rounds of `perRound` turns; in each turn every function runs once, timed on
 * its own, in an order that rotates from turn to turn. Returns each function's median per
 * round (`samples[function][round]`): every function of a round sees the same machine, and a
 * median ignores the calls a busy machine stalls.
 */
async function interleave(
  fns: readonly (() => Promise<unknown>)[],
  rounds: number,
  perRound: number,
): Promise<Sample[][]> {
  const samples = fns.map(() => [] as Sample[]);
  for (let round = 0; round < rounds; round++) {
    const turns = fns.map(() => [] as Sample[]);
    for (let turn = 0; turn < perRound; turn++) {
      for (let step = 0; step < fns.length; step++) {
        const index = (round * perRound + turn + step) % fns.length;
        turns[index].push(await timed(fns[index]));
      }
    }
    turns.forEach((taken, index) => samples[index].push(medianSample(taken)));
  }
  return samples;
}

/** The comparison rows (time and CPU) of rounds of `subject` against rounds of `baseline`. */
function pairedRows(
  rounds: { subject: Sample[]; baseline: Sample[] },
  subject: string,
  baseline: string,
  targetRatio?: number,
): BenchRow[] {
  return (["ms", "cpuMs"] as const).map((key): BenchRow => {
    const ratios = rounds.subject.map((sample, index) => sample[key] / rounds.baseline[index][key]);
    const cpu = key === "cpuMs" ? " CPU" : "";
    return {
      kind: "comparison",
      subject: `${subject}${cpu}`,
      subjectMs: median(rounds.subject.map((sample) => sample[key])),
      baseline: `${baseline}${cpu}`,
      baselineMs: median(rounds.baseline.map((sample) => sample[key])),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
      ...(targetRatio !== undefined && key === "ms" ? { targetRatio } : {}),
    };
  });
}

async function callRows(origin: string): Promise<BenchRow[]> {
  const url = `${origin}/calls`;
  const tools = CALL_PLAN.map((plan) => plan.tool);
  const client = await rawClient(url);
  await client.listTools();
  // Where the difference goes: the raw client over sluice's hardened fetch (the transport
  // alone), and a read-only gate over the host-owned path's catalog on the raw client (sluice's
  // call layers alone, without the hardened fetch and the toolkit).
  const overSecureFetch = await rawClient(url, secureFetch({ dangerouslyAllowLoopback: true }));
  const monitor = new CatalogMonitor();
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  const bindings = Object.fromEntries(tools.map((tool) => [tool, readBinding(tool)]));
  const readGate = new Gate({
    catalogs: [await discoverTools(client, "bench", bindings, { monitor })],
  });
  const connection = await sluiceConnection(url, tools, true);
  const aiSdk = await createMCPClient({ transport: { type: "http", url } });
  const aiSdkTools = await aiSdk.tools();
  const args = { query: "sluice" };
  const rows: BenchRow[] = [];
  try {
    for (const plan of CALL_PLAN) {
      const expected = CALL_RESULTS[plan.tool].length;
      const check = (text: string | undefined, what: string) => {
        if (text?.length !== expected) throw new Error(`${what} failed`);
      };
      const sdkCall = (sdk: Client) => async () => {
        const result = await sdk.callTool({ name: plan.tool, arguments: args });
        check((result.content as { text?: string }[])[0]?.text, "callTool");
      };
      const paths = [
        sdkCall(client),
        async () => {
          const envelope = await connection.toolkit.call(`bench__${plan.tool}`, args);
          check(envelope.text[0], `toolkit.call (${envelope.errorCode})`);
        },
        sdkCall(overSecureFetch),
        async () => {
          const call = { id: "c", name: plan.tool, arguments: args };
          const [envelope] = await readGate.run([call], { runId: "bench" });
          check(envelope.text[0], "read-only Gate.run");
        },
        async () => {
          const result = await aiSdkTools[plan.tool].execute!(args, {
            toolCallId: "bench",
            messages: [],
            context: {},
          }) as { content: { text?: string }[] };
          check(result.content[0]?.text, "AI SDK execute");
        },
      ];
      for (let i = 0; i < CALL_WARMUP; i++) {
        for (const path of paths) await path();
      }
      const [raw, toolkit, secure, layers, peer] = await interleave(
        paths,
        plan.rounds,
        plan.calls,
      );
      const per = `${plan.label} result (per call)`;
      rows.push(
        ...pairedRows({ subject: toolkit, baseline: raw }, `toolkit.call, ${per}`, RAW, 1.1),
        ...pairedRows({ subject: toolkit, baseline: peer }, `toolkit.call, ${per}`, AI_SDK, 1.0),
        ...pairedRows({ subject: secure, baseline: raw }, `  callTool over secureFetch`, RAW),
        ...pairedRows({ subject: layers, baseline: raw }, `  read-only Gate.run, raw client`, RAW),
      );
    }
  } finally {
    monitor.close();
    await aiSdk.close();
    await connection.close();
    await overSecureFetch.close();
    await client.close();
  }
  return rows;
}

function readBinding(tool: string): ReadToolBinding {
  return {
    localName: tool,
    policy: { mode: "read", title: tool },
    scope: null,
    concurrencySafe: true,
  };
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
  await closeSluice(await sluiceConnection(url, allow, true));
  for (let i = 0; i < DISCOVERY_WARMUP; i++) {
    await closeRaw(await rawDiscover());
    await closeSluice(await sluiceDiscover());
  }
  const [raw, sluice] = await interleave(
    [
      async () => await closeRaw(await rawDiscover()),
      async () => await closeSluice(await sluiceDiscover()),
    ],
    DISCOVERY_ROUNDS,
    3,
  );
  const rows = pairedRows(
    { subject: sluice, baseline: raw },
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
    `connect() vs the raw v2 SDK and the AI SDK's client on one loopback Streamable HTTP ` +
    `server (${MODERN}, own process): ${
      CALL_PLAN.map((plan) => `${plan.rounds} x ${plan.calls} calls per path (${plan.label})`)
        .join(", ")
    }; ${DISCOVERY_ROUNDS} x 3 discovery pairs of ${LARGE_LIST_TOOLS} tools ` +
    `(${(LARGE_LIST_BYTES / 1024 / 1024).toFixed(2)} MiB); retained heap of ${HEAP_ROUNDS} x ` +
    `${HEAP_HELD} held`,
  async run() {
    const server = await startConnectServer();
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
