/**
 * Pattern benchmark: admitted `pattern`s validating 100 KiB adversarial strings through
 * compiled validators (RE2), for the ReDoS patterns, real servers' patterns and
 * fast-check-generated patterns; and, for scale, what V8's backtracking `RegExp` takes on the
 * ReDoS patterns with inputs a few hundred times shorter. Target: every admitted pattern under
 * 50 ms per 100 KiB validation.
 *
 * Then the same cases through `connect()`: a hostile server (`fixtures/pattern_server.ts`, the official
 * SDK server in a Worker on loopback) declares each pattern in a tool's `outputSchema` and
 * returns an adversarial string as `structuredContent`; each call's elapsed time is reported
 * against its deadline (target: within deadline + 10%, a ratio under 1.1). A 100 KiB string is
 * over the default 64 KiB result budget (`maxResultBytes`, which a host may only lower), so
 * those calls end `mcp_result_too_large` before any matching; the cases are run again at
 * {@link FITTING_SIZE}, which fits and is validated.
 *
 * @module
 */
import fc from "fast-check";
import { RE2JS } from "re2js";
import { checkSchema, compileSchema } from "../../mod.ts";
import {
  CALL_DEADLINE_MS,
  type CallOutcome,
  callPatternCases,
  connectCases,
  FITTING_SIZE,
  real,
  redos,
  shapes,
} from "../../fixtures/pattern_cases.ts";
import { type Benchmark, type BenchRow, median, quantile } from "./types.ts";

const SIZE = 100 * 1024;
const TARGET_MS = 50;

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
    // The engine is what is timed: the work budget would refuse the largest programs unrun.
    maxEvaluations: Infinity,
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

/**
 * The slowest first validation of a freshly compiled validator for `pattern` over every 100
 * KiB shape: what a tool's first result costs, before RE2 has cached any state of its program.
 */
function worstFirstMs(pattern: string): number {
  return Math.max(...shapes.map(([, make]) => {
    const text = make(SIZE);
    const validate = compileSchema({ type: "string", pattern }, {
      valueLimits: { maxBytes: 4 * SIZE },
      maxEvaluations: Infinity,
    });
    const start = performance.now();
    validate(text);
    return performance.now() - start;
  }));
}

/**
 * The three ReDoS patterns the budget refuses, spelt for RE2 exactly as sluice's translation
 * would (`\d` is `[0-9]` in ECMA-262 too), to measure what admitting them would cost.
 */
const OVER_BUDGET: Readonly<Record<string, string>> = {
  "\\d{1,200}\\d{1,200}\\d{1,200}\\d{1,200}x": "[0-9]{1,200}[0-9]{1,200}[0-9]{1,200}[0-9]{1,200}x",
  "a{0,500}a{0,500}a{0,500}b": "a{0,500}a{0,500}a{0,500}b",
  "a*a{0,100}a{0,100}b": "a*a{0,100}a{0,100}b",
};

/**
 * A refused pattern compiled by RE2 with no budget: its instruction count, the slowest first
 * test of a fresh matcher and the slowest warm test (median of 3) over every 100 KiB shape and
 * its own stalling input.
 */
function overBudgetFigures(
  pattern: string,
  own: (n: number) => string,
): { instructions: number; firstMs: number; warmMs: number } {
  const source = OVER_BUDGET[pattern];
  const program = (RE2JS.compile(source) as unknown as { re2Input: { prog: { inst: unknown[] } } })
    .re2Input.prog.inst.length;
  let firstMs = 0;
  let warmMs = 0;
  for (const text of [own(SIZE), ...shapes.map(([, make]) => make(SIZE))]) {
    const fresh = RE2JS.compile(source);
    const start = performance.now();
    fresh.test(text);
    firstMs = Math.max(firstMs, performance.now() - start);
    const times: number[] = [];
    for (let round = 0; round < 3; round++) {
      const again = performance.now();
      fresh.test(text);
      times.push(performance.now() - again);
    }
    warmMs = Math.max(warmMs, median(times));
  }
  return { instructions: program, firstMs, warmMs };
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
    `median of 5 validations each; target < ${TARGET_MS} ms; then the same cases through ` +
    `connect() against a hostile loopback server (target: elapsed / deadline < 1.1)`,
  run: async () => {
    const rows: BenchRow[] = [];
    const all: number[] = [];
    const figure = (name: string, value: number, unit = "ms") =>
      rows.push({ kind: "figure", name, value, unit });
    for (const [pattern, make] of redos) {
      const checked = checkSchema({ type: "string", pattern });
      if (!checked.ok) {
        // Refused before any input is read; what admitting it (a larger budget) would cost.
        const over = overBudgetFigures(pattern, make);
        figure(
          `/${pattern}/ refused: ${checked.problems[0].code}; RE2 program`,
          over.instructions,
          "instructions",
        );
        figure(`  if admitted: first test of a fresh matcher, 100 KiB, worst input`, over.firstMs);
        figure(`  if admitted: warm test, 100 KiB, worst input`, over.warmMs);
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
    // The JIT is warm by now, as in a host after its first calls; the validator is not.
    const firsts = [...redos, ...real.map(([, pattern]) => [pattern] as const)]
      .filter(([pattern]) => checkSchema({ type: "string", pattern }).ok)
      .map(([pattern]) => worstFirstMs(pattern));
    figure(
      `ReDoS + real: a fresh validator's first validation, worst input, max`,
      Math.max(...firsts),
    );
    all.push(...firsts);
    await connectFigures(figure, generated);
    // Other processes on the machine slow every figure above; say how busy it was.
    figure("load average (1 min) at the end", Deno.loadavg()[0], "");
    figure(
      `validations over ${TARGET_MS} ms`,
      all.filter((ms) => ms >= TARGET_MS).length,
      "patterns",
    );
    return rows;
  },
};

/**
 * The `connect()` half: every case at 100 KiB and at {@link FITTING_SIZE}, and the generated
 * patterns at {@link FITTING_SIZE} (one shape each, in turn; a second connection, as the
 * cases together are more tools than one listing may hold).
 */
async function connectFigures(
  figure: (name: string, value: number, unit?: string) => void,
  generated: readonly string[],
): Promise<void> {
  const ratio = (outcomes: readonly CallOutcome[]) =>
    Math.max(...outcomes.map((outcome) => outcome.elapsedMs)) / CALL_DEADLINE_MS;
  const codes = (outcomes: readonly CallOutcome[]) => {
    const counts = new Map<string, number>();
    for (const { code } of outcomes) counts.set(code, (counts.get(code) ?? 0) + 1);
    return [...counts].map(([code, count]) => `${count} ${code}`).join(", ");
  };
  for (const size of [SIZE, FITTING_SIZE]) {
    const cases = connectCases(size);
    const outcomes = await callPatternCases(cases);
    const label = `connect() ${size / 1024} KiB`;
    for (const [pattern] of redos) {
      const own = outcomes.filter((_, index) => cases[index].pattern === pattern);
      figure(`${label} /${pattern}/: worst elapsed / deadline (${codes(own)})`, ratio(own), "x");
    }
    figure(`${label} all ${cases.length} cases: worst elapsed / deadline`, ratio(outcomes), "x");
    figure(`${label} all ${cases.length} cases: worst elapsed`, ratio(outcomes) * CALL_DEADLINE_MS);
    figure(`${label} outcomes: ${codes(outcomes)}`, outcomes.length, "calls");
  }
  const cases = generated.map((pattern, index) => ({
    pattern,
    value: shapes[index % shapes.length][1](FITTING_SIZE),
  }));
  const outcomes = await callPatternCases(cases);
  figure(
    `connect() ${FITTING_SIZE / 1024} KiB generated patterns: worst elapsed / deadline ` +
      `(${codes(outcomes)})`,
    ratio(outcomes),
    "x",
  );
  figure(`connect() call deadline`, CALL_DEADLINE_MS, "ms");
}
