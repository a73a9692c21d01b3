// connect() must run on Workers: the module bundles for a browser/Workers platform with no
// runtime import and no code generation (the SDK gets the cfworker validator, never Ajv).
import assert from "node:assert/strict";

Deno.test("connect bundles for a browser/Workers platform without runtime imports or codegen", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-connect-bundle-" });
  try {
    const out = `${dir}/connect.mjs`;
    const entry = new URL("../src/connect/mod.ts", import.meta.url).pathname;
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform=browser", entry, "-o", out],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(result.success, new TextDecoder().decode(result.stderr));
    const code = await Deno.readTextFile(out);
    assert.ok(code.includes("connect_allow_invalid"), "the bundle is not connect");
    assert.doesNotMatch(code, /\bfrom\s*["'](node|npm|jsr):/);
    assert.doesNotMatch(code, /\bimport\s*\(\s*["'](node|npm|jsr):/);
    assert.doesNotMatch(code, /\brequire\s*\(/);
    assert.doesNotMatch(code, /\bnew Function\s*\(/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
