/** Runs `scripts/check_installed.ts` as a subprocess, as CI and a packager would. */
import assert from "node:assert/strict";
import { runScript } from "./support/run_script.ts";

const root = new URL("../", import.meta.url).pathname;
const run = (...args: string[]) => runScript("scripts/check_installed.ts", ...args);

Deno.test("check_installed: discovers, calls, closes, and the server process exits", async () => {
  const { code, stdout, stderr } = await run();
  assert.equal(code, 0, stderr);
  assert.match(stdout, /ok - server process \d+ has exited/);
  assert.match(stdout, /ok - add returns validated structured content/);
  assert.match(stdout, /check_installed: all checks passed/);
});

Deno.test("check_installed: exits non-zero when the server cannot be used", async () => {
  const { code, stderr } = await run(`${root}fixtures/does_not_exist.ts`);
  assert.notEqual(code, 0);
  assert.match(stderr, /check_installed: /);
});
