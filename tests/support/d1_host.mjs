// Runs the D1 test Worker in workerd through Miniflare, with real (in-memory) D1 databases bound
// as DB0..DB<n-1>, listening on 127.0.0.1. Prints {"url": ...} once ready; stops when stdin ends.
//   node tests/support/d1_host.mjs <dir with node_modules/miniflare> <bundle.mjs> <n>
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [cacheDir, bundlePath, count] = process.argv.slice(2);
const require = createRequire(join(cacheDir, "package.json"));
const { Miniflare } = await import(pathToFileURL(require.resolve("miniflare")).href);

const d1Databases = {};
for (let i = 0; i < Number(count); i++) d1Databases[`DB${i}`] = `sluice-test-${i}`;
const mf = new Miniflare({
  modules: [{ type: "ESModule", path: bundlePath }],
  modulesRoot: dirname(bundlePath),
  compatibilityDate: "2026-04-01",
  compatibilityFlags: [],
  d1Databases,
  host: "127.0.0.1",
  port: 0,
});
const url = await mf.ready;
console.log(JSON.stringify({ url: url.href }));
process.stdin.resume();
process.stdin.on("end", async () => {
  await mf.dispose();
  process.exit(0);
});
