/**
 * Runs `scripts/check_npm.ts` as CI does: the packed tarball installed into fresh projects, its
 * `.d.ts` files type-checking a consumer, the consumer program passing on Node 20, Node 22 and Bun, the Worker consumer passing in workerd,
 * and the Worker bundle's size printed and within its budget.
 */
import assert from "node:assert/strict";
import { runScript } from "./support/run_script.ts";

Deno.test("npm package: installed from the tarball, the consumer passes on Node 20, Node 22, Bun and workerd", async () => {
  const { code, stdout, stderr } = await runScript("scripts/check_npm.ts");
  console.log(stdout.trim());
  assert.equal(code, 0, stdout + stderr);
  for (
    const runtime of ["npm install", "bun add", "types", "node 20", "node 22", "bun", "workerd"]
  ) {
    assert.match(stdout, new RegExp(`^${runtime}\\s+\\d+ ms  ok`, "m"), runtime);
  }
  assert.match(stdout, /^worker bundle \d+ KB minified, [\d.]+ KB gzip \(budget \d+ KB\)$/m);
  assert.match(stdout, /npm check passed/);
});
