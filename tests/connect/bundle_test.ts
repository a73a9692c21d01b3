// connect() must run on Workers: the module bundles for a browser/Workers platform with no
// runtime import and no code generation (the SDK gets the cfworker validator, never Ajv).
import assert from "node:assert/strict";
import { bundleForBrowser } from "../support/bundle.ts";

Deno.test("connect bundles for a browser/Workers platform without runtime imports or codegen", async () => {
  const code = await bundleForBrowser("src/connect/mod.ts", "sluice-connect-bundle-");
  assert.ok(code.includes("connect_allow_invalid"), "the bundle is not connect");
  assert.doesNotMatch(code, /\bnew Function\s*\(/);
});
