/**
 * The npm consumer check: builds the package (`deno task build:npm`), packs it with `npm pack`,
 * installs the tarball into fresh projects (npm for Node, `bun add` for Bun), type-checks
 * `scripts/npm_consumer/consumer_types.ts` against the installed `.d.ts` files, and runs the same
 * consumer program (`scripts/npm_consumer/consumer.mjs`) on Node 20 (PATH), Node 22 and Bun
 * (both from npm) against the loopback write fixture; then bundles a Worker from the installed
 * package (`scripts/npm_consumer/worker.mjs`) and runs connect() and a read call in workerd
 * through Miniflare. Prints one line per runtime and the Worker bundle's size, and fails when
 * any consumer fails or the gzipped bundle is over {@link WORKER_GZIP_BUDGET}.
 *
 * npm and Bun keep their own caches, and the runtimes stay installed in `.cache/smoke/`, so a
 * repeated run mostly measures the consumers themselves.
 *
 * `deno run -A scripts/check_npm.ts` ends with `npm check passed` or `npm check FAILED`.
 *
 * @module
 */
import * as esbuild from "esbuild";
import ts from "typescript";
import { gzipSync } from "node:zlib";
import { buildNpm, NPM_DIR } from "./build_npm.ts";
import {
  ensureInstalled,
  installedBun,
  installedNode22,
  onPath,
  pinnedVersions,
  root,
  run,
  RUNTIME_CACHE,
  RUNTIME_VERSIONS,
} from "./support/npm_cache.ts";
import { packageEntries } from "./support/package_graph.ts";
import { WORKER_BUILD_OPTIONS } from "./support/worker_bundle.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../fixtures/write_server_launch.ts";

/** The Worker bundle's budget, gzipped (it was about 120 KB when this check was written). */
// 125 KB before the RE2 pattern engine, the provider fidelity table and the one-gate call
// path joined the bundle (181 KB at that merge); the budget keeps headroom without hiding a jump.
export const WORKER_GZIP_BUDGET = 200 * 1024;

/** Deadline of one install or one consumer run. */
const STEP_TIMEOUT_MS = 120_000;

interface Outcome {
  name: string;
  ms: number;
  problem?: string;
  detail?: string;
}

async function timed(name: string, body: () => Promise<string | void>): Promise<Outcome> {
  const start = performance.now();
  try {
    const detail = await body();
    return { name, ms: performance.now() - start, ...(detail ? { detail } : {}) };
  } catch (error) {
    return { name, ms: performance.now() - start, problem: (error as Error).message };
  }
}

async function must(command: string, args: string[], cwd: string, what: string): Promise<string> {
  const result = await run(command, args, {
    cwd,
    timeoutMs: STEP_TIMEOUT_MS,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp", NO_COLOR: "1" },
  });
  if (result.code !== 0) {
    const lines = (result.stderr + result.stdout).trim().split("\n");
    const tail = (Deno.env.get("SLUICE_CHECK_VERBOSE") ? lines : lines.slice(-8)).join("\n  ");
    throw new Error(`${what} exited ${result.code}:\n  ${tail}`);
  }
  return result.stdout;
}

/** The package.json the build wrote covers every deno.json export with the pinned versions. */
async function checkManifest(manifest: Record<string, unknown>): Promise<void> {
  const { exports } = await packageEntries();
  const packaged = Object.keys(manifest.exports as Record<string, unknown>).sort();
  if (packaged.join() !== Object.keys(exports).sort().join()) {
    throw new Error(`package exports ${packaged} differ from deno.json's`);
  }
  const pinned = await pinnedVersions();
  for (const [name, version] of Object.entries(manifest.dependencies as Record<string, string>)) {
    if (pinned[name] !== version) throw new Error(`dependency ${name}@${version} is not pinned`);
  }
}

async function newProject(parent: string, name: string): Promise<string> {
  const dir = `${parent}/${name}`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: `consumer-${name}`, private: true, type: "module" }) + "\n",
  );
  await Deno.copyFile(`${root}scripts/npm_consumer/consumer.mjs`, `${dir}/consumer.mjs`);
  return dir;
}

/** Type-checks `consumer_types.ts` in `project` against the installed `.d.ts` files. */
async function checkTypes(project: string): Promise<string> {
  const file = `${project}/consumer_types.ts`;
  await Deno.copyFile(`${root}scripts/npm_consumer/consumer_types.ts`, file);
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  });
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) =>
    ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")
  );
  if (problems.length > 0) throw new Error(problems.join("\n  "));
  return `${program.getSourceFiles().length} files, TypeScript ${ts.version}`;
}

async function workerBundle(project: string, url: string): Promise<Uint8Array> {
  await Deno.copyFile(`${root}scripts/npm_consumer/worker.mjs`, `${project}/worker.mjs`);
  try {
    const result = await esbuild.build({
      ...WORKER_BUILD_OPTIONS,
      entryPoints: [`${project}/worker.mjs`],
      absWorkingDir: project,
      write: false,
      minify: true,
      define: { __MCP_URL__: JSON.stringify(url) },
    });
    return result.outputFiles[0].contents;
  } finally {
    await esbuild.stop();
  }
}

async function main(): Promise<boolean> {
  const started = performance.now();
  const outcomes: Outcome[] = [];
  const work = await Deno.makeTempDir({ prefix: "sluice-npm-check-" });
  const ws = await createWriteWorkspace();
  let server: Awaited<ReturnType<typeof startWriteServerHttp>> | undefined;
  try {
    const [manifest] = await Promise.all([
      buildNpm(),
      ensureInstalled(RUNTIME_CACHE, {
        node: RUNTIME_VERSIONS.node,
        bun: RUNTIME_VERSIONS.bun,
        miniflare: RUNTIME_VERSIONS.miniflare,
      }),
    ]);
    await checkManifest(manifest);
    const npm = await onPath("npm");
    const node20 = await onPath("node");
    if (!npm || !node20) throw new Error("node and npm must be on PATH");
    const node20Version = (await must(node20, ["--version"], root, "node --version")).trim();
    if (!node20Version.startsWith("v20.")) {
      throw new Error(`the node on PATH is ${node20Version}, not Node 20`);
    }
    const [node22, bun] = await Promise.all([
      installedNode22(RUNTIME_CACHE),
      installedBun(RUNTIME_CACHE),
    ]);
    const packed = await must(npm, ["pack", "--pack-destination", work], NPM_DIR, "npm pack");
    const tarball = `${work}/${packed.trim().split("\n").at(-1)}`;
    const tarballBytes = (await Deno.stat(tarball)).size;
    console.log(`packed ${tarball.slice(work.length + 1)}: ${tarballBytes} bytes`);

    // Fresh projects, installed in parallel: one by npm (run on Node 20 and 22), one by Bun.
    const [nodeProject, bunProject] = await Promise.all([
      newProject(work, "node"),
      newProject(work, "bun"),
    ]);
    const installs = await Promise.all([
      timed("npm install", () =>
        must(
          npm,
          [
            "install",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
            tarball,
          ],
          nodeProject,
          "npm install",
        ).then(() => {})),
      timed("bun add", () => must(bun, ["add", tarball], bunProject, "bun add").then(() => {})),
    ]);
    outcomes.push(...installs);
    if (installs.some((outcome) => outcome.problem)) return report(outcomes, started);

    outcomes.push(await timed("types", () => checkTypes(nodeProject)));
    server = await startWriteServerHttp(ws, "success");
    const consume = (name: string, runtime: string, project: string) =>
      timed(name, async () => {
        const db = `${work}/${name.replace(/\W+/g, "-")}.db`;
        const stdout = await must(
          runtime,
          ["consumer.mjs", server!.url, db, ws.ledger, name.replace(/\W+/g, "-")],
          project,
          `${name} consumer`,
        );
        if (!stdout.includes("consumer ok")) throw new Error(`no "consumer ok" in: ${stdout}`);
        return (await must(runtime, ["--version"], project, "version")).trim();
      });
    outcomes.push(
      ...await Promise.all([
        consume("node 20", node20, nodeProject),
        consume("node 22", node22, nodeProject),
        consume("bun", bun, bunProject),
      ]),
    );

    outcomes.push(
      await timed("workerd", async () => {
        const bundle = await workerBundle(nodeProject, server!.url);
        const gzip = gzipSync(bundle).length;
        const size = `bundle ${(bundle.length / 1024).toFixed(0)} KB minified, ` +
          `${(gzip / 1024).toFixed(1)} KB gzip (budget ${WORKER_GZIP_BUDGET / 1024} KB)`;
        console.log(`worker ${size}`);
        if (gzip > WORKER_GZIP_BUDGET) throw new Error(`over budget: ${size}`);
        const bundlePath = `${nodeProject}/worker.bundle.mjs`;
        await Deno.writeFile(bundlePath, bundle);
        const stdout = await must(
          node20,
          [
            `${root}scripts/smoke/workerd.mjs`,
            RUNTIME_CACHE,
            bundlePath,
          ],
          nodeProject,
          "miniflare",
        ); // Miniflare wants the module below its working directory
        const answer = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
        if (answer.tools !== 1 || answer.envelope?.structured?.found !== false) {
          throw new Error(`unexpected Worker answer: ${stdout.trim()}`);
        }
        return size;
      }),
    );
    return report(outcomes, started);
  } catch (error) {
    outcomes.push({ name: "setup", ms: 0, problem: (error as Error).message });
    return report(outcomes, started);
  } finally {
    await server?.stop();
    await ws.remove().catch(() => {});
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

function report(outcomes: Outcome[], started: number): boolean {
  for (const outcome of outcomes) {
    const status = outcome.problem ? `FAILED: ${outcome.problem}` : "ok";
    console.log(
      `${outcome.name.padEnd(12)} ${outcome.ms.toFixed(0).padStart(6)} ms  ${status}${
        outcome.detail && !outcome.problem ? `  (${outcome.detail})` : ""
      }`,
    );
  }
  const ok = outcomes.length > 0 && outcomes.every((outcome) => !outcome.problem);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`npm check ${ok ? "passed" : "FAILED"} in ${seconds} s`);
  return ok;
}

if (import.meta.main) Deno.exit(await main() ? 0 : 1);
