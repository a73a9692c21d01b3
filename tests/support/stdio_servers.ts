/**
 * Stdio server commands for connect() tests: the repository's fixtures run by this Deno binary,
 * with an environment of only `HOME` (where Deno finds its npm cache) and what a test adds.
 */
import type { StdioCommand } from "../../mod.ts";

/** The repository root, with a trailing slash. */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/**
 * The command that runs `fixtures/<script>` with `args` over stdio.
 *
 * @param script a fixture's file name
 * @param args its arguments
 * @param extra more of the entry (env, bounds)
 */
export function fixtureCommand(
  script: string,
  args: readonly string[] = [],
  extra: Partial<StdioCommand> = {},
): StdioCommand {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", `${ROOT}fixtures/${script}`, ...args],
    cwd: ROOT,
    inheritEnv: ["HOME", "DENO_DIR"],
    ...extra,
  };
}
