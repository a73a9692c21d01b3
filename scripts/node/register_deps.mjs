// Node preload (`node --import ./scripts/node/register_deps.mjs`): resolves the bare npm
// specifiers of sluice's own sources from the folder named by SLUICE_DEPS_DIR (where the pinned
// dependencies are installed), so Node can run the TypeScript sources in place with
// `--experimental-strip-types` without a node_modules folder in the repository.
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const dir = process.env.SLUICE_DEPS_DIR;
if (!dir) throw new Error("SLUICE_DEPS_DIR is not set");
register("./resolve_deps.mjs", import.meta.url, {
  data: { base: pathToFileURL(`${dir}/package.json`).href },
});
