/**
 * The official MCP conformance suite (both pinned versions) against `connect()`, compared
 * exactly with `fixtures/conformance/expected.json`: a scenario that starts failing fails this
 * test, and so does one that starts passing until the file says so
 * (`deno run -A fixtures/conformance/suite.ts --write` records a run). Every scenario server is the
 * runner's own, on loopback; the runner stops it and our client process.
 */
import assert from "node:assert/strict";
import { SUITE_VERSIONS, type SuiteVersion } from "../fixtures/conformance/runner.ts";
import {
  formatTable,
  listClientScenarios,
  observedResults,
  plannedRuns,
  readExpected,
  runAll,
} from "../fixtures/conformance/suite.ts";

Deno.test("conformance: the file names every client scenario of each pinned suite, in order", async () => {
  const expected = await readExpected();
  assert.deepEqual(Object.keys(expected), [...SUITE_VERSIONS]);
  for (const suite of SUITE_VERSIONS) {
    const listed = await listClientScenarios(suite);
    assert.ok(listed.size > 0, `${suite} lists client scenarios`);
    assert.deepEqual(Object.keys(expected[suite]), [...listed.keys()], suite);
  }
});

Deno.test("conformance: every applicable scenario's results are exactly the file's", async () => {
  const expected = await readExpected();
  const listed = new Map<SuiteVersion, Map<string, string[]>>();
  for (const suite of SUITE_VERSIONS) listed.set(suite, await listClientScenarios(suite));
  const runs = plannedRuns(expected, listed);
  // Both suites' tools scenarios, each at every protocol version sluice speaks.
  assert.ok(runs.length >= 18, `${runs.length} runs planned`);
  const results = await runAll(runs);
  const observed = observedResults(expected, listed, runs, results);
  const differing = runs.flatMap((run, index) => {
    const before = expected[run.suite][run.scenario];
    const was = before !== undefined && "runs" in before
      ? before.runs[run.protocolVersion]
      : undefined;
    const failingBefore = before !== undefined && "runs" in before
      ? before.failing?.[run.protocolVersion] ?? []
      : [];
    const result = results[index];
    const same = was === result.status &&
      JSON.stringify(failingBefore) === JSON.stringify(result.failing);
    return same ? [] : [
      `${run.suite} ${run.scenario} @ ${run.protocolVersion}: expected ${was ?? "(absent)"} ` +
      `[${failingBefore.join("; ")}], got ${result.status} [${result.failing.join("; ")}]\n` +
      result.detail,
    ];
  });
  assert.deepEqual(
    observed,
    expected,
    `results differ from fixtures/conformance/expected.json:\n${formatTable(runs, results)}\n\n` +
      differing.join("\n\n"),
  );
});
