/**
 * The process seam of the stdio transport: the runtime's spawner (`Deno.Command` on Deno,
 * `node:child_process` on Node and Bun), found by feature detection on `globalThis` without
 * importing `node:*`, so a Worker bundle pulls in nothing runtime-specific and `spawnerOf()`
 * answers `undefined` there.
 *
 * @module
 */
import { denoSpawner } from "./deno_process.ts";
import { nodeSpawner } from "./node_process.ts";
import type { Spawner } from "./spawn_types.ts";

/** The spawner of the current runtime (Deno, then Node/Bun), or `undefined` (Workers). */
export function spawnerOf(): Spawner | undefined {
  return denoSpawner() ?? nodeSpawner();
}
