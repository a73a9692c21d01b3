/**
 * `deno task bench`: runs every registered benchmark and prints one table of times and
 * ratios. Areas add a benchmark by exporting a {@link Benchmark} from `scripts/bench/<area>.ts`
 * and listing it in `benchmarks` below. `--strict` exits non-zero when a target is missed.
 *
 * @module
 */
import type { Benchmark, BenchRow } from "./bench/types.ts";
import { identityBenchmark } from "./bench/identity.ts";

/** Every registered benchmark, run in this order. */
export const benchmarks: readonly Benchmark[] = [identityBenchmark];

function formatRow(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, index) => cell.padEnd(widths[index])).join("  ").trimEnd();
}

async function main(): Promise<boolean> {
  const header = ["benchmark", "subject", "ms", "baseline", "ms", "ratio", "target"];
  const lines: string[][] = [];
  let allMet = true;
  for (const benchmark of benchmarks) {
    console.log(`${benchmark.name}: ${benchmark.describe()}`);
    const rows: BenchRow[] = await benchmark.run();
    for (const row of rows) {
      const ratio = row.subjectMs / row.baselineMs;
      let target = "-";
      if (row.targetRatio !== undefined) {
        const met = ratio <= row.targetRatio;
        allMet &&= met;
        target = `<= ${row.targetRatio}x ${met ? "met" : "MISSED"}`;
      }
      lines.push([
        benchmark.name,
        row.subject,
        row.subjectMs.toFixed(2),
        row.baseline,
        row.baselineMs.toFixed(2),
        `${ratio.toFixed(2)}x`,
        target,
      ]);
    }
  }
  const widths = header.map((cell, index) =>
    Math.max(cell.length, ...lines.map((line) => line[index].length))
  );
  console.log("");
  console.log(formatRow(header, widths));
  for (const line of lines) console.log(formatRow(line, widths));
  console.log(`(median of 50 rounds after 10 warm-up rounds; ${navigator.userAgent})`);
  return allMet;
}

if (import.meta.main) {
  const met = await main();
  if (!met && Deno.args.includes("--strict")) Deno.exit(1);
}
