/**
 * `deno task size`: what the npm package weighs for a user, against its budgets
 * (`scripts/support/package_size.ts`). Builds and packs the package, installs the tarball alone
 * into a fresh project with npm (which must not warn), and bundles the Worker of
 * `scripts/npm_consumer/worker.mjs` (connect(), one call, one provider export) from it with the
 * esbuild settings docs/install.md gives users. Prints the tarball, installed size, package
 * count and gzipped Worker with their budgets, and where the Worker's bytes go; exits 1 when a
 * figure is over its budget. The npm consumer check prints and checks the same figures.
 *
 * @module
 */
import { buildNpm, NPM_DIR } from "./build_npm.ts";
import { must, newProject, npmInstall } from "./check_npm.ts";
import { onPath } from "../fixtures/package/npm_cache.ts";
import { installedFigures, sizeReport, workerBundle } from "./support/package_size.ts";

async function main(): Promise<boolean> {
  const npm = await onPath("npm");
  if (!npm) throw new Error("npm must be on PATH");
  const manifest = await buildNpm();
  const work = await Deno.makeTempDir({ prefix: "sluice-size-" });
  try {
    const packed = await must(npm, ["pack", "--pack-destination", work], NPM_DIR, "npm pack");
    const tarball = `${work}/${packed.stdout.trim().split("\n").at(-1)}`;
    const project = await newProject(work, "size", ["worker.mjs"]);
    await npmInstall(npm, project, [tarball]);
    const bundle = await workerBundle(project, "worker.mjs", {
      __MCP_URL__: JSON.stringify("https://mcp.example.com/mcp"),
    });
    const { lines, over } = sizeReport({
      tarballBytes: (await Deno.stat(tarball)).size,
      ...await installedFigures(project, manifest.name as string),
      workerBytes: bundle.code.length,
      workerGzipBytes: bundle.gzipBytes,
      workerParts: bundle.parts,
    });
    for (const line of lines) console.log(line);
    for (const problem of over) console.log(`size FAILED: ${problem}`);
    console.log(`size ${over.length === 0 ? "within budget" : "OVER BUDGET"}`);
    return over.length === 0;
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) Deno.exit(await main() ? 0 : 1);
