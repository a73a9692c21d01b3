/**
 * Staging: a server listed again beside its current catalog, never replacing it. Unchanged tools
 * stay (or become again) current; a change becomes a staged revision the host may accept.
 *
 * @module
 */
import { listNamedTools, type ToolListing } from "../catalog/listing.ts";
import { definitionOfListed, diffDefinitions } from "../catalog/revisions.ts";
import { deepFreeze } from "../identity/mod.ts";
import type { ConnectionState } from "./connection_state.ts";
import { elapsed, emitEvent } from "./events.ts";
import { hasChanges, type StagedRevision, summarize } from "./revision.ts";
import type { ServerState } from "./server_state.ts";

/** Whether two diffs stage the same change: the same tools, digests and fields. */
function sameChanges(a: StagedRevision["diff"], b: StagedRevision["diff"]): boolean {
  const key = (diff: StagedRevision["diff"]) =>
    JSON.stringify([
      diff.added.map((t) => [t.tool, t.digest]),
      diff.removed.map((t) => [t.tool, t.digest]),
      diff.changed.map((t) => [t.tool, t.beforeDigest, t.afterDigest]),
    ]);
  return key(a) === key(b);
}

/** Lists one server again and stages what changed (nothing when nothing did). */
export async function stage(
  state: ConnectionState,
  item: ServerState,
): Promise<StagedRevision | undefined> {
  const names = item.server.tools.filter((tool) => tool.spec === undefined).map((t) => t.tool);
  if (names.length === 0 || state.closing !== undefined || item.catalog === undefined) return;
  const start = performance.now();
  const monitor = item.monitor;
  let listing: ToolListing;
  try {
    listing = await listNamedTools(item.session, monitor, new Set(names), state.limits, undefined);
  } catch {
    return undefined; // the tools stay as they are: stale, when a change was heard
  }
  item.ttlMs = listing.ttlMs;
  const catalog = item.catalog;
  const current = catalog.tools.filter((tool) => tool.source === "server")
    .map((tool) => catalog.definitions.get(tool.allowed.tool)!);
  const diff = await diffDefinitions(current, [...listing.tools.values()].map(definitionOfListed));
  // A difference no notification announced still makes the changed tools stale.
  const changedNow = diff.changed.length + diff.removed.length > 0;
  const generation = changedNow && monitor.generation === listing.generation
    ? monitor.noteChange()
    : listing.generation;
  // Unchanged tools are what was reviewed, byte for byte: they stay current.
  for (const kept of diff.unchanged) monitor.confirm(generation, kept.tool, kept.digest);
  if (!hasChanges(diff)) {
    item.staged = undefined;
    return undefined;
  }
  const staged = item.staged;
  if (staged !== undefined && sameChanges(staged.revision.diff, diff)) {
    // The same change listed again (a re-list on a hint, a re-opened stream): the revision
    // the host may be reviewing stays, with the newer listing behind it; no new event.
    item.staged = { revision: staged.revision, listing, generation };
    return staged.revision;
  }
  const revision: StagedRevision = Object.freeze({
    id: `${item.server.id}#${++state.revisionCount}`,
    server: item.server.id,
    protocolVersion: monitor.protocolVersion ?? "",
    diff: deepFreeze(diff),
  });
  item.staged = { revision, listing, generation };
  emitEvent(state.config.onEvent, {
    kind: "revision",
    server: item.server.id,
    ok: true,
    durationMs: elapsed(start),
    catalogDigest: catalog.snapshot?.revisionDigest ?? null,
    revision: summarize(revision),
  });
  return revision;
}
