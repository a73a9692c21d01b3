/**
 * Runs the official MCP conformance runner (`@modelcontextprotocol/conformance`, both pinned
 * versions in `deno.json`) under Deno: the runner's own CLI needs Node 22, its code runs here.
 *
 * ```
 * deno run -A scripts/conformance_runner.ts <suite version> <runner arguments...>
 * deno run -A scripts/conformance_runner.ts 0.1.16 list --client
 * ```
 *
 * The suite version is removed from `process.argv` before the runner's entry point parses it.
 * Every scenario server the runner starts is bound to 127.0.0.1 (`fixtures/loopback_listen.ts`).
 *
 * @module
 */
import process from "node:process";
// The runner's scenario servers call `listen(0)`, which binds every interface: keep them on
// loopback (the URLs it hands out name `localhost`).
import "../fixtures/loopback_listen.ts";

/** The pinned suite versions, as `deno.json` maps them. */
export const SUITE_VERSIONS = ["0.1.16", "0.2.0-alpha.12"] as const;

/** One pinned suite version. */
export type SuiteVersion = typeof SUITE_VERSIONS[number];

if (import.meta.main) {
  const [version] = Deno.args;
  if (!SUITE_VERSIONS.includes(version as SuiteVersion)) {
    console.error(`usage: conformance_runner.ts <${SUITE_VERSIONS.join(" | ")}> <arguments...>`);
    Deno.exit(2);
  }
  // The runner's CLI reads process.argv from index 2: drop the version argument.
  process.argv.splice(2, 1);
  if (version === "0.1.16") {
    await import("@modelcontextprotocol/conformance/dist/index.js");
  } else {
    await import("@modelcontextprotocol/conformance-next/dist/index.js");
  }
}
