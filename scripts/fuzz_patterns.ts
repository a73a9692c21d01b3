/**
 * Fuzzes the pattern policy of `sluice.schema/v1`: generates patterns from regex fragments,
 * keeps those the profile admits, and times each on adversarial strings. A pattern slow on the
 * longest input (over 20 ms) gets its growth exponent fitted over four lengths; above 2.5
 * (quadratic is 2, cubic 3) it is printed as worse than quadratic. Refused patterns are timed
 * on short strings only, to count how many of them really are slow.
 *
 * Run: `deno run -A scripts/fuzz_patterns.ts [seed] [runs]`
 *
 * @module
 */
import fc from "fast-check";
import { checkSchema } from "../mod.ts";

const seed = Number(Deno.args[0] ?? 1);
const runs = Number(Deno.args[1] ?? 80_000);
const fragments = [
  ..."ab-.,()|*+?^$".split(""),
  "\\d",
  "\\w",
  "\\s",
  "(?:",
  "[^a]",
  "[ab]",
  "{2}",
  "{1,}",
  "{1,3}",
  ")+",
  ")*",
  "a+",
  "a*",
  "[a-]+",
];
const patterns = fc.sample(
  fc.array(fc.constantFrom(...fragments), { minLength: 3, maxLength: 12 }).map((parts) =>
    parts.join("")
  ),
  { numRuns: runs, seed },
);
const inputs = (n: number) => [
  "a".repeat(n) + "!",
  "ab".repeat(n / 2) + "!",
  "a-".repeat(n / 2) + "!",
  "a.".repeat(n / 2) + "!",
  " ".repeat(n) + "!",
  "a,".repeat(n / 2),
  "1".repeat(n) + "x",
  "aab".repeat(n / 3) + "!",
];

/** Milliseconds per `test`, averaged over `repeat` runs. */
function time(regex: RegExp, text: string, repeat = 1): number {
  const start = performance.now();
  for (let run = 0; run < repeat; run++) regex.test(text);
  return (performance.now() - start) / repeat;
}

const seen = new Set<string>();
let admitted = 0;
let worseThanQuadratic = 0;
let slowRefused = 0;
for (const pattern of patterns) {
  if (seen.has(pattern)) continue;
  seen.add(pattern);
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "u");
  } catch {
    continue;
  }
  if (!checkSchema({ type: "string", pattern }).ok) {
    if (inputs(26).some((text) => time(regex, text) > 30)) slowRefused++;
    continue;
  }
  admitted++;
  for (const [index, long] of inputs(8_000).entries()) {
    if (time(regex, long) < 20) continue;
    // V8 first interprets a regular expression and compiles it once hot: warm it up, then fit
    // the growth exponent over four lengths (least squares on log-log; 2 is quadratic).
    const lengths = [1_000, 2_000, 4_000, 8_000];
    time(regex, inputs(1_000)[index], 3);
    const points = lengths.map((n) => {
      const runs = [0, 1, 2].map(() => time(regex, inputs(n)[index])).sort((a, b) => a - b);
      return [Math.log2(n), Math.log2(Math.max(runs[1], 0.01))];
    });
    const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
    const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
    const exponent = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0) /
      points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
    if (exponent > 2.5) {
      worseThanQuadratic++;
      console.log(`worse than quadratic: /${pattern}/u growth exponent ${exponent.toFixed(2)}`);
    }
    break;
  }
}
console.log({ seed, unique: seen.size, admitted, worseThanQuadratic, slowRefused });
