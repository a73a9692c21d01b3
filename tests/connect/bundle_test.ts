// connect() must run on Workers: the module bundles for a browser/Workers platform with no
// runtime import, no dynamic `import()` (Miniflare's default `modules: true` refuses a computed
// one), no undici and no code generation (the SDK gets the cfworker validator, never Ajv). The
// npm package's Worker bundle is checked the same way by scripts/check_npm.ts.
import assert from "node:assert/strict";
import { bundleForBrowser } from "../support/bundle.ts";

Deno.test("connect bundles for a browser/Workers platform without runtime imports or codegen", async () => {
  const code = await bundleForBrowser("src/connect/mod.ts", "sluice-connect-bundle-");
  assert.ok(code.includes("connect_allow_invalid"), "the bundle is not connect");
  assert.doesNotMatch(code, /\bnew Function\s*\(/);
  // (`{import("./x").T}` in a bundled package's JSDoc is a type, not an import.)
  assert.doesNotMatch(code, /(?<!\{)\bimport\s*\(/);
  assert.doesNotMatch(code, /undici/i);
});
