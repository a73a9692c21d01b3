/**
 * The official MCP conformance suite's SERVER scenarios (both pinned versions, the suite's
 * `server` mode) against `sluice serve`, compared exactly with
 * `fixtures/conformance/server_expected.json`: a scenario that starts failing fails this test,
 * and so does one that starts passing until the file says so
 * (`deno run -A fixtures/conformance/server_suite.ts --write` records a run).
 */
import assert from "node:assert/strict";
import { SUITE_VERSIONS } from "../../fixtures/conformance/runner.ts";
import {
  listServerScenarios,
  readServerExpected,
  runServerSuite,
} from "../../fixtures/conformance/server_suite.ts";
import { formatTable, observedResults } from "../../fixtures/conformance/suite.ts";

Deno.test("serve conformance: the file names every server scenario of each pinned suite, in order", async () => {
  const expected = await readServerExpected();
  const listed = await listServerScenarios();
  assert.deepEqual(Object.keys(expected), [...SUITE_VERSIONS]);
  for (const suite of SUITE_VERSIONS) {
    assert.ok((listed.get(suite)?.size ?? 0) > 0, `${suite} lists server scenarios`);
    assert.deepEqual(Object.keys(expected[suite]), [...listed.get(suite)!.keys()], suite);
  }
});

Deno.test("serve conformance: every applicable server scenario's results are exactly the file's", async () => {
  const expected = await readServerExpected();
  const listed = await listServerScenarios();
  const runs = await runServerSuite(expected, listed);
  // The core of a tools server must have run and passed: initialize, ping, tools/list, DNS
  // rebinding protection, the 2026-07-28 header validation.
  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    assert.ok(
      runs.some((run) => run.scenario === scenario && run.status === "pass"),
      `${scenario} ran and passed`,
    );
  }
  // A server run is both the run and its result.
  const observed = observedResults(expected, listed, runs, runs);
  const differing = runs.filter((run) => {
    const before = expected[run.suite][run.scenario];
    if (before === undefined || !("runs" in before)) return true;
    return before.runs[run.protocolVersion] !== run.status ||
      JSON.stringify(before.failing?.[run.protocolVersion] ?? []) !== JSON.stringify(run.failing);
  }).map((run) =>
    `${run.suite} ${run.scenario} @ ${run.protocolVersion}: ${run.status}\n${run.detail}`
  );
  assert.deepEqual(
    observed,
    expected,
    `results differ from fixtures/conformance/server_expected.json:\n${
      formatTable(runs, runs)
    }\n\n` +
      differing.join("\n\n"),
  );
});
