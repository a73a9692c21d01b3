/**
 * Ends every stdio server still running when the host process exits: one handler, installed at
 * the first spawn, on Deno's `unload` event or Node's and Bun's `process` `exit` event (both run
 * on a normal end and on `Deno.exit()` / `process.exit()`), which sends SIGKILL to each live
 * child's process group. A host killed by a signal it does not handle runs no handler; its
 * children then see their stdin close.
 *
 * @module
 */
import type { ChildProcessHandle } from "./spawn_types.ts";

const live = new Set<ChildProcessHandle>();
let installed = false;

function killAll(): void {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

function install(): void {
  installed = true;
  const global = globalThis as {
    Deno?: unknown;
    addEventListener?: (type: string, listener: () => void) => void;
    process?: { on?: (event: string, listener: () => void) => void };
  };
  if (global.Deno !== undefined && typeof global.addEventListener === "function") {
    global.addEventListener("unload", killAll);
  } else if (typeof global.process?.on === "function") {
    global.process.on("exit", killAll);
  }
}

/**
 * Keeps `child` on the list that the host's exit ends; returns the function that takes it off
 * (once it exited, or was ended by `close()`).
 *
 * @param child a running child
 */
export function guardUntilExit(child: ChildProcessHandle): () => void {
  if (!installed) install();
  live.add(child);
  return () => {
    live.delete(child);
  };
}
