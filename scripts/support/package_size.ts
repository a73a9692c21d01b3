/**
 * What the npm package weighs for a user: the tarball, what `npm install @sluice/mcp` alone puts
 * in `node_modules` (bytes and packages), and a Worker that runs `connect()`, one call and one
 * provider export, bundled with the esbuild settings docs/install.md gives users, minified and
 * gzipped. Each figure has a budget; `deno task size` (`scripts/size.ts`) and the npm consumer
 * check (`scripts/check_npm.ts`) print the same lines and fail over a budget.
 *
 * @module
 */
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { WORKER_BUILD_OPTIONS } from "./worker_bundle.ts";

/** The budgets: a figure above its budget fails the check. */
export const SIZE_BUDGETS = {
  /**
   * The packed tarball (JavaScript, declarations, README). Modules instead of closures (issue
   * 25) add files and declarations of what used to be private, and the tool-poisoning screen and
   * the OAuth client methods and grants, `sluice serve` and telemetry add code (387 KB before
   * them, 518 KB after). The rest of `sluice serve` (tasks, OAuth resource mode, rate limits,
   * drift, the inbox mount, Workers) took it to 540.4 KB; stdio servers, the client capabilities
   * (elicitation, input required, progress, logs) and session-level telemetry to 597.9 KB; the
   * 2026-07-28 Tasks extension, the relay of upstream input and progress requests and the screen's
   * split modules to 628.4 KB.
   */
  tarballBytes: 645 * 1024,
  /** `node_modules` after `npm install @sluice/mcp` alone (zod and the MCP SDK are most of it). */
  installedBytes: 24 * 1024 * 1024,
  /** Packages `npm install @sluice/mcp` adds besides sluice itself. */
  packages: 20,
  /**
   * The Worker, gzipped. The goal is 110 KB (the MCP v2 client with the cfworker validator alone
   * is about 95 KB); the RE2 engine sluice runs every `pattern` on is about 47 KB of what is
   * over it (docs/install.md has the breakdown); the poisoning screen, wired into discovery,
   * adds about 14 KB (186.9 -> 201.2 KB); the client capabilities (elicitation and input
   * required rounds, progress and log listeners) and the session-level telemetry hooks add about
   * 9 KB (210.0 KB; stdio is a stand-in there); the gateway's relay, the Tasks extension and the
   * screen's round of speed work 2 KB more (212.2 KB).
   */
  workerGzipBytes: 215 * 1024,
} as const;

/** The figures of one build. */
export interface SizeFigures {
  tarballBytes: number;
  installedBytes: number;
  packages: number;
  workerBytes: number;
  workerGzipBytes: number;
  /** Minified bytes of the Worker bundle by npm package (sluice itself by folder). */
  workerParts: [part: string, bytes: number][];
}

/** Bytes of every file under `dir`, symbolic links not followed. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) total += await directoryBytes(path);
    else if (entry.isFile) total += (await Deno.stat(path)).size;
  }
  return total;
}

/**
 * What an npm install into `project` installed: the bytes of its `node_modules` and the
 * packages in its lockfile other than `except`.
 */
export async function installedFigures(
  project: string,
  except: string,
): Promise<{ installedBytes: number; packages: number }> {
  const lock = JSON.parse(await Deno.readTextFile(`${project}/package-lock.json`)) as {
    packages: Record<string, unknown>;
  };
  const packages =
    Object.keys(lock.packages).filter((path) => path !== "" && path !== `node_modules/${except}`)
      .length;
  return { installedBytes: await directoryBytes(`${project}/node_modules`), packages };
}

/** The part of the bundle an input file counts for: its npm package, or sluice's folder. */
function partOf(path: string): string {
  const sluice = /node_modules\/@sluice\/mcp\/(src\/[^/]+|[^/]+)/.exec(path);
  if (sluice) return `@sluice/mcp ${sluice[1].replace(/\.js$/, "")}`;
  const npm = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return npm ? npm[1] : path;
}

/**
 * Bundles `entry` (inside `project`, where the package is installed) for workerd with the
 * settings users are given, minified; `define` fills the entry's placeholders.
 */
export async function workerBundle(
  project: string,
  entry: string,
  define: Record<string, string> = {},
): Promise<{ code: Uint8Array; gzipBytes: number; parts: [string, number][] }> {
  try {
    const result = await esbuild.build({
      ...WORKER_BUILD_OPTIONS,
      entryPoints: [`${project}/${entry}`],
      absWorkingDir: project,
      write: false,
      minify: true,
      metafile: true,
      define,
    });
    const code = result.outputFiles[0].contents;
    const parts = new Map<string, number>();
    for (const output of Object.values(result.metafile.outputs)) {
      for (const [path, input] of Object.entries(output.inputs)) {
        parts.set(partOf(path), (parts.get(partOf(path)) ?? 0) + input.bytesInOutput);
      }
    }
    return {
      code,
      gzipBytes: gzipSync(code).length,
      parts: [...parts].sort((a, b) => b[1] - a[1]),
    };
  } finally {
    await esbuild.stop();
  }
}

/**
 * What a Worker bundle must not contain: `undici`, a `node:` module, or an `import()` (Miniflare's
 * default `modules: true` refuses a computed one). Returns the problems found.
 */
export function workerBundleProblems(code: string): string[] {
  const problems: string[] = [];
  if (/undici/i.test(code)) problems.push("the Worker bundle contains undici");
  const nodeModule = /["'`]node:[a-z_/]+["'`]/.exec(code);
  if (nodeModule) problems.push(`the Worker bundle imports ${nodeModule[0]}`);
  if (/\bimport\s*\(/.test(code)) problems.push("the Worker bundle contains a dynamic import()");
  return problems;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The printed lines of the figures, and the budgets they exceed. */
export function sizeReport(figures: SizeFigures): { lines: string[]; over: string[] } {
  const b = SIZE_BUDGETS;
  const rows: [string, number, number, (n: number) => string][] = [
    ["tarball", figures.tarballBytes, b.tarballBytes, kb],
    ["installed", figures.installedBytes, b.installedBytes, mb],
    ["packages", figures.packages, b.packages, String],
    ["worker gzip", figures.workerGzipBytes, b.workerGzipBytes, kb],
  ];
  const lines = rows.map(([name, value, budget, show]) =>
    `size ${name.padEnd(11)} ${show(value).padStart(8)} (budget ${show(budget)})`
  );
  lines.push(`size worker minified ${kb(figures.workerBytes)}, by part:`);
  for (const [part, bytes] of figures.workerParts.slice(0, 12)) {
    lines.push(`  ${kb(bytes).padStart(9)}  ${part}`);
  }
  const over = rows.filter(([, value, budget]) => value > budget).map((
    [name, value, budget, show],
  ) => `${name} ${show(value)} is over its budget of ${show(budget)}`);
  return { lines, over };
}
