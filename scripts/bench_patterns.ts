/**
 * Measures what the pattern policy of `sluice.schema/v1` is about: the matching time of refused
 * and admitted patterns on adversarial strings, first raw (`new RegExp(pattern, "u").test`),
 * then through a compiled validator, which tests a pattern on at most `PATTERN_INPUT_LIMIT`
 * code points. Times depend on the machine: read the growth between lengths.
 *
 * Run: `deno run -A scripts/bench_patterns.ts`
 *
 * @module
 */
import { checkSchema, compileSchema } from "../mod.ts";

function time(pattern: string, text: string): number {
  const regex = new RegExp(pattern, "u");
  const start = performance.now();
  regex.test(text);
  return performance.now() - start;
}

function verdict(pattern: string): string {
  const result = checkSchema({ type: "string", pattern });
  return result.ok ? "admitted" : `refused (${result.problems[0].code})`;
}

interface Case {
  label: string;
  pattern: string;
  input: (n: number) => string;
  lengths: number[];
}

const cases: Case[] = [
  {
    label: "classic nested quantifier",
    pattern: "^(a+)+$",
    input: (n) => "a".repeat(n) + "!",
    lengths: [16, 20, 22, 24],
  },
  {
    label: "overlapping alternation",
    pattern: "^(a|aa)+$",
    input: (n) => "a".repeat(n) + "!",
    lengths: [20, 25, 28, 30],
  },
  {
    label: "kubernetes field selector (separated repetition)",
    pattern: "^[.\\-A-Za-z0-9]+([=!,]{1,2}[./\\-A-Za-z0-9]+)+$",
    input: (n) => "a" + "=a".repeat(n / 2) + "=",
    lengths: [1_024, 8_192, 65_536],
  },
  {
    label: "zod email (separated repetition)",
    pattern:
      "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
    input: (n) => "a.".repeat(n / 2) + "@",
    lengths: [1_024, 8_192, 65_536],
  },
  {
    label: "unanchored trailing class (polynomial, admitted)",
    pattern: "\\s+$",
    input: (n) => " ".repeat(n) + "x",
    lengths: [4_096, 16_384, 65_536],
  },
];

console.log("pattern policy benchmark (ms per single test() call)");
for (const { label, pattern, input, lengths } of cases) {
  const times = lengths.map((n) => time(pattern, input(n)));
  const cells = lengths.map((n, i) => `n=${n}: ${times[i].toFixed(2)}`).join("  ");
  console.log(`${label}\n  /${pattern}/u ${verdict(pattern)}\n  ${cells}`);
}

console.log("\nthrough compileSchema (ms per validation, 64 KiB value budget)");
for (const { label, pattern, input } of cases.slice(2)) {
  const validate = compileSchema({ type: "string", pattern });
  const text = input(60_000);
  const start = performance.now();
  const { valid } = validate(text);
  const elapsed = performance.now() - start;
  console.log(`  ${label}: n=60000 ${elapsed.toFixed(2)} (valid: ${valid})`);
}
