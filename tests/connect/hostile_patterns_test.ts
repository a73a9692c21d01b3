// The pattern benchmark's connect() cases, for their outcome codes only (the times are the
// benchmark's, `deno task bench patterns`): a hostile server (the official SDK server, in a
// Worker on loopback) declares the issue's ReDoS patterns and real servers' patterns in
// output schemas and returns adversarial strings as structured content. The three patterns
// over the RE2 program budget are refused at discovery; every other call ends with the
// verdict the compiled validator gives (the stalling inputs of the classic ReDoS patterns do
// not match), never with a deadline or transport code; at 100 KiB the result budget refuses
// every call before any matching.
import assert from "node:assert/strict";
import { checkSchema, compileSchema } from "../../mod.ts";
import {
  callPatternCases,
  connectCases,
  FITTING_SIZE,
  redos,
  shapes,
} from "../../fixtures/pattern_cases.ts";

const REFUSED = redos.slice(0, 3).map(([pattern]) => pattern);

Deno.test("hostile patterns: the three over the program budget are refused by size, not guessed", () => {
  for (const pattern of REFUSED) {
    const checked = checkSchema({ type: "string", pattern });
    assert.equal(checked.ok, false, pattern);
    assert.deepEqual(
      !checked.ok && checked.problems.map((problem) => problem.code),
      ["schema_pattern_too_complex"],
      pattern,
    );
  }
});

Deno.test("hostile patterns through connect(): each call ends with the validator's verdict", async () => {
  const cases = connectCases(FITTING_SIZE);
  const outcomes = await callPatternCases(cases);
  assert.equal(outcomes.length, cases.length);
  let matched = 0;
  cases.forEach(({ pattern, value }, index) => {
    const { code } = outcomes[index];
    if (REFUSED.includes(pattern)) {
      assert.equal(code, "skipped:mcp_schema_unsupported", `${index} /${pattern}/`);
      return;
    }
    const valid = compileSchema({ type: "string", pattern }, {
      valueLimits: { maxBytes: 4 * FITTING_SIZE },
    })(value).valid;
    if (valid) matched++;
    assert.equal(code, valid ? "ok" : "mcp_result_invalid", `${index} /${pattern}/`);
  });
  // The stalling input of each admitted classic ReDoS pattern (cases 3 to 5) matches nothing.
  assert.deepEqual(outcomes.slice(3, 6).map((outcome) => outcome.code), [
    "mcp_result_invalid",
    "mcp_result_invalid",
    "mcp_result_invalid",
  ]);
  // Both verdicts occur: the validator is not refusing (or admitting) everything.
  assert.ok(
    matched > 0 && matched < cases.length - REFUSED.length * (shapes.length + 1),
    `${matched} matched`,
  );
});

Deno.test("hostile patterns through connect(): 100 KiB results are over the result budget", async () => {
  const cases = connectCases(100 * 1024);
  const outcomes = await callPatternCases(cases);
  cases.forEach(({ pattern }, index) => {
    const expected = REFUSED.includes(pattern)
      ? "skipped:mcp_schema_unsupported"
      : "mcp_result_too_large";
    assert.equal(outcomes[index].code, expected, `${index} /${pattern}/`);
  });
});
