/**
 * Runs `scripts/check_npm.ts` as CI does: the packed tarball installed alone into fresh projects
 * without a warning from npm, the first-run consumer (a real server, a down server,
 * `sluice login --help` from the installed bin, `dependency_missing` for every optional package)
 * on Node 20, Node 22, Deno and Bun, the stores consumer with the optional packages on Node 20,
 * Node 22 and Bun, the `.d.ts` files with `ai` 6 and 7, the Worker in workerd through Miniflare's
 * defaults; and `deno task size` (`scripts/size.ts`), both printing the size figures within their
 * budgets. One file, so the two builds of `dist/npm/` never run at once.
 */
import assert from "node:assert/strict";
import { runScript } from "./support/run_script.ts";

/** The size lines both commands print, each within its budget. */
function assertSizes(stdout: string): void {
  for (const figure of ["tarball", "installed", "packages", "worker gzip"]) {
    assert.match(stdout, new RegExp(`^size ${figure} +[\\d.]+( KB| MB)? \\(budget `, "m"), figure);
  }
  assert.match(stdout, /^size worker minified [\d.]+ KB, by part:$/m);
  assert.doesNotMatch(stdout, /size FAILED/);
}

Deno.test("npm package: installed from the tarball, the consumers pass on Node 20, Node 22, Deno, Bun and workerd", async () => {
  const { code, stdout, stderr } = await runScript("scripts/check_npm.ts");
  console.log(stdout.trim());
  assert.equal(code, 0, stdout + stderr);
  const steps = [
    "npm install",
    "npm for deno",
    "bun add",
    "npm \\+ peers",
    "bun \\+ peers",
    "types ai 6",
    "types ai 7",
    "node 20",
    "node 22",
    "deno",
    "bun",
    "node 20 store",
    "node 22 store",
    "bun store",
    "workerd",
  ];
  for (const step of steps) {
    assert.match(stdout, new RegExp(`^${step}\\s+\\d+ ms  ok`, "m"), step);
  }
  // The down server: today's report, or the rejection connect() is to give.
  assert.match(stdout, /^node 20 .*down server: (report|rejected) transport_failed/m);
  assert.match(stdout, /^workerd .*down server: (report|rejected) transport_failed/m);
  assertSizes(stdout);
  assert.match(stdout, /npm check passed/);
});

Deno.test("deno task size: prints the size figures and checks them against the budgets", async () => {
  const { code, stdout, stderr } = await runScript("scripts/size.ts");
  assert.equal(code, 0, stdout + stderr);
  assertSizes(stdout);
  assert.match(stdout, /^size within budget$/m);
});
