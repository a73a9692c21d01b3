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
  /**
   * The subject/baseline ratio when measured per round: the median of each round's own ratio,
   * which a shared machine's slow and fast phases disturb less than a ratio of medians. When
   * absent, `subjectMs / baselineMs`.
   */
  ratio?: number;
  /** The lowest and highest per-round ratio, when measured per round. */
  ratioRange?: readonly [number, number];
  /** Unit of `subjectMs` and `baselineMs` when they are not milliseconds, e.g. `KiB`. */
  unit?: string;
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

/** Options of one `deno task bench` run, for the benchmarks that take them. */
export interface BenchOptions {
  /** `--against <dir>`: another checkout of sluice to compare this one with. */
  readonly against?: string;
}

/** A registered benchmark: a name and a function that measures and returns its rows. */
export interface Benchmark {
  /** Short area name, e.g. `identity`; `deno task bench <name>` runs only it. */
  name: string;
  /** One line saying what the input is, e.g. its size and the number of rounds. */
  describe(): string;
  /** Runs the measurement (including warm-up) and returns its rows. */
  run(options: BenchOptions): Promise<BenchRow[]>;
}

/**
 * Times `rounds` calls of each function after `warmup` calls, interleaving them so that both
 * see the same machine state, and returns the median milliseconds of each.
 */
export async function timeInterleaved(
  fns: readonly (() => unknown)[],
  options: { rounds: number; warmup: number },
): Promise<number[]> {
  return (await sampleInterleaved(fns, options)).map(median);
}

/**
 * Like {@link timeInterleaved}, but returns every round's milliseconds per function
 * (`samples[function][round]`), so callers can form per-round ratios. With `rotate`, each round
 * starts one function later, so none always follows the same one.
 */
export async function sampleInterleaved(
  fns: readonly (() => unknown)[],
  options: { rounds: number; warmup: number; rotate?: boolean },
): Promise<number[][]> {
  for (let index = 0; index < options.warmup; index++) {
    for (const fn of fns) await fn();
  }
  const samples = fns.map(() => [] as number[]);
  for (let round = 0; round < options.rounds; round++) {
    for (let step = 0; step < fns.length; step++) {
      const index = options.rotate ? (step + round) % fns.length : step;
      const start = performance.now();
      await fns[index]();
      samples[index].push(performance.now() - start);
    }
  }
  return samples;
}

/** The median of `values` (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The `q`-quantile of `values` by nearest rank, for 0 <= q <= 1. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}
