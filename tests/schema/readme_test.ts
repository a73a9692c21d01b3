import assert from "node:assert/strict";
import { checkSchema } from "../../mod.ts";
import { admittedTools, corpusDirectory } from "../../fixtures/schema_corpus.ts";
import { KEYWORDS } from "../../src/schema/keywords.ts";

Deno.test("the profile page's keyword table states exactly the profile's verdicts", () => {
  const page = Deno.readTextFileSync(new URL("../../docs/schema-profile.md", import.meta.url));
  const section = page.slice(page.indexOf("## Keywords"));
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

Deno.test("the README points to the profile page instead of holding it", () => {
  const readme = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));
  assert.ok(readme.includes("docs/schema-profile.md"));
  assert.ok(!/^\| `\$anchor` +\| /m.test(readme), "the README still has the keyword table");
});

Deno.test("the profile page states the real share of corpus tools admitted now", () => {
  const page = Deno.readTextFileSync(new URL("../../docs/schema-profile.md", import.meta.url));
  if (corpusDirectory() === undefined) {
    console.log("corpus absent (../shared/corpus-sample or SLUICE_CORPUS_DIR): share not checked");
    return;
  }
  const { admitted, total } = admittedTools(checkSchema);
  const share = `${admitted} of ${total} (${(100 * admitted / total).toFixed(1)}%)`;
  assert.match(page, new RegExp(`^\\| now +\\| ${share.replace(/[()]/g, "\\$&")} +\\|$`, "m"));
});
