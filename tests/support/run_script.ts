/** Runs a Deno script of this repository as a separate process, as CI and a user would. */
import { root, run, type RunResult } from "../../scripts/support/npm_cache.ts";

/** `deno run -A <script> <args>` from the repository root, with piped output (10 min at most). */
export function runScript(script: string, ...args: string[]): Promise<RunResult> {
  return run(Deno.execPath(), ["run", "-A", "--quiet", script, ...args], {
    cwd: root,
    timeoutMs: 600_000,
  });
}
