/**
 * The pattern benchmark on its own: `deno task bench patterns` runs the same measurement
 * (`scripts/bench/patterns.ts`) among the registered benchmarks.
 *
 * Run: `deno run -A scripts/bench_patterns.ts`
 *
 * @module
 */
import { patternsBenchmark } from "./bench/patterns.ts";

console.log(`${patternsBenchmark.name}: ${patternsBenchmark.describe()}`);
for (const row of await patternsBenchmark.run()) {
  if (row.kind === "figure") console.log(`  ${row.name}: ${row.value.toFixed(2)} ${row.unit}`);
}
