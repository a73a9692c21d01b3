/**
 * Runs the official JSON-Schema-Test-Suite (draft 2020-12, vendored in
 * `fixtures/json-schema-test-suite/`) through sluice's `compileSchema` and counts, per suite
 * file (one keyword, or a group such as `if-then-else`): the cases whose schema the profile
 * refuses, and of the admitted ones how many the compiled validator answers as the suite
 * expects. `tests/schema/suite_test.ts` checks these counts against `docs/schema-profile.md`.
 *
 * Run: `deno run -A scripts/schema_suite.ts` (prints the table the docs page holds).
 *
 * @module
 */
import { checkSchema, compileSchema } from "../mod.ts";

/** The counts of one suite file. */
export interface SuiteCounts {
  /** The file's name without `.json`, e.g. `if-then-else` or `optional/ecmascript-regex`. */
  readonly file: string;
  /** Test cases whose schema the profile admits and whose answer matches the suite. */
  readonly passed: number;
  /** Test cases whose schema the profile admits but whose answer differs. */
  readonly failed: number;
  /** Test cases whose schema the profile refuses (any keyword of it). */
  readonly refused: number;
}

interface SuiteGroup {
  readonly description: string;
  readonly schema: unknown;
  readonly tests: readonly {
    readonly description: string;
    readonly data: unknown;
    readonly valid: boolean;
  }[];
}

const SUITE = new URL("../fixtures/json-schema-test-suite/draft2020-12/", import.meta.url);

/** The suite files, in name order, each as its path below `draft2020-12/` without `.json`. */
export function suiteFiles(): string[] {
  const files = [...Deno.readDirSync(SUITE)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
    .map((entry) => entry.name.slice(0, -5));
  return [...files.sort(), "optional/ecmascript-regex"];
}

/** Runs one suite file; `failures` collects `file: group / case` for every wrong answer. */
export function runSuiteFile(file: string, failures: string[] = []): SuiteCounts {
  const groups: SuiteGroup[] = JSON.parse(Deno.readTextFileSync(new URL(`${file}.json`, SUITE)));
  let passed = 0;
  let failed = 0;
  let refused = 0;
  for (const group of groups) {
    if (!checkSchema(group.schema).ok) {
      refused += group.tests.length;
      continue;
    }
    const validate = compileSchema(group.schema);
    for (const test of group.tests) {
      let valid: boolean | undefined;
      try {
        valid = validate(test.data).valid;
      } catch {
        valid = undefined;
      }
      if (valid === test.valid) {
        passed++;
      } else {
        failed++;
        failures.push(`${file}: ${group.description} / ${test.description}`);
      }
    }
  }
  return { file, passed, failed, refused };
}

/** Runs every suite file. */
export function runSuite(failures: string[] = []): SuiteCounts[] {
  return suiteFiles().map((file) => runSuiteFile(file, failures));
}

/** The counts as the Markdown table rows the docs page holds. */
export function suiteTable(counts: readonly SuiteCounts[]): string {
  const rows = counts.map(({ file, passed, failed, refused }) =>
    `| \`${file}\` | ${passed} | ${failed} | ${refused} |`
  );
  return ["| Suite file | Passed | Failed | Refused by the profile |", "| --- | --- | --- | --- |"]
    .concat(rows).join("\n");
}

if (import.meta.main) {
  const failures: string[] = [];
  console.log(suiteTable(runSuite(failures)));
  for (const failure of failures) console.error(`failed: ${failure}`);
}
