/**
 * `deno task bench [name...]`: runs the registered benchmarks (all, or those named) and prints
 * one table of comparisons (median times and ratio against a baseline, with the target where
 * there is one) and one of plain figures. An area adds a benchmark by exporting a
 * {@link Benchmark} from `scripts/bench/<area>.ts` and listing it in `benchmarks` below.
 * `--strict` exits non-zero when a target is missed.
 *
 * @module
 */
import type { Benchmark, BenchOptions, ComparisonRow, FigureRow } from "./bench/types.ts";
import { identityBenchmark } from "./bench/identity.ts";
import { benchApprovals } from "./bench/approvals.ts";
import { stallsBenchmark, writePathBenchmark } from "./bench/write_path.ts";
import { readPathBenchmark } from "./bench/read_path.ts";
import { bodyChunksBenchmark } from "./bench/body_chunks.ts";
import { patternsBenchmark } from "./bench/patterns.ts";
import { connectBenchmark } from "./bench/connect.ts";
import { sseFaultsBenchmark } from "./bench/sse_faults.ts";
import { pinningBenchmark } from "./bench/pinning.ts";
import { validationBenchmark } from "./bench/validation.ts";
import { discoveryBenchmark } from "./bench/discovery.ts";
import { writeAbBenchmark } from "./bench/write_ab.ts";
import { screenBenchmark } from "./bench/screen.ts";
import { writeFleetBenchmark } from "./bench/write_fleet.ts";
import { serveBenchmark } from "./bench/serve.ts";
import { telemetryBenchmark } from "./bench/telemetry.ts";
import { stdioBenchmark } from "./bench/stdio.ts";

/** The approval store's figures (libSQL file, WAL, synchronous=FULL), as a registered bench. */
const approvalsBenchmark: Benchmark = {
  name: "approvals",
  describe: () => "approval store cycles on a libSQL file vs a bare libSQL loop, 200 x 3 rounds",
  run: async () => (await benchApprovals()).map((row) => ({ kind: "figure" as const, ...row })),
};

/** Every registered benchmark, run in this order. */
export const benchmarks: readonly Benchmark[] = [
  identityBenchmark,
  approvalsBenchmark,
  readPathBenchmark,
  writePathBenchmark,
  stallsBenchmark,
  bodyChunksBenchmark,
  patternsBenchmark,
  connectBenchmark,
  discoveryBenchmark,
  sseFaultsBenchmark,
  pinningBenchmark,
  validationBenchmark,
  writeAbBenchmark,
  screenBenchmark,
  writeFleetBenchmark,
  serveBenchmark,
  telemetryBenchmark,
  stdioBenchmark,
];

function printTable(header: readonly string[], lines: readonly string[][]): void {
  const widths = header.map((cell, index) =>
    Math.max(cell.length, ...lines.map((line) => line[index].length))
  );
  const format = (cells: readonly string[]) =>
    cells.map((cell, index) => cell.padEnd(widths[index])).join("  ").trimEnd();
  console.log("");
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

async function main(names: readonly string[], options: BenchOptions): Promise<boolean> {
  const unknown = names.filter((name) => !benchmarks.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown benchmark ${unknown.join(", ")}; known: ${
        benchmarks.map((bench) => bench.name).join(", ")
      }`,
    );
  }
  const selected = names.length === 0
    ? benchmarks
    : benchmarks.filter((bench) => names.includes(bench.name));
  const comparisons: string[][] = [];
  const figures: string[][] = [];
  let allMet = true;
  for (const benchmark of selected) {
    console.log(`${benchmark.name}: ${benchmark.describe()}`);
    for (const row of await benchmark.run(options)) {
      if (row.kind === "figure") {
        const figure: FigureRow = row;
        const digits = Math.abs(figure.value) < 100 ? 2 : 0;
        figures.push([benchmark.name, figure.name, figure.value.toFixed(digits), figure.unit]);
        continue;
      }
      const comparison: ComparisonRow = row;
      const ratio = comparison.ratio ?? comparison.subjectMs / comparison.baselineMs;
      let target = "-";
      if (comparison.targetRatio !== undefined) {
        const met = ratio <= comparison.targetRatio;
        allMet &&= met;
        target = `<= ${comparison.targetRatio}x ${met ? "met" : "MISSED"}`;
      }
      const unit = comparison.unit === undefined ? "" : ` ${comparison.unit}`;
      const range = comparison.ratioRange === undefined
        ? ""
        : ` (${comparison.ratioRange.map((value) => value.toFixed(2)).join("-")})`;
      comparisons.push([
        benchmark.name,
        comparison.subject,
        `${comparison.subjectMs.toFixed(2)}${unit}`,
        comparison.baseline,
        `${comparison.baselineMs.toFixed(2)}${unit}`,
        `${ratio.toFixed(2)}x${range}`,
        target,
      ]);
    }
  }
  if (comparisons.length > 0) {
    printTable(
      ["benchmark", "subject", "ms", "baseline", "ms", "ratio (range)", "target"],
      comparisons,
    );
  }
  if (figures.length > 0) printTable(["benchmark", "figure", "value", "unit"], figures);
  console.log(`\n(${navigator.userAgent}, ${navigator.hardwareConcurrency} cores)`);
  return allMet;
}

if (import.meta.main) {
  const names: string[] = [];
  let against: string | undefined;
  for (let index = 0; index < Deno.args.length; index++) {
    const arg = Deno.args[index];
    if (arg === "--against") against = Deno.args[++index];
    else if (!arg.startsWith("--")) names.push(arg);
  }
  if (Deno.args.includes("--against") && against === undefined) {
    throw new Error("--against needs a directory: another checkout of sluice");
  }
  const met = await main(names, against === undefined ? {} : { against });
  if (!met && Deno.args.includes("--strict")) Deno.exit(1);
}
