/**
 * Runtime smoke (`deno task test` step `smoke`): bundles `scripts/smoke/entry.ts` with esbuild
 * for a neutral, Worker-compatible target, runs the one bundle under Deno, Bun and workerd
 * (through Miniflare, no `nodejs_compat`), and fails unless every runtime returns the identical
 * result, the Worker refuses code generation and nothing threw an `EvalError`.
 *
 * Bun and Miniflare come from npm, pinned below, installed once into `.cache/smoke/`
 * (gitignored); a `bun` already on PATH is used as is.
 *
 * @module
 */
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import type { JsonValue } from "../../src/identity/mod.ts";
import type { SmokeResult } from "./entry.ts";
import {
  ensureInstalled,
  installedBun,
  installedVersion,
  onPath,
  pinned,
  root,
  run,
  RUNTIME_CACHE,
  RUNTIME_VERSIONS,
} from "../../fixtures/package/npm_cache.ts";
import { WORKER_BUILD_OPTIONS } from "../support/worker_bundle.ts";

const cacheDir = RUNTIME_CACHE;
const outDir = `${cacheDir}/out`;
const bundlePath = `${outDir}/bundle.mjs`;
const runnerPath = `${outDir}/main.mjs`;

/** Packages the bundle imports by bare specifier; versions come from deno.json `imports`. */
const BUNDLED_PACKAGES = ["@cfworker/json-schema", "@noble/hashes", "re2js"];

interface Outcome {
  runtime: string;
  version: string;
  ms: number;
  result?: SmokeResult;
  problem?: string;
}

async function bundle(): Promise<void> {
  await Deno.mkdir(outDir, { recursive: true });
  try {
    await esbuild.build({
      entryPoints: [`${root}scripts/smoke/entry.ts`],
      ...WORKER_BUILD_OPTIONS,
      outfile: bundlePath,
      // Bare specifiers resolve from the cache, where the deno.json versions are installed.
      nodePaths: [`${cacheDir}/node_modules`],
    });
  } finally {
    await esbuild.stop();
  }
  await Deno.writeTextFile(
    runnerPath,
    'import { smoke } from "./bundle.mjs";\nconsole.log(JSON.stringify(await smoke()));\n',
  );
}

async function runtimeOutcome(
  runtime: string,
  version: string,
  command: string,
  args: string[],
  cwd: string,
): Promise<Outcome> {
  const start = performance.now();
  const outcome: Outcome = { runtime, version, ms: 0 };
  try {
    const { code, stdout, stderr } = await run(command, args, { cwd });
    outcome.ms = performance.now() - start;
    if (/EvalError/.test(stdout + stderr)) {
      outcome.problem = "EvalError: code generation was attempted";
    } else if (code !== 0) {
      outcome.problem = `exit ${code}: ${stderr.trim().split("\n").slice(-5).join(" | ")}`;
    } else {
      const line = stdout.trim().split("\n").at(-1) ?? "";
      outcome.result = JSON.parse(line) as SmokeResult;
      if (outcome.result.runtime.unexpectedError !== null) {
        outcome.problem = `threw ${outcome.result.runtime.unexpectedError}`;
      }
    }
  } catch (error) {
    outcome.ms = performance.now() - start;
    outcome.problem = `could not run: ${(error as Error).message}`;
  }
  return outcome;
}

/**
 * Checks Deno's schema results against outcomes known from the sample schema itself, so that
 * "same as Deno" cannot mean "equally wrong". Returns a problem, or undefined.
 */
function schemaProblem(schema: Record<string, JsonValue>): string | undefined {
  if (schema.checked !== "ok") return "the sample schema was not admitted by checkSchema";
  if (schema.good !== "valid") return "the good value was not valid";
  const bad = Array.isArray(schema.bad) ? schema.bad.map(String) : [];
  const wanted = ["pattern /owner", "pattern /labels/0", "maximum /count", "/extra"];
  const missing = wanted.filter((part) => !bad.some((error) => error.includes(part)));
  if (missing.length > 0) return `the bad value's errors lack: ${missing.join(", ")}`;
  if (!JSON.stringify(schema.missingRequired).includes("required")) {
    return "a missing required member was not reported";
  }
  if (!JSON.stringify(schema.rejectedSchema).includes("schema_keyword_unsupported")) {
    return "an x-* keyword was not refused";
  }
  return undefined;
}

async function main(): Promise<boolean> {
  const started = performance.now();
  const pathBun = await onPath("bun");
  const wanted: Record<string, string> = {
    miniflare: RUNTIME_VERSIONS.miniflare,
    ...await pinned(BUNDLED_PACKAGES),
  };
  if (!pathBun) wanted.bun = RUNTIME_VERSIONS.bun;
  await ensureInstalled(cacheDir, wanted);
  const bun = pathBun ?? await installedBun(cacheDir);
  const node = await onPath("node");
  if (!node) throw new Error("node is not on PATH");

  await bundle();
  const bundleBytes = (await Deno.stat(bundlePath)).size;
  console.log(`bundled scripts/smoke/entry.ts: ${bundleBytes} bytes`);

  const bunVersion = `${(await run(bun, ["--version"])).stdout.trim()} (${
    pathBun ? "PATH" : "npm"
  })`;
  const outcomes = await Promise.all([
    runtimeOutcome("deno", Deno.version.deno, Deno.execPath(), [
      "run",
      "--no-config",
      "--no-lock",
      runnerPath,
    ], outDir),
    runtimeOutcome("bun", bunVersion, bun, [runnerPath], outDir),
    runtimeOutcome(
      "workerd",
      `miniflare ${await installedVersion(cacheDir, "miniflare")}`,
      node,
      [`${root}scripts/smoke/workerd.mjs`, cacheDir, bundlePath],
      root,
    ),
  ]);

  const [deno, ...others] = outcomes;
  // Deno's own result is checked against an independent SHA-256 (node:crypto) of the RFC 8785
  // sample's canonical text, so "identical to Deno" means identical to a known-good answer.
  const expectedText = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,` +
    String.raw`1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  const expectedDigest = "sha256:" + createHash("sha256").update(expectedText).digest("hex");
  const identity = deno.result?.checks.identity as Record<string, unknown> | undefined;
  if (deno.result && !deno.problem) {
    if (identity?.rfcSampleCanonical !== expectedText) {
      deno.problem = "RFC 8785 sample canonical form is wrong";
    } else if (identity?.rfcSampleDigest !== expectedDigest) {
      deno.problem = "RFC 8785 sample digest differs from node:crypto's";
    } else if (JSON.stringify(identity).includes("unexpected")) {
      deno.problem = "a refusal threw something other than JsonValueError";
    }
  }
  const schema = deno.result?.checks.schema as Record<string, JsonValue> | undefined;
  if (schema && !deno.problem) deno.problem = schemaProblem(schema);
  const reference = JSON.stringify(deno.result?.checks);
  for (const outcome of others) {
    if (outcome.problem || !outcome.result) continue;
    const checks = JSON.stringify(outcome.result.checks);
    if (checks !== reference) {
      outcome.problem =
        `result differs from Deno's:\n  deno: ${reference}\n  ${outcome.runtime}: ${checks}`;
    }
  }
  const workerd = outcomes.find((outcome) => outcome.runtime === "workerd")!;
  if (!workerd.problem && workerd.result?.runtime.codeGeneration !== "forbidden") {
    workerd.problem = "workerd allowed code generation: the smoke would not prove anything";
  }

  for (const outcome of outcomes) {
    const status = outcome.problem ? `FAILED: ${outcome.problem}` : "ok";
    const codegen = outcome.result?.runtime.codeGeneration ?? "?";
    console.log(
      `${outcome.runtime.padEnd(8)} ${outcome.version.padEnd(22)} ` +
        `${outcome.ms.toFixed(0).padStart(6)} ms  codegen ${codegen.padEnd(9)} ${status}`,
    );
  }
  const ok = outcomes.every((outcome) => !outcome.problem);
  console.log(
    `smoke ${ok ? "passed" : "FAILED"} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return ok;
}

if (import.meta.main) {
  const ok = await main();
  Deno.exit(ok ? 0 : 1);
}
