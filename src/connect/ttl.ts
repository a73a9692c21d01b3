/**
 * The `ttlMs` hint of a `tools/list` result, as connect() honours it where no change stream
 * exists: list again after it, within fixed bounds.
 *
 * @module
 */
import type { ConnectionState } from "./connection_state.ts";
import type { ServerState } from "./server_state.ts";

/**
 * The shortest wait before listing again on a `ttlMs` hint: a hint of 0 ("stale at once",
 * the 2026-07-28 default) or any shorter one is read as this, so no server can make the
 * connection list in a loop.
 *
 * @category Agent developers: connect()
 */
export const MIN_TTL_RELIST_MS = 1_000;

/**
 * The longest wait before listing again on a `ttlMs` hint (one hour).
 *
 * @category Agent developers: connect()
 */
export const MAX_TTL_RELIST_MS = 3_600_000;

/**
 * How long connect() waits before listing again on a hint of `ttlMs`: the hint clamped to
 * {@link MIN_TTL_RELIST_MS}..{@link MAX_TTL_RELIST_MS}.
 *
 * @example
 * ```ts
 * import { ttlRelistDelay } from "./ttl.ts";
 * console.assert(ttlRelistDelay(0) === 1_000);
 * ```
 *
 * @param ttlMs the listing's hint (a non-negative integer)
 *
 * @category Agent developers: connect()
 */
export function ttlRelistDelay(ttlMs: number): number {
  return Math.min(Math.max(ttlMs, MIN_TTL_RELIST_MS), MAX_TTL_RELIST_MS);
}

/**
 * Where no change stream is open and the last listing carried a `ttlMs` hint: asks for a
 * listing after it (clamped: {@link ttlRelistDelay}). Replaces any timer set before.
 *
 * @param state the connection
 * @param item the server
 *
 * @category Agent developers: connect()
 */
export function scheduleTtl(state: ConnectionState, item: ServerState): void {
  clearTimeout(item.ttlTimer);
  item.ttlTimer = undefined;
  if (state.config.changeDetection !== true || state.closing !== undefined) return;
  if (item.ttlMs === undefined || item.session.changeStream !== undefined) return;
  const delay = ttlRelistDelay(item.ttlMs);
  item.ttlTimer = setTimeout(() => {
    item.ttlTimer = undefined;
    item.relister!.request();
  }, delay);
}
