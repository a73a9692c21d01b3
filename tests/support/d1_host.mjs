// Runs the D1 test Worker in workerd through Miniflare, with real (in-memory) D1 databases bound
// as DB0..DB<n-1>, listening on 127.0.0.1, and a second Worker ("approver", the same code, its
// own isolate) bound to the same databases on a socket of its own, as a reviewer's Worker beside
// the agent's. Prints {"url": ..., "approverUrl": ...} once ready; stops when stdin ends.
//   node tests/support/d1_host.mjs <dir with node_modules/miniflare> <bundle.mjs> <n>
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [cacheDir, bundlePath, count] = process.argv.slice(2);
const require = createRequire(join(cacheDir, "package.json"));
const { Miniflare } = await import(pathToFileURL(require.resolve("miniflare")).href);

const d1Databases = {};
for (let i = 0; i < Number(count); i++) d1Databases[`DB${i}`] = `sluice-test-${i}`;
const worker = (name) => ({
  name,
  modules: [{ type: "ESModule", path: bundlePath }],
  modulesRoot: dirname(bundlePath),
  compatibilityDate: "2026-04-01",
  compatibilityFlags: [],
  // The same database ids: both Workers reach the same D1 storage.
  d1Databases,
  bindings: { WORKER_NAME: name },
});
const mf = new Miniflare({
  workers: [
    worker("agent"),
    { ...worker("approver"), unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }] },
  ],
  host: "127.0.0.1",
  port: 0,
});
const url = await mf.ready;
const approverUrl = await mf.unsafeGetDirectURL("approver");
console.log(JSON.stringify({ url: url.href, approverUrl: approverUrl.href }));
process.stdin.resume();
process.stdin.on("end", async () => {
  await mf.dispose();
  process.exit(0);
});
