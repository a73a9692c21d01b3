/** Runs a Deno script of this repository as a separate process, as CI and a user would. */
import { root, run, type RunResult } from "../../fixtures/package/npm_cache.ts";

/** `deno run -A <script> <args>` from the repository root, with piped output (10 min at most). */
export function runScript(script: string, ...args: string[]): Promise<RunResult> {
  return run(Deno.execPath(), ["run", "-A", "--quiet", script, ...args], {
    cwd: root,
    timeoutMs: 600_000,
  });
}

/**
 * `cli.ts <args>` as a process with no stdin, for a command expected to end by itself.
 * One still running after `limitMs` (a hang) is killed by its PID and the returned promise
 * rejects, so the test fails instead of hanging.
 */
export async function runSluice(
  args: readonly string[],
  options: { env?: Record<string, string>; clearEnv?: boolean; limitMs?: number } = {},
): Promise<RunResult> {
  const limitMs = options.limitMs ?? 60_000;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "cli.ts", ...args],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.clearEnv === true ? { clearEnv: true } : {}),
  }).spawn();
  const output = child.output();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), limitMs);
  });
  const done = await Promise.race([output, hung]);
  clearTimeout(timer);
  if (done === undefined) {
    Deno.kill(child.pid, "SIGKILL");
    await output;
    throw new Error(`sluice ${args.join(" ")} was still running after ${limitMs} ms; killed`);
  }
  const decoder = new TextDecoder();
  return {
    code: done.code,
    stdout: decoder.decode(done.stdout),
    stderr: decoder.decode(done.stderr),
  };
}
