/**
 * What the published package consists of, read from Deno's own module graph (`deno info
 * --json`) of each entry: the local source files reachable from the entries, and the npm
 * packages they import, at the exact versions deno.json pins.
 *
 * @module
 */
import { root } from "./npm_cache.ts";

/** The package's entries as deno.json declares them, plus the CLI. */
export interface PackageEntries {
  /** deno.json `name`. */
  name: string;
  /** deno.json `version`. */
  version: string;
  /** deno.json `exports`: subpath (`.`, `./libsql`, ...) to source file (`./mod.ts`). */
  exports: Record<string, string>;
}

/** The package's files and dependencies. */
export interface PackageGraph {
  /** Source files relative to the root (`mod.ts`, `src/identity/digest.ts`), sorted. */
  files: string[];
  /** npm dependencies of those files: name to exact version. */
  dependencies: Record<string, string>;
}

/** The module the CLI entry runs: importing it has no side effects. */
export const CLI_MODULE = "src/cli/main.ts";

/** The CLI's entry file, relative to the root; published as the package's `bin`. */
export const CLI_ENTRY = "scripts/sluice.ts";

/** Reads deno.json's name, version and exports. */
export async function packageEntries(): Promise<PackageEntries> {
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  const exports: Record<string, string> = typeof config.exports === "string"
    ? { ".": config.exports }
    : config.exports;
  return { name: config.name, version: config.version, exports };
}

/** One module of `deno info --json`. */
export interface InfoModule {
  /** `esm`, `npm`, ... */
  readonly kind: string;
  /** Its URL (`file:///...`, `npm:/...`). */
  readonly specifier: string;
  /** `name@version` of an npm module. */
  readonly npmPackage?: string;
  /** Its imports, as Deno resolved them. */
  readonly dependencies?: readonly {
    readonly code?: { readonly specifier?: string };
    readonly type?: { readonly specifier?: string };
  }[];
}

/** Deno's module graph of one entry file (relative to the root): `deno info --json`. */
export async function moduleInfo(entry: string): Promise<readonly InfoModule[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`deno info ${entry} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return (JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: InfoModule[] })
    .modules;
}

/**
 * npm packages the sources load with `import()` through a specifier in a variable, which Deno's
 * graph (and bundlers) do not follow: the file that loads each one, and the package. Node's DNS
 * pinning loads `undici` this way so the Workers bundle leaves it out; it is a dependency (not
 * an optional peer) so that pinning holds on Node by default.
 */
const LOADED_AT_RUNTIME: Readonly<Record<string, string>> = {
  "src/transport/runtime/node_pinning.ts": "undici",
};

/** The exact version deno.json `imports` pins for `name` (`npm:name@version`). */
async function pinnedVersion(name: string): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  const match = /^npm:(?:@[^/]+\/)?[^@]+@(.+)$/.exec(config.imports?.[name] ?? "");
  if (match === null) throw new Error(`deno.json imports pins no npm version of ${name}`);
  return match[1];
}

/** The graph of the given entry files (relative to the root). */
export async function packageGraph(entries: readonly string[]): Promise<PackageGraph> {
  const files = new Set<string>();
  const dependencies: Record<string, string> = {};
  for (const entry of entries) {
    for (const module of await moduleInfo(entry)) {
      if (module.specifier.startsWith("file://")) {
        const path = decodeURIComponent(new URL(module.specifier).pathname);
        if (!path.startsWith(root)) throw new Error(`${entry} imports ${path}, outside the root`);
        files.add(path.slice(root.length));
      } else if (module.kind === "npm" && module.npmPackage) {
        // Deno writes peer-resolved packages as `ai@7.0.173_zod@4.6.7`: the part before `_`.
        const spec = module.npmPackage.replace(/_.*$/, "");
        const at = spec.lastIndexOf("@");
        dependencies[spec.slice(0, at)] = spec.slice(at + 1);
      }
    }
  }
  for (const [file, name] of Object.entries(LOADED_AT_RUNTIME)) {
    if (files.has(file)) dependencies[name] = await pinnedVersion(name);
  }
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(dependencies).sort()) sorted[name] = dependencies[name];
  return { files: [...files].sort(), dependencies: sorted };
}
