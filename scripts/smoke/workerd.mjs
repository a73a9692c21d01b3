// Runs a bundle as an ES module Worker in workerd through Miniflare, with Miniflare's defaults for
// modules (`modules: true`: the script is parsed for its imports, so a computed `import()` fails
// as it would for a user) and without nodejs_compat, and prints the JSON the Worker answers.
// Started by scripts/smoke/run.ts and scripts/check_npm.ts:
//   node scripts/smoke/workerd.mjs <dir with node_modules/miniflare> <bundle.mjs> [path?query]
// Miniflare is loaded from the cache directory given, so this file needs no install of its own.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [cacheDir, bundlePath, path = "/"] = process.argv.slice(2);
const require = createRequire(join(cacheDir, "package.json"));
const { Miniflare } = await import(pathToFileURL(require.resolve("miniflare")).href);

const mf = new Miniflare({
  modules: true,
  scriptPath: bundlePath,
  // No compatibility flags: in particular no nodejs_compat; code generation stays forbidden.
  compatibilityDate: "2026-04-01",
});
try {
  const response = await mf.dispatchFetch(new URL(path, "http://worker.local/"));
  const body = await response.text();
  if (response.status !== 200) {
    console.error(`worker answered HTTP ${response.status}`);
    console.log(body);
    process.exitCode = 1;
  } else {
    console.log(body);
  }
} finally {
  await mf.dispose();
}
