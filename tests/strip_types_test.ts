/** Runs `scripts/strip_types_check.ts`: Node 22 loads every entry's TypeScript sources in place. */
import assert from "node:assert/strict";
import { runScript } from "./support/run_script.ts";

Deno.test("strip types: Node 22 runs every deno.json export and the CLI module from source", async () => {
  const { code, stdout, stderr } = await runScript("scripts/strip_types_check.ts");
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /strip types: ok \(\d+ entries on Node v22\./);
});
