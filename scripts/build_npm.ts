/**
 * `deno task build:npm`: the npm package, built from the same sources JSR publishes, into
 * `dist/npm/` (gitignored).
 *
 * - Which files: Deno's module graph of every deno.json `exports` entry and of the CLI entry
 *   (`fixtures/package/package_graph.ts`), so a new subpath export is packaged without editing this.
 * - JavaScript: TypeScript's `transpileModule` per file (`fixtures/package/javascript.ts`: ES2022
 *   modules, relative `.ts` specifiers rewritten to `.js`); no bundling, so the layout mirrors
 *   the sources.
 * - Declarations: one TypeScript program over the same files, declarations only, with the
 *   dependencies' own types resolved from the runtime cache where the deno.json versions are
 *   installed. Type checking stays `deno check`'s job; a declaration diagnostic (a type that
 *   cannot be named in a `.d.ts`) fails the build.
 * - Runtime-specific modules: each of `CONDITIONAL_MODULES` (`fixtures/package/package_graph.ts`)
 *   is written as a re-export of a package `imports` specifier whose export conditions
 *   (`workerd`, `worker`, `browser`, `deno`, `bun`, `node`, `default`) pick the runtime's file,
 *   so a Worker bundle never sees Node's `undici` pinning and nothing is detected at run time.
 * - package.json: `exports` for `.` and every subpath, `imports` for the conditional modules,
 *   `dependencies` at the exact versions deno.json pins, except the packages of
 *   `OPTIONAL_PACKAGES` (`src/optional_packages.ts`): those are optional `peerDependencies`,
 *   loaded only by the entry that needs them. `engines`, and `bin.sluice` (the CLI, with a Node
 *   shebang).
 *
 * Prints the folder and the file count; `--quiet` prints nothing on success.
 *
 * @module
 */
import ts from "typescript";
import {
  CLI_ENTRY,
  packageEntries,
  packageGraph,
  packageImports,
} from "../fixtures/package/package_graph.ts";
import {
  COMPILER_OPTIONS,
  diagnosticText,
  jsSpecifiers,
  write,
  writeJavaScript,
} from "../fixtures/package/javascript.ts";
import {
  ensureInstalled,
  pinnedVersions,
  root,
  RUNTIME_CACHE,
} from "../fixtures/package/npm_cache.ts";
import { OPTIONAL_PACKAGES } from "../src/optional_packages.ts";

/** Where the package is written. */
export const NPM_DIR = `${root}dist/npm`;

/**
 * The oldest Node the package supports: what its dependencies declare (the MCP client and re2js
 * say `>=20`) and what the consumer check runs (Node 20 and 22).
 */
export const NODE_ENGINE = ">=20";

/** Options of the declaration program: bare specifiers resolve in the runtime cache. */
const DECLARATION_OPTIONS: ts.CompilerOptions = {
  ...COMPILER_OPTIONS,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  declaration: true,
  emitDeclarationOnly: true,
  skipLibCheck: true,
  strict: true,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
  paths: { "*": [`${RUNTIME_CACHE}/node_modules/*`] },
  rootDir: root,
  outDir: `${root}dist/npm`,
};

/** The package.json dependency fields: the core's pinned exactly, the optional ones as peers. */
export async function dependencyFields(dependencies: Readonly<Record<string, string>>) {
  const pinned = await pinnedVersions();
  const required: Record<string, string> = {};
  const peers: Record<string, string> = {};
  const meta: Record<string, { optional: true }> = {};
  for (const [name, version] of Object.entries(dependencies)) {
    const optional = Object.hasOwn(OPTIONAL_PACKAGES, name)
      ? OPTIONAL_PACKAGES[name as keyof typeof OPTIONAL_PACKAGES]
      : undefined;
    if (optional === undefined) {
      required[name] = version;
      continue;
    }
    // The version deno.json pins is the one the message of `dependency_missing` tells to install.
    if (optional.tested.at(-1) !== pinned[name]) {
      throw new Error(
        `OPTIONAL_PACKAGES tests ${name}@${optional.tested.at(-1)}, deno.json pins ${pinned[name]}`,
      );
    }
    peers[name] = optional.range;
    meta[name] = { optional: true };
  }
  // A package only the host imports (its OpenTelemetry API) is a peer the graph never shows.
  for (const [name, optional] of Object.entries(OPTIONAL_PACKAGES)) {
    if (Object.hasOwn(peers, name)) continue;
    peers[name] = optional.range;
    meta[name] = { optional: true };
  }
  return { dependencies: required, peerDependencies: peers, peerDependenciesMeta: meta };
}

/** Builds the package; returns the package.json it wrote. */
export async function buildNpm(): Promise<Record<string, unknown>> {
  const entries = await packageEntries();
  const exportFiles = Object.values(entries.exports).map((path) => path.replace(/^\.\//, ""));
  const graph = await packageGraph([...exportFiles, CLI_ENTRY]);
  await Deno.remove(NPM_DIR, { recursive: true }).catch(() => {});
  const problems = await writeJavaScript(graph.files, NPM_DIR);
  await ensureInstalled(RUNTIME_CACHE, graph.dependencies);
  const program = ts.createProgram(
    graph.files.map((file) => `${root}${file}`),
    DECLARATION_OPTIONS,
  );
  const declarations = new Map<string, string>();
  const emitted = program.emit(
    undefined,
    (path, text) => declarations.set(path, text),
    undefined,
    true,
  );
  const declarationProblems = [...emitted.diagnostics, ...program.getDeclarationDiagnostics()];
  if (declarationProblems.length > 0) {
    problems.push(diagnosticText("declarations", declarationProblems));
  }
  for (const [path, text] of declarations) await write(path, jsSpecifiers(text));
  if (problems.length > 0) throw new Error(`the npm build failed:\n${problems.join("\n")}`);

  const exportsField: Record<string, { types: string; default: string }> = {};
  for (const [subpath, file] of Object.entries(entries.exports)) {
    const base = file.replace(/\.ts$/, "");
    exportsField[subpath] = { types: `${base}.d.ts`, default: `${base}.js` };
  }
  const cliPath = `./${CLI_ENTRY.replace(/\.ts$/, ".js")}`;
  const packageJson = {
    name: entries.name,
    version: entries.version,
    description: "Governed local tools from remote MCP servers: strict schemas, durable approvals.",
    license: "MIT",
    type: "module",
    exports: exportsField,
    bin: { sluice: cliPath },
    // Only the CLI entry runs code on import.
    sideEffects: [cliPath],
    engines: { node: NODE_ENGINE },
    imports: packageImports(),
    ...await dependencyFields(graph.dependencies),
  };
  await write(`${NPM_DIR}/package.json`, JSON.stringify(packageJson, null, 2) + "\n");
  for (const extra of ["README.md", "LICENSE"]) {
    await Deno.copyFile(`${root}${extra}`, `${NPM_DIR}/${extra}`).catch(() => {});
  }
  await Deno.chmod(`${NPM_DIR}/${CLI_ENTRY.replace(/\.ts$/, ".js")}`, 0o755);
  if (!Deno.args.includes("--quiet")) {
    console.log(
      `built ${NPM_DIR.slice(root.length)}: ${graph.files.length} modules, ` +
        `${Object.keys(exportsField).length} exports, ` +
        `dependencies ${
          Object.entries(packageJson.dependencies).map(([n, v]) => `${n}@${v}`).join(" ")
        }, optional peers ${Object.keys(packageJson.peerDependencies).join(" ")}`,
    );
  }
  return packageJson;
}

if (import.meta.main) await buildNpm();
