/**
 * The official MCP conformance suite against sluice's `connect()`: both pinned runner versions
 * (`scripts/conformance_runner.ts`) drive `scripts/conformance_client.ts`, scenario by scenario,
 * at every protocol version each scenario names that sluice speaks, a few at a time. The
 * expected results live in `fixtures/conformance/expected.json`; `tests/conformance_test.ts`
 * compares a run with them exactly.
 *
 * ```
 * deno run -A scripts/conformance.ts           # run, print the table, exit 1 on a difference
 * deno run -A scripts/conformance.ts --write   # run and record the results in the file
 * ```
 *
 * `--write` keeps every `not_applicable` reason and note, and records new scenarios of a new
 * pin as run; mark the ones a tools-only client cannot pass as not applicable by hand.
 *
 * @module
 */
import { SUITE_VERSIONS, type SuiteVersion } from "./conformance_runner.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const RUNNER = `${ROOT}scripts/conformance_runner.ts`;
const CLIENT = `${ROOT}scripts/conformance_client.ts`;

/** The expected-results file. */
export const EXPECTED_FILE = `${ROOT}fixtures/conformance/expected.json`;

/**
 * Protocol versions sluice speaks, in the order runs are listed. `draft` is how the stable
 * suite (0.1.16) names the revision that became 2026-07-28; only its `auth/*` scenarios use it.
 */
export const SPOKEN_VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28", "draft"] as const;

/** One run's outcome: no failing or warning check and the runner exited 0, or not. */
export type RunStatus = "pass" | "fail";

/** What the file says about one scenario of one suite version. */
export type ScenarioExpectation =
  | {
    /** Why a tools-only HTTP client on `connect()` does not run it. */
    readonly not_applicable: string;
  }
  | {
    /** Per protocol version the scenario ran at. */
    readonly runs: Readonly<Record<string, RunStatus>>;
    /** Per failing run, its failing checks (`id: name`), sorted. */
    readonly failing?: Readonly<Record<string, readonly string[]>>;
    /** Why it fails today, and who is changing that. */
    readonly note?: string;
  };

/** The whole file: per suite version, per scenario (every client scenario the version lists). */
export type ExpectedResults = Record<SuiteVersion, Record<string, ScenarioExpectation>>;

/** One run of one scenario at one protocol version. */
export interface RunResult {
  readonly status: RunStatus;
  /** Failing and warning checks, `id: name`, sorted (plus `runner exit N` when only that). */
  readonly failing: readonly string[];
  /** The failing checks' messages and the client's output, for a person reading a failure. */
  readonly detail: string;
}

/** A run to make. */
export interface PlannedRun {
  readonly suite: SuiteVersion;
  readonly scenario: string;
  readonly protocolVersion: string;
}

interface Check {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly errorMessage?: string;
}

const decoder = new TextDecoder();

/**
 * Every client scenario a suite version lists, with the versions it names
 * (`initialize [2025-06-18,2025-11-25]`).
 *
 * @param suite the pinned suite version
 */
export async function listClientScenarios(suite: SuiteVersion): Promise<Map<string, string[]>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", RUNNER, suite, "list", "--client"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`list --client (${suite}) failed: ${decoder.decode(output.stderr)}`);
  }
  const scenarios = new Map<string, string[]>();
  for (const line of decoder.decode(output.stdout).split("\n")) {
    const match = /^\s+- (\S+) \[([^\]]*)\]$/.exec(line);
    if (match) scenarios.set(match[1], match[2].split(","));
  }
  return scenarios;
}

/** The protocol versions a scenario that lists `versions` runs at: those sluice speaks. */
export function runVersions(versions: readonly string[]): string[] {
  return SPOKEN_VERSIONS.filter((version) => versions.includes(version));
}

/**
 * Runs one scenario once: the runner starts its server on loopback and our client against it;
 * reads the checks the runner saved.
 *
 * @param run suite version, scenario, protocol version
 * @param timeoutMs the runner's client timeout
 */
export async function runScenario(run: PlannedRun, timeoutMs = 30_000): Promise<RunResult> {
  const out = await Deno.makeTempDir({ prefix: "sluice-conformance-" });
  try {
    const command = `${Deno.execPath()} run -A --quiet ${CLIENT}`;
    // The runner splits the command at spaces and runs it through a shell.
    if (/\s/.test(Deno.execPath()) || /\s/.test(CLIENT)) {
      throw new Error(`paths with spaces cannot be passed to the runner: ${command}`);
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        RUNNER,
        run.suite,
        "client",
        "--command",
        command,
        "--scenario",
        run.scenario,
        "--spec-version",
        run.protocolVersion,
        "--timeout",
        String(timeoutMs),
        "-o",
        out,
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const runnerOutput = decoder.decode(output.stdout) + decoder.decode(output.stderr);
    // The runner saves into <out>/<scenario>-<time>/ (`auth/x` makes <out>/auth/x-<time>/).
    const parent = scenarioParent(out, run.scenario);
    const [dir] = await Array.fromAsync(Deno.readDir(parent)).catch(() => []);
    const saved = dir === undefined ? undefined : await Deno.readTextFile(
      `${parent}/${dir.name}/checks.json`,
    ).catch(() => undefined);
    if (dir === undefined || saved === undefined) {
      // The runner stopped before saving its checks.
      return { status: "fail", failing: [`runner exit ${output.code}`], detail: runnerOutput };
    }
    const read = (name: string) => Deno.readTextFile(`${parent}/${dir.name}/${name}`);
    const checks = JSON.parse(saved) as Check[];
    const bad = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
    const failing = [...new Set(bad.map((check) => `${check.id}: ${check.name}`))].sort();
    if (!output.success && failing.length === 0) failing.push(`runner exit ${output.code}`);
    const detail = [
      ...bad.map((check) => `${check.status} ${check.name}: ${check.errorMessage ?? ""}`),
      `client stdout: ${(await read("stdout.txt")).slice(0, 4000)}`,
      `client stderr: ${(await read("stderr.txt")).slice(0, 4000)}`,
    ].join("\n");
    return { status: failing.length === 0 ? "pass" : "fail", failing, detail };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

/** The directory the runner saves a scenario's results under: `auth/x` nests one level. */
function scenarioParent(out: string, scenario: string): string {
  const slash = scenario.lastIndexOf("/");
  return slash < 0 ? out : `${out}/${scenario.slice(0, slash)}`;
}

/**
 * Runs `runs` with at most `concurrency` at a time; results in the same order.
 *
 * @param runs the runs to make
 * @param concurrency how many runners at once
 */
export async function runAll(
  runs: readonly PlannedRun[],
  concurrency = 3,
): Promise<RunResult[]> {
  const results: RunResult[] = new Array(runs.length);
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const index = next++;
      results[index] = await runScenario(runs[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  return results;
}

/** Reads the expected-results file. */
export async function readExpected(): Promise<ExpectedResults> {
  return JSON.parse(await Deno.readTextFile(EXPECTED_FILE)) as ExpectedResults;
}

/**
 * The runs the file asks for: every scenario that is not `not_applicable`, at every protocol
 * version it lists that sluice speaks. A scenario the file does not know yet is run too.
 *
 * @param expected the file
 * @param listed each suite version's scenarios, as its runner lists them
 */
export function plannedRuns(
  expected: ExpectedResults,
  listed: ReadonlyMap<SuiteVersion, ReadonlyMap<string, string[]>>,
): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (const suite of SUITE_VERSIONS) {
    for (const [scenario, versions] of listed.get(suite) ?? []) {
      const entry = expected[suite]?.[scenario];
      if (entry !== undefined && "not_applicable" in entry) continue;
      for (const protocolVersion of runVersions(versions)) {
        runs.push({ suite, scenario, protocolVersion });
      }
    }
  }
  return runs;
}

/**
 * What the file would say after these runs: the same `not_applicable` entries and notes, the
 * runs and failing checks as observed, scenarios in the runner's order.
 *
 * @param expected the current file
 * @param listed each suite version's scenarios
 * @param runs the runs made
 * @param results their results
 */
export function observedResults(
  expected: ExpectedResults,
  listed: ReadonlyMap<SuiteVersion, ReadonlyMap<string, string[]>>,
  runs: readonly PlannedRun[],
  results: readonly RunResult[],
): ExpectedResults {
  const observed = {} as ExpectedResults;
  for (const suite of SUITE_VERSIONS) {
    const entries: Record<string, ScenarioExpectation> = {};
    for (const scenario of listed.get(suite)?.keys() ?? []) {
      const before = expected[suite]?.[scenario];
      if (before !== undefined && "not_applicable" in before) {
        entries[scenario] = before;
        continue;
      }
      const status: Record<string, RunStatus> = {};
      const failing: Record<string, readonly string[]> = {};
      runs.forEach((run, index) => {
        if (run.suite !== suite || run.scenario !== scenario) return;
        status[run.protocolVersion] = results[index].status;
        if (results[index].status === "fail") failing[run.protocolVersion] = results[index].failing;
      });
      entries[scenario] = {
        runs: status,
        ...(Object.keys(failing).length > 0 ? { failing } : {}),
        ...(before?.note !== undefined ? { note: before.note } : {}),
      };
    }
    observed[suite] = entries;
  }
  return observed;
}

/** A one-line-per-run table of results. */
export function formatTable(runs: readonly PlannedRun[], results: readonly RunResult[]): string {
  return runs.map((run, index) => {
    const result = results[index];
    const failing = result.status === "fail" ? `  (${result.failing.join("; ")})` : "";
    return `${run.suite.padEnd(15)} ${run.scenario.padEnd(36)} ${run.protocolVersion}  ` +
      `${result.status}${failing}`;
  }).join("\n");
}

if (import.meta.main) {
  const expected = await readExpected();
  const listed = new Map<SuiteVersion, Map<string, string[]>>();
  for (const suite of SUITE_VERSIONS) listed.set(suite, await listClientScenarios(suite));
  const runs = plannedRuns(expected, listed);
  const results = await runAll(runs);
  console.log(formatTable(runs, results));
  const observed = observedResults(expected, listed, runs, results);
  if (Deno.args.includes("--write")) {
    await Deno.writeTextFile(EXPECTED_FILE, JSON.stringify(observed, null, 2) + "\n");
    console.log(`written: ${EXPECTED_FILE}`);
  } else if (JSON.stringify(observed) !== JSON.stringify(expected)) {
    console.log("the results differ from fixtures/conformance/expected.json");
    Deno.exit(1);
  }
}
