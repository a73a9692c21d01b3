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
 * A module of the sources that the npm package replaces by a package `imports` entry with
 * export conditions: the file is written as `export * from "<specifier>"`, and each condition,
 * in this order (the first one the runtime or bundler has wins), names the source file whose
 * JavaScript it loads. Runtime-specific code is chosen this way, never detected: a Worker bundle
 * (`workerd`/`worker`/`browser`) gets a module that imports nothing, Node the `undici` pinning.
 */
export interface ConditionalModule {
  /** The source file the sources themselves import (their own choice, for Deno and JSR). */
  readonly file: string;
  /** The package `imports` specifier (starts with `#`). */
  readonly specifier: string;
  /** Condition to source file, in resolution order; ends with `default`. */
  readonly conditions: readonly (readonly [condition: string, file: string])[];
}

const ON_WORKERD = "src/transport/runtime/on_workerd.ts";

/** The conditional modules of the package. */
export const CONDITIONAL_MODULES: readonly ConditionalModule[] = [{
  file: "src/transport/runtime/mod.ts",
  specifier: "#transport-runtime",
  conditions: [
    ["workerd", ON_WORKERD],
    ["worker", ON_WORKERD],
    ["browser", ON_WORKERD],
    ["deno", "src/transport/runtime/on_deno.ts"],
    ["bun", "src/transport/runtime/on_bun.ts"],
    ["node", "src/transport/runtime/on_node.ts"],
    ["default", ON_WORKERD],
  ],
}];

/** The package.json `imports` field of {@link CONDITIONAL_MODULES}, pointing at `.js` files. */
export function packageImports(): Record<string, Record<string, string>> {
  const imports: Record<string, Record<string, string>> = {};
  for (const module of CONDITIONAL_MODULES) {
    imports[module.specifier] = Object.fromEntries(
      module.conditions.map((
        [condition, file],
      ) => [condition, `./${file.replace(/\.ts$/, ".js")}`]),
    );
  }
  return imports;
}

/** The graph of the given entry files (relative to the root). */
export async function packageGraph(entries: readonly string[]): Promise<PackageGraph> {
  const files = new Set<string>();
  const dependencies: Record<string, string> = {};
  const pending = [...entries];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const entry = pending.shift()!;
    if (seen.has(entry)) continue;
    seen.add(entry);
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
    // The files a conditional module's conditions select are part of the package too.
    for (const module of CONDITIONAL_MODULES) {
      if (files.has(module.file)) pending.push(...module.conditions.map(([, file]) => file));
    }
  }
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(dependencies).sort()) sorted[name] = dependencies[name];
  return { files: [...files].sort(), dependencies: sorted };
}
