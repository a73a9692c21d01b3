/**
 * docs/screen.md lists exactly the screen's codes, each under the class its name says.
 */
import assert from "node:assert/strict";
import { CODES } from "../../mod.ts";

Deno.test("docs: docs/screen.md's code table is the catalog's screen stage, with each code's class", async () => {
  const page = await Deno.readTextFile(new URL("../../docs/screen.md", import.meta.url));
  const rows = page.split("\n").map((line) =>
    /^\|\s*`(screen_[a-z_]+)`\s*\|\s*`([a-z]+)`/.exec(line)
  )
    .filter((match) => match !== null).map((match) => [match![1], match![2]]);
  const catalogued = Object.entries(CODES).filter(([, entry]) => entry.stage === "screen")
    .map(([code]) => [code, /^screen_([a-z]+)_/.exec(code)![1]]);
  assert.deepEqual(rows.toSorted(), catalogued.toSorted());
});
