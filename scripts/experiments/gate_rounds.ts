/**
 * What the write-path experiments share: the bench's bare loop (four one-row synced inserts per
 * write on a WAL file), gate write cycles on the in-memory v2 write server, rounds with a rotated
 * order, and per-round ratios as a median with quartiles.
 *
 * @module
 */
import Database from "libsql";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import type { Gate } from "../../src/gate/mod.ts";
import { median, quantile } from "../bench/types.ts";

/** Write cycles per loop call. */
export const CYCLES = 10;

let sequence = 0;

/** The bare loop on a new file in `dir`: `CYCLES` × 4 one-row synced inserts per call. */
export function bareLoop(dir: string): { loop: () => Promise<void>; close(): void } {
  const db = new Database(`${dir}/bare.db`);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");
  const insert = db.prepare("INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)");
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

/** `CYCLES` inline write cycles through `gate` (each a new call of run `runId`). */
export function gateCycles(gate: Gate, runId: string): () => Promise<void> {
  return async () => {
    for (let i = 0; i < CYCLES; i++) {
      const n = sequence++;
      const [envelope] = await gate.run([
        { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
      ], { runId });
      if (envelope.effect !== "committed") throw new Error(`${runId}: a write did not commit`);
    }
  };
}

/** One warm-up call of each loop, then `rounds` rounds in a rotated order: ms per loop per round. */
export async function rotatedRounds(
  loops: readonly (() => Promise<void>)[],
  rounds: number,
): Promise<number[][]> {
  for (const loop of loops) await loop();
  const samples = loops.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < loops.length; step++) {
      const index = (step + round) % loops.length;
      const start = performance.now();
      await loops[index]();
      samples[index].push(performance.now() - start);
    }
  }
  return samples;
}

/** Per-round ratios `a / b` as "median (25th..75th percentile)". */
export function ratioRange(a: readonly number[], b: readonly number[]): string {
  const ratios = a.map((value, round) => value / b[round]);
  return `${median(ratios).toFixed(2)}x (${quantile(ratios, 0.25).toFixed(2)}..${
    quantile(ratios, 0.75).toFixed(2)
  })`;
}
