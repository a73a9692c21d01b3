/**
 * Body-chunks benchmark: a loopback server sends a body as 30,000, 60,000 and 120,000 chunks of
 * 3 bytes, read through `secureFetch` and through the raw `fetch`, both with a reader loop (the
 * way the MCP SDK reads an SSE reply and the way a capped body must be read: chunk by chunk, in
 * JavaScript). Target: at most 2x the raw fetch at each size, the same ratio at every size (it
 * is linear), and no heap held per chunk.
 *
 * Rounds of the two alternate and each ratio is the median of the per-round ratios, which a
 * shared machine's slow and fast phases disturb less than a ratio of medians. Figures go with
 * it: what reading 120k chunks leaves in memory (the JS heap's growth without a forced GC, and
 * the ArrayBuffer memory V8 still accounts for after a full GC, in a child process started with
 * `--expose-gc`: each chunk a per-read race kept alive pinned the buffer it was read into), and,
 * for scale, `arrayBuffer()` on the raw fetch, which Deno serves natively without handing a
 * single chunk to JavaScript (no capped body can: it has to count the bytes as they stream).
 *
 * `deno task bench body_chunks` runs it through the registry; `deno run -A
 * scripts/bench/body_chunks.ts` runs it alone and prints the rows.
 *
 * @module
 */
import { secureFetch } from "../../src/transport/mod.ts";
import { type Benchmark, type BenchRow, median, sampleInterleaved } from "./types.ts";
import { CHUNK, startChunkServer } from "../../fixtures/chunk_server.ts";

const SIZES = [30_000, 60_000, 120_000] as const;
const ROUNDS = 5;
const TARGET_RATIO = 2;

type Fetch = (url: string) => Promise<Response>;

function hardened(count: number): Fetch {
  return secureFetch({
    dangerouslyAllowLoopback: true,
    maxResponseBytes: CHUNK.byteLength * count,
    timeoutMs: 120_000,
  });
}

/** Reads the whole body chunk by chunk; returns the number of reads that carried bytes. */
async function readLoop(fetchBody: Fetch, url: string, expected: number): Promise<number> {
  const reader = (await fetchBody(url)).body!.getReader();
  let bytes = 0;
  let reads = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    bytes += step.value.byteLength;
    reads++;
  }
  if (bytes !== expected) throw new Error(`read ${bytes} bytes, expected ${expected}`);
  return reads;
}

/** What a read of the whole body leaves in memory, in MB. */
interface Held {
  /** JS heap growth from the request to the last chunk, no GC forced (what a host sees). */
  readonly heap: number;
  /** ArrayBuffer memory still held after a full GC, with the response still alive. */
  readonly buffers: number;
}

/** In a child started with `--expose-gc`: what reading `count` chunks leaves held. */
async function heldAtEnd(which: "raw" | "secure", count: number): Promise<Held> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const server = startChunkServer();
  try {
    const fetchBody: Fetch = which === "raw" ? fetch : hardened(count);
    gc();
    const before = Deno.memoryUsage();
    const reader = (await fetchBody(server.url(count))).body!.getReader();
    for (;;) {
      const step = await reader.read();
      if (!step.done) continue;
      // The response and its reader are still alive here: whatever they keep is counted.
      const heap = Deno.memoryUsage().heapUsed - before.heapUsed;
      gc();
      const buffers = Deno.memoryUsage().external - before.external;
      return { heap: heap / 1e6, buffers: buffers / 1e6 };
    }
  } finally {
    await server.close();
  }
}

async function heldInChild(which: "raw" | "secure", count: number): Promise<Held> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--held",
      which,
      String(count),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("the heap child failed");
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** Runs the benchmark and returns its rows. */
export async function runBodyChunksBench(): Promise<BenchRow[]> {
  const server = startChunkServer();
  const rows: BenchRow[] = [];
  try {
    for (const count of SIZES) {
      const url = server.url(count);
      const expected = CHUNK.byteLength * count;
      const secure = hardened(count);
      const reads = await readLoop(fetch, url, expected);
      const [raw, capped] = await sampleInterleaved([
        () => readLoop(fetch, url, expected),
        () => readLoop(secure, url, expected),
      ], { rounds: ROUNDS, warmup: 1 });
      rows.push({
        kind: "comparison",
        subject: `secureFetch, ${count / 1000}k chunks`,
        subjectMs: median(capped),
        baseline: "raw fetch, same reader loop",
        baselineMs: median(raw),
        ratio: median(capped.map((ms, round) => ms / raw[round])),
        targetRatio: TARGET_RATIO,
      });
      rows.push({
        kind: "figure",
        name: `reads that carried bytes, ${count / 1000}k`,
        value: reads,
        unit: "reads",
      });
    }
    const largest = SIZES[SIZES.length - 1];
    const url = server.url(largest);
    const expected = CHUNK.byteLength * largest;
    const secure = hardened(largest);
    const [native, capped] = await sampleInterleaved([
      async () => {
        const bytes = await (await fetch(url)).arrayBuffer();
        if (bytes.byteLength !== expected) throw new Error("short body");
      },
      () => readLoop(secure, url, expected),
    ], { rounds: ROUNDS, warmup: 1 });
    rows.push({
      kind: "comparison",
      subject: `secureFetch, ${largest / 1000}k chunks`,
      subjectMs: median(capped),
      baseline: "raw fetch arrayBuffer() (native, for scale)",
      baselineMs: median(native),
      ratio: median(capped.map((ms, round) => ms / native[round])),
    });
  } finally {
    await server.close();
  }
  for (const which of ["raw", "secure"] as const) {
    const held = await heldInChild(which, 120_000);
    const label = which === "raw" ? "raw fetch" : "secureFetch";
    rows.push({
      kind: "figure",
      name: `heap growth over 120k chunks, ${label}`,
      value: held.heap,
      unit: "MB",
    }, {
      kind: "figure",
      name: `buffers held after GC, 120k chunks, ${label}`,
      value: held.buffers,
      unit: "MB",
    });
  }
  return rows;
}

/** The body-chunks benchmark registered in `scripts/bench.ts`. */
export const bodyChunksBenchmark: Benchmark = {
  name: "body_chunks",
  describe: () =>
    `secureFetch vs raw fetch reading ${SIZES.map((size) => `${size / 1000}k`).join("/")} ` +
    `chunks of 3 bytes over loopback, ${ROUNDS} interleaved rounds`,
  run: runBodyChunksBench,
};

if (import.meta.main) {
  const held = Deno.args.indexOf("--held");
  if (held >= 0) {
    const which = Deno.args[held + 1] === "raw" ? "raw" : "secure";
    console.log(JSON.stringify(await heldAtEnd(which, Number(Deno.args[held + 2]))));
  } else {
    for (const row of await runBodyChunksBench()) console.log(JSON.stringify(row));
  }
}
