/**
 * Node type-stripping check: Node 22 (from npm) runs sluice's TypeScript sources in place with
 * `--experimental-strip-types`, importing every entry deno.json `exports` names and the CLI
 * module, and checks that DNS pinning holds there (the preload maps the runtime module to the one
 * the npm package's `node` condition selects). Type stripping refuses parameter properties,
 * enums, namespaces and `.ts` specifiers that do not name real files; any of them fails this
 * check with Node's own message.
 *
 * The sources import their npm dependencies by bare specifier; `scripts/node/register_deps.mjs`
 * resolves those from the runtime cache where the deno.json versions are installed, so no
 * node_modules folder is needed in the repository.
 *
 * `deno run -A scripts/strip_types_check.ts` prints `strip types: ok (<n> entries)` or fails.
 *
 * @module
 */
import { CLI_MODULE, packageEntries, packageGraph } from "../fixtures/package/package_graph.ts";
import {
  ensureInstalled,
  installedNode22,
  root,
  run,
  RUNTIME_CACHE,
  RUNTIME_VERSIONS,
} from "../fixtures/package/npm_cache.ts";

async function main(): Promise<boolean> {
  const { exports } = await packageEntries();
  const entries = [...Object.values(exports).map((path) => path.replace(/^\.\//, "")), CLI_MODULE];
  const { dependencies } = await packageGraph(entries);
  await ensureInstalled(RUNTIME_CACHE, { node: RUNTIME_VERSIONS.node, ...dependencies });
  const node = await installedNode22(RUNTIME_CACHE);
  const imports = entries.map((entry) => `await import(${JSON.stringify(`${root}${entry}`)});`);
  // The preload resolves the runtime module as the package's `node` condition does: pinned.
  imports.push(
    `const { secureFetch } = await import(${JSON.stringify(`${root}mod.ts`)});`,
    `if (secureFetch().describe().dnsPinning !== "enforced") throw new Error("not pinned");`,
  );
  const result = await run(node, [
    "--experimental-strip-types",
    "--no-warnings",
    "--import",
    `${root}scripts/node/register_deps.mjs`,
    "--input-type=module",
    "--eval",
    `${imports.join("\n")}\nconsole.log("loaded");`,
  ], { env: { SLUICE_DEPS_DIR: RUNTIME_CACHE, PATH: Deno.env.get("PATH") ?? "" } });
  const version = (await run(node, ["--version"])).stdout.trim();
  if (result.code !== 0 || !result.stdout.includes("loaded")) {
    console.error(`strip types: Node ${version} refused the sources:\n${result.stderr}`);
    return false;
  }
  console.log(`strip types: ok (${entries.length} entries on Node ${version})`);
  return true;
}

if (import.meta.main) Deno.exit(await main() ? 0 : 1);
