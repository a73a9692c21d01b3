/**
 * Discovery benchmark: the whole first contact with a large server, side by side in one
 * process against the two clients a host would otherwise use, on one loopback server process
 * (`connect_server.ts`, its own process):
 *
 * - raw: the official v2 `Client`, connect + `listTools()`;
 * - AI SDK: `@ai-sdk/mcp`'s `createMCPClient` + `tools()`;
 * - sluice: `connect()` + the first `report()` + one export (`toOpenAITools()`).
 *
 * Lists: the real `tools/list` of a Microsoft 365 server (`fixtures/schemas/`, 188 tools /
 * 1 MiB, and 344 tools / 2 MiB in its organization mode), and lists of 10, 100, 256, 1,000 and
 * 5,000 real tools synthesised from every captured list and the shared corpus (a repeated tool
 * gets a numbered name). Each list with every tool allowed and with 5 allowed. Per list, rounds
 * interleave the three clients (rotated); the rows give the median per-round ratio against raw
 * (target 1.5x), the retained heap of one held connection against one raw client with its
 * result (target 2x), and sluice's longest event-loop stall during the whole operation
 * (target 20 ms). Lists over the defaults (256 tools, 1 MiB) raise `limits` and
 * `transport.maxResponseBytes` explicitly, as a host must.
 *
 * `deno task bench discovery` (`SLUICE_DISCOVERY_LISTS=ms365,real-1000` for some lists only: `ms365`,
 * `ms365-org`, `real-<count>`)
 *
 * @module
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connect, type Connection, MAX_RESPONSE_BYTES, TOOL_LIMIT_CEILINGS } from "../../mod.ts";
import { startConnectServer } from "./connect_server.ts";
import { corpusDir } from "./large_list.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const ROOT = new URL("../../", import.meta.url);
const SCHEMAS = new URL("fixtures/schemas/", ROOT);
const SYNTHESISED = [10, 100, 256, 1_000, 5_000] as const;
const ALLOW_FEW = 5;
const DEFAULT_MAX_TOOLS = 256;
const DEFAULT_MAX_BYTES = 1024 * 1024;

type Tool = Record<string, unknown> & { name: string };

/** One list the benchmark serves. */
interface List {
  readonly name: string;
  readonly label: string;
  readonly tools: readonly Tool[];
  readonly bytes: number;
}

const byteLength = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

function captured(file: string): Tool[] {
  return (JSON.parse(Deno.readTextFileSync(new URL(file, SCHEMAS))) as { tools: Tool[] }).tools;
}

/** Every real tool the repository and the shared corpus hold, sources interleaved. */
function realTools(): Tool[] {
  const sources: Tool[][] = [];
  for (const entry of [...Deno.readDirSync(SCHEMAS)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (entry.name.endsWith(".json")) sources.push(captured(entry.name));
  }
  const corpus = corpusDir(ROOT);
  if (corpus !== undefined) {
    for (const entry of [...Deno.readDirSync(corpus)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (!entry.name.endsWith(".json")) continue;
      const text = Deno.readTextFileSync(new URL(entry.name, corpus));
      sources.push((JSON.parse(text) as { tools: Tool[] }).tools);
    }
  }
  // One tool per name (the organization mode lists the default mode's tools again).
  const tools = new Map<string, Tool>();
  for (let index = 0; sources.some((source) => index < source.length); index++) {
    for (const source of sources) {
      const tool = source[index];
      if (tool !== undefined && !tools.has(tool.name)) tools.set(tool.name, tool);
    }
  }
  return [...tools.values()];
}

/** `count` real tools, cycling through them; a repeat is named after its place in the list. */
function synthesised(pool: readonly Tool[], count: number): Tool[] {
  return Array.from({ length: count }, (_, index) => {
    const tool = pool[index % pool.length];
    return index < pool.length ? tool : { ...tool, name: `${tool.name.slice(0, 48)}_${index}` };
  });
}

function lists(): List[] {
  const pool = realTools();
  const make = (name: string, label: string, tools: Tool[]): List => ({
    name,
    label,
    tools,
    bytes: byteLength(tools),
  });
  return [
    make("ms365", "ms-365 (real)", captured("ms-365-mcp-server@0.155.0.json")),
    make(
      "ms365-org",
      "ms-365 org mode (real)",
      captured("ms-365-mcp-server-org-mode@0.155.0.json"),
    ),
    ...SYNTHESISED.map((count) => make(`real-${count}`, `${count} real`, synthesised(pool, count))),
  ];
}

/** The limits a host sets, explicitly, for a list over the defaults. */
function raisedFor(list: List) {
  const over = list.tools.length > DEFAULT_MAX_TOOLS || list.bytes > DEFAULT_MAX_BYTES * 0.95;
  return over
    ? {
      limits: {
        maxTools: TOOL_LIMIT_CEILINGS.maxTools,
        maxCatalogBytes: TOOL_LIMIT_CEILINGS.maxCatalogBytes,
      },
      transport: { dangerouslyAllowLoopback: true, maxResponseBytes: MAX_RESPONSE_BYTES },
    }
    : { transport: { dangerouslyAllowLoopback: true } };
}

async function raw(url: string, expected: number) {
  const client = new Client({ name: "raw-bench", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const result = await client.listTools();
  if (result.tools.length !== expected) throw new Error("raw listTools missed tools");
  return { held: result, close: () => client.close() };
}

async function aiSdk(url: string, expected: number) {
  const client = await createMCPClient({ transport: { type: "http", url } });
  const tools = await client.tools();
  if (Object.keys(tools).length !== expected) throw new Error("AI SDK tools() missed tools");
  return { held: tools, close: () => client.close() };
}

async function sluice(url: string, list: List, allow: readonly string[]) {
  const connection: Connection = await connect(url, {
    id: "bench",
    allow,
    preApproved: allow,
    ...raisedFor(list),
  });
  const report = connection.report();
  const exported = connection.toolkit.toOpenAITools();
  // A real list has tools outside the profile: those are skipped, the same ones every time.
  if (report.ready.length + report.skipped.length !== allow.length || report.ready.length === 0) {
    await connection.close();
    throw new Error(`connect(): ${report.ready.length} of ${allow.length} ready`);
  }
  ready.set(`${list.name}/${allow.length}`, report.ready.length);
  return { held: [connection, exported], close: () => connection.close() };
}

/** How many tools were ready, by list and allowlist size (for the labels). */
const ready = new Map<string, number>();

type Run = () => Promise<{ held: unknown; close: () => Promise<unknown> }>;

/** The longest gap between ticks of a 1 ms timer while `work` runs, beyond its 1 ms. */
async function stalled<T>(work: () => Promise<T>): Promise<[T, number]> {
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  try {
    const result = await work();
    // One more tick: a stall at the very end shows as the gap before it.
    await new Promise((resolve) => setTimeout(resolve, 2));
    return [result, Math.max(0, longest)];
  } finally {
    clearInterval(timer);
  }
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
  // Twice: the first collection can leave what finalizers of the first released.
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

interface Measured {
  readonly ms: number[];
  readonly heapKiB: number[];
  readonly stallMs: number[];
}

/** Rounds of the three runs, order rotated each round; then rounds of retained heap. */
async function measure(runs: readonly Run[], rounds: number): Promise<Measured[]> {
  const out = runs.map((): Measured => ({ ms: [], heapKiB: [], stallMs: [] }));
  for (const run of runs) await (await run()).close(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < runs.length; turn++) {
      const index = (round + turn) % runs.length;
      const start = performance.now();
      const [done, stall] = await stalled(runs[index]);
      out[index].ms.push(performance.now() - start);
      out[index].stallMs.push(stall);
      await done.close();
    }
  }
  // Retained heap: each result is kept until the end of these rounds, so nothing a closed
  // client lets go of later is counted against the next.
  const kept: { close: () => Promise<unknown> }[] = [];
  for (let round = 0; round < Math.min(rounds, 3); round++) {
    for (let turn = 0; turn < runs.length; turn++) {
      const index = (round + turn) % runs.length;
      const before = heapUsed();
      kept.push(await runs[index]());
      out[index].heapKiB.push((heapUsed() - before) / 1024);
    }
  }
  for (const done of kept) await done.close();
  return out;
}

function ratios(subject: readonly number[], baseline: readonly number[]) {
  const each = subject.map((value, index) => value / baseline[index]);
  return { ratio: median(each), ratioRange: [Math.min(...each), Math.max(...each)] as const };
}

async function listRows(origin: string, list: List): Promise<BenchRow[]> {
  const url = `${origin}/lists/${list.name}`;
  const rows: BenchRow[] = [];
  const rounds = list.tools.length >= 1_000 ? 3 : 5;
  const names = list.tools.map((tool) => tool.name);
  const step = Math.max(1, Math.floor(names.length / ALLOW_FEW));
  const few = names.filter((_, index) => index % step === 0).slice(0, ALLOW_FEW);
  for (const [allowed, allow] of [["all", names], [String(few.length), few]] as const) {
    const [rawRun, aiRun, sluiceRun] = await measure([
      () => raw(url, names.length),
      () => aiSdk(url, names.length),
      () => sluice(url, list, allow),
    ], rounds);
    const label = `${list.label}, ${list.tools.length} tools ` +
      `(${(list.bytes / 1024 / 1024).toFixed(2)} MiB), ${allowed} allowed ` +
      `(${ready.get(`${list.name}/${allow.length}`)} ready)`;
    rows.push({
      kind: "comparison",
      subject: `${label}: connect + report() + export`,
      subjectMs: median(sluiceRun.ms),
      baseline: "raw connect + listTools()",
      baselineMs: median(rawRun.ms),
      ...ratios(sluiceRun.ms, rawRun.ms),
      targetRatio: 1.5,
    }, {
      kind: "comparison",
      subject: `${label}: AI SDK createMCPClient + tools()`,
      subjectMs: median(aiRun.ms),
      baseline: "raw connect + listTools()",
      baselineMs: median(rawRun.ms),
      ...ratios(aiRun.ms, rawRun.ms),
    }, {
      kind: "comparison",
      subject: `${label}: retained heap, one connection held`,
      subjectMs: median(sluiceRun.heapKiB),
      baseline: "one raw client + its result",
      baselineMs: median(rawRun.heapKiB),
      unit: "KiB",
      ...ratios(sluiceRun.heapKiB, rawRun.heapKiB),
      targetRatio: 2,
    }, {
      kind: "figure",
      name: `${label}: sluice's longest event-loop stall (median round; target <= 20)`,
      value: median(sluiceRun.stallMs),
      unit: `ms (rounds ${Math.min(...sluiceRun.stallMs).toFixed(1)}..${
        Math.max(...sluiceRun.stallMs).toFixed(1)
      }; raw ${median(rawRun.stallMs).toFixed(1)})`,
    });
  }
  return rows;
}

/** The `discovery` benchmark, registered in `scripts/bench.ts`. */
export const discoveryBenchmark: Benchmark = {
  name: "discovery",
  describe: () =>
    `connect() + report() + toOpenAITools() vs the raw v2 client and the AI SDK's MCP client, ` +
    `one loopback server process: the real ms-365 lists (188, 344 tools) and ` +
    `${SYNTHESISED.join(", ")} real tools, each all allowed and ${ALLOW_FEW} allowed`,
  run: async () => {
    // `SLUICE_DISCOVERY_LISTS=ms365,real-1000` runs only those lists.
    const only = Deno.env.get("SLUICE_DISCOVERY_LISTS")?.split(",");
    const all = lists().filter((list) => only === undefined || only.includes(list.name));
    const file = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(
      file,
      JSON.stringify(Object.fromEntries(all.map((list) => [list.name, list.tools]))),
    );
    const server = await startConnectServer(file);
    try {
      const rows: BenchRow[] = [];
      for (const list of all) rows.push(...await listRows(server.origin, list));
      return rows;
    } finally {
      await server.close();
      await Deno.remove(file);
    }
  },
};
