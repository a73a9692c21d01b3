import assert from "node:assert/strict";
import { runSuite, type SuiteCounts, suiteTable } from "../../fixtures/schema_suite.ts";
import { KEYWORDS } from "../../src/schema/keywords.ts";

const page = Deno.readTextFileSync(new URL("../../docs/schema-profile.md", import.meta.url));
const failures: string[] = [];
const counts: SuiteCounts[] = runSuite(failures);

Deno.test("every JSON-Schema-Test-Suite case the profile admits passes", () => {
  assert.deepEqual(failures, []);
});

Deno.test("the profile page states the suite's real counts", () => {
  const start = page.indexOf("<!-- suite-table:start -->\n") +
    "<!-- suite-table:start -->\n".length;
  const table = page.slice(start, page.indexOf("\n<!-- suite-table:end -->"));
  // Compared cell by cell: `deno fmt` pads the page's table.
  const cells = (text: string) =>
    text.trim().split("\n").slice(2).map((line) =>
      line.split("|").slice(1, -1).map((cell) => cell.trim())
    );
  assert.deepEqual(cells(table), cells(suiteTable(counts)));
  const sum = (key: "passed" | "failed" | "refused") =>
    counts.reduce((total, row) => total + row[key], 0);
  assert.ok(
    page.includes(
      `Total: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("refused")} refused`,
    ),
  );
});

/** The suite file that tests each keyword this profile admits on the suite's evidence. */
const EVIDENCE: Readonly<Record<string, string>> = {
  $anchor: "anchor",
  if: "if-then-else",
  then: "if-then-else",
  else: "if-then-else",
  dependentRequired: "dependentRequired",
  dependentSchemas: "dependentSchemas",
  propertyNames: "propertyNames",
  prefixItems: "prefixItems",
  contains: "contains",
  minContains: "minContains",
  maxContains: "maxContains",
  unevaluatedProperties: "unevaluatedProperties",
  unevaluatedItems: "unevaluatedItems",
  patternProperties: "patternProperties",
  pattern: "pattern",
  minProperties: "minProperties",
  maxProperties: "maxProperties",
};

Deno.test("each keyword admitted on the suite's evidence has passing cases and no failure", () => {
  for (const [keyword, file] of Object.entries(EVIDENCE)) {
    assert.equal(KEYWORDS[keyword].admitted, true, keyword);
    const row = counts.find((entry) => entry.file === file)!;
    assert.ok(row.passed > 0 && row.failed === 0, `${keyword}: ${JSON.stringify(row)}`);
  }
  // The suite's ECMA-262 regular expression cases hold on RE2 too.
  const regex = counts.find((entry) => entry.file === "optional/ecmascript-regex")!;
  assert.deepEqual([regex.failed, regex.refused], [0, 0]);
});

Deno.test("every refused keyword says why", () => {
  for (const [keyword, rule] of Object.entries(KEYWORDS)) {
    if (!rule.admitted) assert.ok(rule.reason.length > 10, keyword);
  }
});
