/**
 * The contract between `scripts/bench.ts` and each area's benchmark.
 *
 * @module
 */

/** One measured comparison: a subject timed against a baseline doing comparable work. */
export interface ComparisonRow {
  /** Discriminant. */
  kind: "comparison";
  /** What was timed, e.g. `digest(value)`. */
  subject: string;
  /** Median milliseconds per round of the subject. */
  subjectMs: number;
  /** What it is compared with, e.g. `JSON.stringify + SHA-256`. */
  baseline: string;
  /** Median milliseconds per round of the baseline. */
  baselineMs: number;
  /** Highest acceptable subject/baseline ratio, when the project has a target. */
  targetRatio?: number;
}

/** One measured figure with its unit, e.g. cycles per second. */
export interface FigureRow {
  /** Discriminant. */
  kind: "figure";
  /** What was measured. */
  name: string;
  /** The figure. */
  value: number;
  /** Its unit, e.g. `cycles/s`, `us`, `x`. */
  unit: string;
}

/** Anything a benchmark reports. */
export type BenchRow = ComparisonRow | FigureRow;

/** A registered benchmark: a name and a function that measures and returns its rows. */
export interface Benchmark {
  /** Short area name, e.g. `identity`; `deno task bench <name>` runs only it. */
  name: string;
  /** One line saying what the input is, e.g. its size and the number of rounds. */
  describe(): string;
  /** Runs the measurement (including warm-up) and returns its rows. */
  run(): Promise<BenchRow[]>;
}

/**
 * Times `rounds` calls of each function after `warmup` calls, interleaving them so that both
 * see the same machine state, and returns the median milliseconds of each.
 */
export async function timeInterleaved(
  fns: readonly (() => unknown)[],
  options: { rounds: number; warmup: number },
): Promise<number[]> {
  for (let index = 0; index < options.warmup; index++) {
    for (const fn of fns) await fn();
  }
  const samples = fns.map(() => [] as number[]);
  for (let round = 0; round < options.rounds; round++) {
    for (let index = 0; index < fns.length; index++) {
      const start = performance.now();
      await fns[index]();
      samples[index].push(performance.now() - start);
    }
  }
  return samples.map((times) => {
    const sorted = times.toSorted((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  });
}
