/** Runs `scripts/strip_types_check.ts`: Node 22 loads every entry's TypeScript sources in place. */
import assert from "node:assert/strict";

Deno.test("strip types: Node 22 runs every deno.json export and the CLI module from source", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/strip_types_check.ts"],
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  assert.equal(output.code, 0, stdout + decoder.decode(output.stderr));
  assert.match(stdout, /strip types: ok \(\d+ entries on Node v22\./);
});
