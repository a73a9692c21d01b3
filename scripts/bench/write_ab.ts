/**
 * `deno task bench write_ab --against <checkout>`: an A/B of two checkouts of sluice on the write
 * path, in one process, so both see the same machine. Gate write cycles (inline approval, the
 * in-memory v2 write server, an embedded libSQL file store: WAL, `synchronous = FULL`) built
 * through this checkout's public API and through the other checkout's (`<checkout>/mod.ts` and
 * `<checkout>/libsql.ts`, for example a `git worktree add /tmp/before <commit>`), against a bare
 * loop of four one-row synced inserts per write; every loop once per round, the order rotated
 * every round. The ratio is the median of the per-round ratios.
 *
 * Comparing a checkout with itself (an A/A) shows the set-up's own bias: run it before reading a
 * few percent into an A/B. Without `--against` it measures nothing.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import * as thisApi from "../../mod.ts";
import * as thisLibsql from "../../libsql.ts";
import { bareTable } from "./bare_loop.ts";
import { type Benchmark, type BenchRow, median, quantile, sampleInterleaved } from "./types.ts";

/** Write cycles per loop call. */
const CYCLES = 10;
const ROUNDS = 60;

/** What the A/B needs of a checkout: its public gate, discovery and libSQL store. */
interface Checkout {
  readonly api: Pick<typeof thisApi, "discoverWriteTools" | "Gate">;
  readonly libsql: Pick<typeof thisLibsql, "LibsqlApprovalStore">;
}

/** The other checkout's entry points, imported from its own files. */
async function checkoutAt(dir: string): Promise<Checkout> {
  const root = await Deno.realPath(dir);
  const load = (file: string) => import(pathToFileURL(`${root}/${file}`).href);
  return { api: await load("mod.ts"), libsql: await load("libsql.ts") };
}

/** `CYCLES` inline write cycles through one checkout's gate on its own store in `path`. */
async function gateLoop(
  checkout: Checkout,
  server: Awaited<ReturnType<typeof startMemoryWriteServer>>,
  path: string,
  runId: string,
): Promise<{ loop: () => Promise<void>; close(): Promise<void> }> {
  const store = await checkout.libsql.LibsqlApprovalStore.open(path);
  const writes = await checkout.api.discoverWriteTools(server.client, "bench", {
    write_record: writeBinding(),
  }, { monitor: server.monitor });
  const gate = new checkout.api.Gate({ catalogs: [writes], store, approve: () => true });
  let sequence = 0;
  return {
    async loop() {
      for (let i = 0; i < CYCLES; i++) {
        const n = sequence++;
        const [envelope] = await gate.run([
          {
            id: `c${n}`,
            name: "save_record",
            arguments: { key: `${runId}-${n}`, value: SYNTHETIC_VALUE },
          },
        ], { runId });
        if (envelope.effect !== "committed") throw new Error(`${runId}: a write did not commit`);
      }
    },
    close: () => store.close(),
  };
}

/** The bare loop on a new file in `dir`: `CYCLES` × 4 one-row synced inserts per call. */
function bareLoop(dir: string): { loop: () => Promise<void>; close(): void } {
  const { db, insert } = bareTable(`${dir}/bare.db`);
  let sequence = 0;
  return {
    loop() {
      for (let i = 0; i < CYCLES * 4; i++) {
        insert.run(`b${sequence++}`, "pending", "x".repeat(200), Date.now());
      }
      return Promise.resolve();
    },
    close: () => db.close(),
  };
}

/** Per-round ratios `a / b`: median, quartiles and range. */
function ratios(a: readonly number[], b: readonly number[]) {
  const each = a.map((value, round) => value / b[round]);
  return {
    median: median(each),
    quartiles: [quantile(each, 0.25), quantile(each, 0.75)] as const,
    range: [Math.min(...each), Math.max(...each)] as const,
  };
}

async function writeAb(against: string): Promise<BenchRow[]> {
  const other = await checkoutAt(against);
  const dir = await Deno.makeTempDir({ prefix: "sluice-bench-write-ab-" });
  const server = await startMemoryWriteServer();
  const bare = bareLoop(dir);
  const mine = await gateLoop({ api: thisApi, libsql: thisLibsql }, server, `${dir}/this.db`, "a");
  const theirs = await gateLoop(other, server, `${dir}/other.db`, "b");
  try {
    const [bareMs, mineMs, theirsMs] = await sampleInterleaved(
      [bare.loop, mine.loop, theirs.loop],
      { rounds: ROUNDS, warmup: 1, rotate: true },
    );
    const perWrite = (samples: readonly number[]) => median(samples) / CYCLES;
    const ab = ratios(mineMs, theirsMs);
    const rows: BenchRow[] = [];
    for (
      const [subject, samples] of [["this checkout", mineMs], ["--against", theirsMs]] as const
    ) {
      const vsBare = ratios(samples, bareMs);
      rows.push({
        kind: "comparison",
        subject: `${subject}: gate write cycles, per write`,
        subjectMs: perWrite(samples),
        baseline: "bare loop (4 synced inserts), per write",
        baselineMs: perWrite(bareMs),
        ratio: vsBare.median,
        ratioRange: vsBare.range,
      });
    }
    rows.push(
      {
        kind: "comparison",
        subject: "this checkout, per write",
        subjectMs: perWrite(mineMs),
        baseline: `--against ${against}, per write`,
        baselineMs: perWrite(theirsMs),
        ratio: ab.median,
        ratioRange: ab.range,
      },
      {
        kind: "figure",
        name: "this / --against, 25th percentile",
        value: ab.quartiles[0],
        unit: "x",
      },
      {
        kind: "figure",
        name: "this / --against, 75th percentile",
        value: ab.quartiles[1],
        unit: "x",
      },
      {
        kind: "figure",
        name: "bare durable transaction",
        value: median(bareMs) * 1000 / (CYCLES * 4),
        unit: "us",
      },
    );
    return rows;
  } finally {
    await mine.close();
    await theirs.close();
    bare.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The registered benchmark. */
export const writeAbBenchmark: Benchmark = {
  name: "write_ab",
  describe: () =>
    `this checkout's write path vs --against <checkout>'s, libSQL file, ${ROUNDS} rotated rounds of ${CYCLES} writes`,
  run: async ({ against }) => {
    if (against === undefined) {
      console.log("write_ab: needs --against <checkout>; nothing measured");
      return [];
    }
    return await writeAb(against);
  },
};
