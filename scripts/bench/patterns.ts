/**
 * Pattern benchmark: admitted `pattern`s validating 100 KiB adversarial strings through
 * compiled validators (RE2), for the ReDoS patterns, real servers' patterns and
 * fast-check-generated patterns; and, for scale, what V8's backtracking `RegExp` takes on the
 * ReDoS patterns with inputs a few hundred times shorter. Target: every admitted pattern under
 * 50 ms per 100 KiB validation.
 *
 * @module
 */
import fc from "fast-check";
import { checkSchema, compileSchema } from "../../mod.ts";
import { type Benchmark, type BenchRow, median, quantile } from "./types.ts";

const SIZE = 100 * 1024;
const TARGET_MS = 50;

/** Strings of `SIZE` characters on which backtracking engines stall or DFAs grow. */
const shapes: readonly [string, (n: number) => string][] = [
  ["a*n", (n) => "a".repeat(n)],
  ["a*n+!", (n) => "a".repeat(n - 1) + "!"],
  ["1*n+y", (n) => "1".repeat(n - 1) + "y"],
  ["(111x)*", (n) => "111x".repeat(n / 4)],
  ["(ab )*", (n) => "ab ".repeat(Math.floor(n / 3))],
  ["(a.)*@", (n) => "a.".repeat(n / 2 - 1) + "a@"],
  ["(=a)*=", (n) => "a" + "=a".repeat(n / 2 - 1) + "="],
  ["mixed", (n) => Array.from({ length: n }, (_, i) => "a1 .-_=@!é"[(i * 7919) % 10]).join("")],
];

/** The ReDoS cases and the classic ones, with the input that stalls a backtracker. */
const redos: readonly [string, (n: number) => string][] = [
  ["\\d{1,200}\\d{1,200}\\d{1,200}\\d{1,200}x", (n) => "1".repeat(n)],
  ["a{0,500}a{0,500}a{0,500}b", (n) => "a".repeat(n)],
  ["a*a{0,100}a{0,100}b", (n) => "a".repeat(n)],
  ["(\\w+\\s?)+$", (n) => "a".repeat(n) + "!"],
  ["^(a|aa)+$", (n) => "a".repeat(n) + "!"],
  ["^(a+)+$", (n) => "a".repeat(n) + "!"],
];

/** Patterns published by real servers (kubernetes-mcp-server, zod 4 through fastmcp). */
const real: readonly [string, string][] = [
  ["kubernetes field selector", "^[.\\-A-Za-z0-9]+([=!,]{1,2}[./\\-A-Za-z0-9]+)+$"],
  [
    "zod email",
    "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
  ],
  ["zod base64", "^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$"],
  ["unanchored trailing class", "\\s+$"],
  // Near the program budget (256 instructions): the slowest kind of admitted pattern.
  [
    "hostname labels {0,61} (255 instructions)",
    "^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$",
  ],
  ["\\w{200}$ (203 instructions)", "\\w{200}$"],
  ["(?:a|1){80}$", "(?:a|1){80}$"],
];

/** Generated patterns: the fragments of the old policy's fuzzer, seeded. */
function generatedPatterns(count: number): string[] {
  const fragments = [..."ab-.,()|*+?^$".split(""), "\\d", "\\w", "\\s", "(?:", "[^a]", "[ab]"]
    .concat(["{2}", "{1,}", "{1,3}", "{0,200}", ")+", ")*", "a+", "a*", "[a-]+", "\\p{L}"]);
  const sample = fc.sample(
    fc.array(fc.constantFrom(...fragments), { minLength: 3, maxLength: 14 }).map((parts) =>
      parts.join("")
    ),
    { numRuns: count * 25, seed: 7 },
  );
  const admitted = [...new Set(sample)].filter((pattern) =>
    checkSchema({ type: "string", pattern }).ok
  );
  return admitted.slice(0, count);
}

/** Median milliseconds of `rounds` validations of `text` by a validator for `pattern`. */
function validationMs(pattern: string, text: string, rounds: number): number {
  const validate = compileSchema({ type: "string", pattern }, {
    valueLimits: { maxBytes: 4 * SIZE },
  });
  validate(text);
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    validate(text);
    times.push(performance.now() - start);
  }
  return median(times);
}

/** The slowest 100 KiB shape for `pattern`, in median milliseconds. */
function worstShapeMs(pattern: string, rounds: number): number {
  return Math.max(...shapes.map(([, make]) => validationMs(pattern, make(SIZE), rounds)));
}

/** Milliseconds of one backtracking `RegExp.test` (V8), for scale. */
function backtrackingMs(pattern: string, text: string): number {
  const regex = new RegExp(pattern, "u");
  const start = performance.now();
  regex.test(text);
  return performance.now() - start;
}

/** The registered benchmark. */
export const patternsBenchmark: Benchmark = {
  name: "patterns",
  describe: () =>
    `admitted patterns on ${SIZE / 1024} KiB adversarial strings (${shapes.length} shapes), ` +
    `median of 5 validations each; target < ${TARGET_MS} ms`,
  run: () => {
    const rows: BenchRow[] = [];
    const all: number[] = [];
    const figure = (name: string, value: number, unit = "ms") =>
      rows.push({ kind: "figure", name, value, unit });
    for (const [pattern, make] of redos) {
      const checked = checkSchema({ type: "string", pattern });
      if (!checked.ok) {
        // Refused before any input is read: say so instead of timing.
        figure(`/${pattern}/ refused: ${checked.problems[0].code}`, 0, "-");
        continue;
      }
      const ms = Math.max(validationMs(pattern, make(SIZE), 5), worstShapeMs(pattern, 5));
      all.push(ms);
      figure(`RE2 /${pattern}/ 100 KiB, worst input`, ms);
    }
    // For scale, V8's backtracking engine on inputs thousands of times shorter: each added
    // character multiplies the time (the first pattern grows about as n^4).
    for (const [index, length] of [[0, 50], [3, 20], [4, 30], [5, 20]]) {
      const [pattern, make] = redos[index];
      figure(
        `V8 backtracking /${pattern}/ on ${length} chars`,
        backtrackingMs(pattern, make(length)),
      );
    }
    for (const [label, pattern] of real) {
      const ms = worstShapeMs(pattern, 5);
      all.push(ms);
      figure(`RE2 ${label} 100 KiB, worst input`, ms);
    }
    const generated = generatedPatterns(200);
    const generatedMs = generated.map((pattern) => worstShapeMs(pattern, 3));
    all.push(...generatedMs);
    figure("generated admitted patterns", generated.length, "patterns");
    figure("generated: median of worst inputs", median(generatedMs));
    figure("generated: p99 of worst inputs", quantile(generatedMs, 0.99));
    figure("generated: max of worst inputs", Math.max(...generatedMs));
    figure(`every admitted pattern: max`, Math.max(...all));
    // Other processes on the machine slow every figure above; say how busy it was.
    figure("load average (1 min) at the end", Deno.loadavg()[0], "");
    figure(
      `validations over ${TARGET_MS} ms`,
      all.filter((ms) => ms >= TARGET_MS).length,
      "patterns",
    );
    return Promise.resolve(rows);
  },
};
