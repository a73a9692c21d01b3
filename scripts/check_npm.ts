/**
 * The npm consumer check: builds the package (`deno task build:npm`), packs it with `npm pack`,
 * and installs the tarball into fresh projects as a new user would:
 *
 * - `npm install <tarball>` alone (a project for Node 20 and 22, one for Deno): npm must print
 *   no warning (no `EBADENGINE` on Node 20), and the first-run consumer
 *   (`scripts/npm_consumer/consumer.mjs`: connect to the loopback write fixture, a provider
 *   export and a read call, a server that is down, `sluice login --help` from the installed bin,
 *   `dependency_missing` for each optional package, DNS pinning) passes on Node 20, Node 22 and
 *   Deno; `bun add <tarball>` and the same consumer on Bun;
 * - the tarball with every optional package (npm with `ai` 6, Bun with `ai` 7):
 *   `consumer_types.ts` type-checks against the installed `.d.ts` files in both, and `consumer_stores.mjs` (a write approved by the
 *   packaged CLI in a `LibsqlApprovalStore`) passes on Node 20, Node 22 and Bun;
 * - a Worker bundled from the first project with the settings users are given
 *   (`scripts/npm_consumer/worker.mjs`) contains no undici, `node:` module or `import()`, and runs
 *   connect() and a read call, and the down server, in workerd through Miniflare's defaults.
 *
 * Prints one line per step and the size figures (`scripts/support/package_size.ts`), and fails
 * when a step fails or a figure is over its budget. npm and Bun keep their own caches, and the
 * runtimes stay installed in `.cache/smoke/`, so a repeated run mostly measures the consumers.
 *
 * `deno run -A scripts/check_npm.ts` ends with `npm check passed` or `npm check FAILED`.
 *
 * @module
 */
import ts from "typescript";
import { buildNpm, NODE_ENGINE, NPM_DIR } from "./build_npm.ts";
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
} from "../fixtures/package/npm_cache.ts";
import { packageEntries } from "../fixtures/package/package_graph.ts";
import {
  installedFigures,
  type SizeFigures,
  sizeReport,
  workerBundle,
  workerBundleProblems,
} from "./support/package_size.ts";
import { OPTIONAL_PACKAGES } from "../src/optional_packages.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../fixtures/write_server_launch.ts";

/** Deadline of one install or one consumer run. */
const STEP_TIMEOUT_MS = 180_000;

/**
 * The optional packages at a tested version: `ai` at its first tested major (6, which runs on
 * Node 20) or its last (7, which needs Node 22), every other package at its last.
 */
function peers(ai: "first" | "last"): string[] {
  return Object.entries(OPTIONAL_PACKAGES).map(([name, entry]) =>
    `${name}@${name === "ai" && ai === "first" ? entry.tested[0] : entry.tested.at(-1)}`
  );
}

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

/** Runs a command; throws with the output's tail unless it exits 0. Returns stdout and stderr. */
export async function must(
  command: string,
  args: string[],
  cwd: string,
  what: string,
): Promise<{ stdout: string; stderr: string }> {
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
  return result;
}

/**
 * The package.json the build wrote: every deno.json export, the pinned versions, the optional
 * packages only as optional peers, and the engines.
 */
async function checkManifest(manifest: Record<string, unknown>): Promise<void> {
  const { exports } = await packageEntries();
  const packaged = Object.keys(manifest.exports as Record<string, unknown>).sort();
  if (packaged.join() !== Object.keys(exports).sort().join()) {
    throw new Error(`package exports ${packaged} differ from deno.json's`);
  }
  const pinned = await pinnedVersions();
  const dependencies = manifest.dependencies as Record<string, string>;
  for (const [name, version] of Object.entries(dependencies)) {
    if (pinned[name] !== version) throw new Error(`dependency ${name}@${version} is not pinned`);
    if (Object.hasOwn(OPTIONAL_PACKAGES, name)) throw new Error(`${name} is not optional`);
  }
  const peers = manifest.peerDependencies as Record<string, string>;
  const meta = manifest.peerDependenciesMeta as Record<string, { optional?: boolean }>;
  for (const [name, entry] of Object.entries(OPTIONAL_PACKAGES)) {
    if (peers[name] !== entry.range || meta[name]?.optional !== true) {
      throw new Error(`${name} is not an optional peer with range ${entry.range}`);
    }
  }
  const engines = manifest.engines as Record<string, string>;
  if (engines.node !== NODE_ENGINE) throw new Error(`engines.node is ${engines.node}`);
}

/** A fresh project `parent/name` with the given files of `scripts/npm_consumer/`. */
export async function newProject(
  parent: string,
  name: string,
  files: string[],
): Promise<string> {
  const dir = `${parent}/${name}`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: `consumer-${name}`, private: true, type: "module" }) + "\n",
  );
  for (const file of files) {
    await Deno.copyFile(`${root}scripts/npm_consumer/${file}`, `${dir}/${file}`);
  }
  return dir;
}

/** `npm install` into `project`; npm must not warn (an engine it does not meet, a peer). */
export async function npmInstall(npm: string, project: string, packages: string[]): Promise<void> {
  const { stdout, stderr } = await must(
    npm,
    ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages],
    project,
    "npm install",
  );
  const warnings = `${stderr}\n${stdout}`.split("\n").filter((line) => /\bwarn\b/i.test(line));
  if (warnings.length > 0) throw new Error(`npm warned:\n  ${warnings.join("\n  ")}`);
}

/** Type-checks `consumer_types.ts` in `project` against the installed `.d.ts` files. */
function checkTypes(project: string): string {
  const file = `${project}/consumer_types.ts`;
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  });
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) =>
    `${diagnostic.file?.fileName.slice(project.length + 1) ?? ""}: ` +
    ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")
  );
  if (problems.length > 0) throw new Error(problems.join("\n  "));
  return `${program.getSourceFiles().length} files, TypeScript ${ts.version}`;
}

/** A loopback URL where nothing listens (a port just released). */
function closedPortUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}/mcp`;
}

async function main(): Promise<boolean> {
  const started = performance.now();
  const outcomes: Outcome[] = [];
  const work = await Deno.makeTempDir({ prefix: "sluice-npm-check-" });
  const ws = await createWriteWorkspace();
  let server: Awaited<ReturnType<typeof startWriteServerHttp>> | undefined;
  const figures: Partial<SizeFigures> = {};
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
    const node20Version = (await must(node20, ["--version"], root, "node --version")).stdout.trim();
    if (!node20Version.startsWith("v20.")) {
      throw new Error(`the node on PATH is ${node20Version}, not Node 20`);
    }
    const [node22, bun] = await Promise.all([
      installedNode22(RUNTIME_CACHE),
      installedBun(RUNTIME_CACHE),
    ]);
    const packed = await must(npm, ["pack", "--pack-destination", work], NPM_DIR, "npm pack");
    const tarball = `${work}/${packed.stdout.trim().split("\n").at(-1)}`;
    figures.tarballBytes = (await Deno.stat(tarball)).size;

    // Fresh projects, installed in parallel.
    const light = ["consumer.mjs"];
    const full = ["consumer_stores.mjs", "consumer_types.ts"];
    const [nodeProject, denoProject, bunProject, nodeStores, bunStores] = await Promise.all([
      newProject(work, "node", [...light, "worker.mjs"]),
      newProject(work, "deno", light),
      newProject(work, "bun", light),
      newProject(work, "node-stores", full),
      newProject(work, "bun-stores", full),
    ]);
    const installs = await Promise.all([
      timed("npm install", () => npmInstall(npm, nodeProject, [tarball])),
      timed("npm for deno", () => npmInstall(npm, denoProject, [tarball])),
      timed("bun add", () => must(bun, ["add", tarball], bunProject, "bun add").then(() => {})),
      timed("npm + peers", () => npmInstall(npm, nodeStores, [tarball, ...peers("first")])),
      timed(
        "bun + peers",
        () => must(bun, ["add", tarball, ...peers("last")], bunStores, "bun add").then(() => {}),
      ),
    ]);
    outcomes.push(...installs);
    if (installs.some((outcome) => outcome.problem)) return report(outcomes, figures, started);
    Object.assign(figures, await installedFigures(nodeProject, manifest.name as string));

    outcomes.push(
      await timed("types ai 6", () => Promise.resolve(checkTypes(nodeStores))),
      await timed("types ai 7", () => Promise.resolve(checkTypes(bunStores))),
    );
    server = await startWriteServerHttp(ws, "success");
    const url = server.url;
    const downUrl = closedPortUrl();
    const firstRun = (name: string, runtime: string, args: string[], project: string) =>
      timed(name, async () => {
        const { stdout } = await must(
          runtime,
          [...args, "consumer.mjs", url, downUrl, name.replace(/\W+/g, "-")],
          project,
          `${name} consumer`,
        );
        const line = stdout.split("\n").find((text) => text.startsWith("consumer ok"));
        if (line === undefined) throw new Error(`no "consumer ok" in: ${stdout}`);
        return line.replace(/^consumer ok \S+ \((.*)\)$/, "$1");
      });
    const stores = (name: string, runtime: string, project: string) =>
      timed(name, async () => {
        const label = name.replace(/\W+/g, "-");
        const { stdout } = await must(
          runtime,
          ["consumer_stores.mjs", url, `${work}/${label}.db`, ws.ledger, label],
          project,
          `${name} consumer`,
        );
        if (!stdout.includes("consumer ok")) throw new Error(`no "consumer ok" in: ${stdout}`);
        return (await must(runtime, ["--version"], project, "version")).stdout.trim();
      });
    outcomes.push(
      ...await Promise.all([
        firstRun("node 20", node20, [], nodeProject),
        firstRun("node 22", node22, [], nodeProject),
        firstRun("deno", Deno.execPath(), ["run", "-A"], denoProject),
        firstRun("bun", bun, [], bunProject),
      ]),
      ...await Promise.all([
        stores("node 20 store", node20, nodeStores),
        stores("node 22 store", node22, nodeStores),
        stores("bun store", bun, bunStores),
      ]),
    );

    outcomes.push(
      await timed("workerd", async () => {
        const bundle = await workerBundle(nodeProject, "worker.mjs", {
          __MCP_URL__: JSON.stringify(url),
        });
        figures.workerBytes = bundle.code.length;
        figures.workerGzipBytes = bundle.gzipBytes;
        figures.workerParts = bundle.parts;
        const problems = workerBundleProblems(new TextDecoder().decode(bundle.code));
        if (problems.length > 0) throw new Error(problems.join("; "));
        // Miniflare wants the module below its working directory.
        const bundlePath = `${nodeProject}/worker.bundle.mjs`;
        await Deno.writeFile(bundlePath, bundle.code);
        const worker = async (path: string) => {
          const { stdout } = await must(
            node20,
            [`${root}scripts/smoke/workerd.mjs`, RUNTIME_CACHE, bundlePath, path],
            nodeProject,
            "miniflare",
          );
          return JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
        };
        const answer = await worker("/");
        if (answer.tools !== 1 || answer.envelope?.structured?.found !== false) {
          throw new Error(`unexpected Worker answer: ${JSON.stringify(answer)}`);
        }
        const down = await worker(`/?down=${encodeURIComponent(downUrl)}`);
        // connect() rejects with the server's code.
        if (down.rejected !== "transport_failed") {
          throw new Error(`unexpected Worker answer for a down server: ${JSON.stringify(down)}`);
        }
        return `dnsPinning ${answer.dnsPinning}; down server: rejected ${down.rejected}`;
      }),
    );
    return report(outcomes, figures, started);
  } catch (error) {
    outcomes.push({ name: "setup", ms: 0, problem: (error as Error).message });
    return report(outcomes, figures, started);
  } finally {
    await server?.stop();
    await ws.remove().catch(() => {});
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

function report(outcomes: Outcome[], figures: Partial<SizeFigures>, started: number): boolean {
  for (const outcome of outcomes) {
    const status = outcome.problem ? `FAILED: ${outcome.problem}` : "ok";
    console.log(
      `${outcome.name.padEnd(13)} ${outcome.ms.toFixed(0).padStart(6)} ms  ${status}${
        outcome.detail && !outcome.problem ? `  (${outcome.detail})` : ""
      }`,
    );
  }
  let ok = outcomes.length > 0 && outcomes.every((outcome) => !outcome.problem);
  if (figures.workerGzipBytes !== undefined && figures.installedBytes !== undefined) {
    const { lines, over } = sizeReport(figures as SizeFigures);
    for (const line of lines) console.log(line);
    for (const problem of over) console.log(`size FAILED: ${problem}`);
    ok &&= over.length === 0;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`npm check ${ok ? "passed" : "FAILED"} in ${seconds} s`);
  return ok;
}

if (import.meta.main) Deno.exit(await main() ? 0 : 1);
