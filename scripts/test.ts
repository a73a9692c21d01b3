/**
 * The project's test command (`deno task test`): format check, lint, type check, doc lint, the
 * type check of every example (JSDoc, README.md, docs/), the tests, the runtime smoke (Bun and
 * Workers) and a publish dry run, in that order. Every step runs even when an earlier one fails,
 * so one run shows every problem. The last line printed is `N passed, N failed`, taken from
 * Deno's own test summary; the exit code is non-zero when any step failed.
 *
 * @module
 */

const deno = Deno.execPath();

/** Every published entry point but mod.ts, read from deno.json `exports`. */
const ENTRIES: string[] = Object.values(
  (JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url))) as {
    exports: Record<string, string>;
  }).exports,
).filter((entry) => entry !== "./mod.ts");

/** README.md and every page of docs/, whose TypeScript examples are type-checked. */
const PAGES: string[] = [
  "README.md",
  ...[...Deno.readDirSync(new URL("../docs/", import.meta.url))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort(),
];

interface Step {
  name: string;
  args: string[];
  /** Set for the step whose output carries Deno's test summary. */
  summary?: boolean;
}

const steps: Step[] = [
  { name: "fmt", args: ["fmt", "--check"] },
  { name: "lint", args: ["lint"] },
  {
    name: "check",
    args: ["check", "mod.ts", ...ENTRIES, "cli.ts", "src/", "tests/", "scripts/", "fixtures/"],
  },
  { name: "doc lint", args: ["doc", "--lint", "mod.ts", ...ENTRIES] },
  // Examples are type-checked, not run: most need a server; the tests exercise the calls.
  {
    name: "examples",
    args: ["check", "--doc-only", "mod.ts", ...ENTRIES, "cli.ts", "src/", ...PAGES],
  },
  { name: "test", args: ["test", "-A", "--parallel", "tests/"], summary: true },
  { name: "smoke", args: ["run", "-A", "scripts/smoke/run.ts"] },
  { name: "publish dry run", args: ["publish", "--dry-run", "--allow-dirty"] },
];

const failedSteps: string[] = [];
let passed = 0;
let failed = 0;
let summaryFound = false;

for (const step of steps) {
  console.log(`\n=== ${step.name}: deno ${step.args.join(" ")}`);
  const child = new Deno.Command(deno, {
    args: step.args,
    stdout: step.summary ? "piped" : "inherit",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  let output = "";
  if (step.summary && child.stdout) {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      await Deno.stdout.write(chunk);
      output += decoder.decode(chunk, { stream: true });
    }
  }
  const status = await child.status;
  if (!status.success) failedSteps.push(step.name);
  if (step.summary) {
    // Deno ends a test run with e.g. "ok | 12 passed (3 steps) | 0 failed (4s)".
    const match = /(\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(
      output.split("\n").filter((line) => / passed.*\| .*failed/.test(line)).at(-1) ?? "",
    );
    if (match) {
      summaryFound = true;
      passed = Number(match[1]);
      failed = Number(match[2]);
    }
  }
}

console.log("");
if (failedSteps.length > 0) console.log(`failed steps: ${failedSteps.join(", ")}`);
if (!summaryFound) {
  console.log("no test summary found in Deno's output");
  failed = Math.max(failed, 1);
}
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failedSteps.length > 0 || !summaryFound ? 1 : 0);
