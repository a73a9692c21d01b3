import assert from "node:assert/strict";
import { KEYWORDS } from "../src/schema/keywords.ts";

Deno.test("the README's keyword table states exactly the profile's verdicts", () => {
  const readme = Deno.readTextFileSync(new URL("../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("## Schema profile `sluice.schema/v1`"));
  const rows = [...section.matchAll(/^\| `([^`]+)` *\| (admitted|rejected) *\|/gm)];
  const documented = Object.fromEntries(rows.map(([, keyword, verdict]) => [keyword, verdict]));
  const actual = Object.fromEntries(
    Object.entries(KEYWORDS).map(([keyword, rule]) => [
      keyword,
      rule.admitted ? "admitted" : "rejected",
    ]),
  );
  assert.equal(rows.length, Object.keys(documented).length, "a keyword is listed twice");
  assert.deepEqual(documented, actual);
});
