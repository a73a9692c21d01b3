/**
 * Refresh: when a set-up server is listed again. A change heard (a `list_changed`, a re-opened
 * change stream, a `ttlMs` hint coming due) asks the server's relister; `refresh()` lists every
 * server at once.
 *
 * @module
 */
import type { ConnectionState } from "./connection_state.ts";
import { DEFAULT_RELIST_INTERVAL_MS, Relister } from "./relister.ts";
import type { StagedRevision } from "./revision.ts";
import type { ServerState } from "./server_state.ts";
import { stage } from "./staging.ts";
import { scheduleTtl } from "./ttl.ts";

/**
 * Starts hearing a server that was set up: its re-listing slot and change listeners. A failed
 * server gets them once a reconnect sets it up.
 */
export async function activate(state: ConnectionState, item: ServerState): Promise<void> {
  const interval = state.config.minRelistIntervalMs ?? DEFAULT_RELIST_INTERVAL_MS;
  const relister = new Relister(
    () => stage(state, item),
    interval,
    () => scheduleTtl(state, item),
  );
  item.relister = relister;
  // connect()'s own listing is the latest one: the first re-listing waits the interval.
  relister.began();
  item.monitor.onChange(() => relister.request());
  // A change made while the stream was down: the re-listing finds it by its digests.
  item.session.onStreamReopened(() => relister.request());
  const listed = item.catalog!.listing;
  item.ttlMs = listed?.ttlMs;
  // A change heard while (or since) connect() listed: list again before handing tools out.
  if (listed !== undefined && item.monitor.generation !== listed.generation) {
    await relister.now();
  } else {
    scheduleTtl(state, item);
  }
}

/** Lists every set-up server now; the revisions staged (only where something changed). */
export async function refresh(state: ConnectionState): Promise<StagedRevision[]> {
  const staged = await Promise.all(state.servers.map((item) => item.relister?.now()));
  return staged.filter((revision) => revision !== undefined);
}
