/**
 * Accepting a staged revision: the named tools are rebuilt from the revision's listing and
 * callable again; a changed tool not named stays stale.
 *
 * @module
 */
import { definitionDigest } from "../catalog/revisions.ts";
import { byLocalName } from "../catalog/snapshot.ts";
import { type ConnectionState, reloadServers } from "./connection_state.ts";
import { discoverServer } from "./discovery.ts";
import { ConnectConfigError } from "./errors.ts";
import type { AcceptOptions, StagedRevision } from "./revision.ts";
import type { ServerState } from "./server_state.ts";

const notStaged = () =>
  new ConnectConfigError(
    "connect_revision_invalid",
    "this revision is not staged in this connection",
  );

/**
 * Accepts in the server's listing slot: no listing runs meanwhile (its diff would be against
 * the catalog being replaced), and of two accepts of one revision the second finds it no
 * longer staged.
 */
export function accept(
  state: ConnectionState,
  revision: StagedRevision,
  options: AcceptOptions = {},
): Promise<void> {
  const server = (revision as Partial<StagedRevision> | undefined)?.server;
  const item = state.servers.find((entry) => entry.server.id === server);
  if (item?.relister === undefined) return Promise.reject(notStaged());
  return item.relister.exclusive(() => acceptStaged(state, item, revision, options));
}

/** The tools a revision lets the host take, checked against those it names. */
function takenTools(revision: StagedRevision, options: AcceptOptions): Set<string> {
  const { diff } = revision;
  const touched = new Set([...diff.added, ...diff.removed, ...diff.changed].map((t) => t.tool));
  const take = new Set(options.tools ?? touched);
  for (const name of take) {
    if (!touched.has(name)) {
      throw new ConnectConfigError(
        "connect_revision_invalid",
        `tool "${name}" is not added, changed or removed by revision ${revision.id}`,
      );
    }
  }
  return take;
}

async function acceptStaged(
  state: ConnectionState,
  item: ServerState,
  revision: StagedRevision,
  options: AcceptOptions,
): Promise<void> {
  const staged = item.staged;
  if (staged?.revision !== revision || state.closing !== undefined) throw notStaged();
  const { diff } = revision;
  const take = takenTools(revision, options);
  const catalog = item.catalog!;
  const stays = new Set([...diff.changed, ...diff.removed].map((t) => t.tool));
  // Changed or removed tools not taken keep their old, stale registration.
  const keep = catalog.tools.filter((tool) =>
    tool.source === "server" && stays.has(tool.allowed.tool) && !take.has(tool.allowed.tool)
  );
  const kept = new Set(keep.map((tool) => tool.allowed.tool));
  const removed = new Set(diff.removed.map((t) => t.tool));
  const ready = new Set(catalog.tools.map((tool) => tool.allowed.tool));
  const rebuild = item.server.tools.filter((tool) =>
    !kept.has(tool.tool) && !(removed.has(tool.tool) && take.has(tool.tool)) &&
    (ready.has(tool.tool) || take.has(tool.tool))
  );
  const fresh = await discoverServer(
    { ...item.server, tools: rebuild },
    item,
    state.limits,
    undefined,
    state.decidedBy,
    { locked: false, listing: staged.listing },
  );
  const tools = [...fresh.tools, ...keep].sort((a, b) => byLocalName(a.allowed, b.allowed));
  const definitions = new Map(catalog.definitions);
  for (const [name, definition] of fresh.definitions) {
    if (!kept.has(name)) definitions.set(name, definition);
  }
  for (const name of removed) if (take.has(name)) definitions.delete(name);
  const now = new Set(tools.map((tool) => tool.allowed.localName));
  const skipped = [
    ...fresh.skipped,
    ...catalog.skipped.filter((old) =>
      !now.has(old.name) && !fresh.skipped.some((item) => item.name === old.name)
    ),
  ];
  item.catalog = {
    ...fresh,
    tools,
    skipped,
    definitions,
    ...(catalog.lock ? { lock: catalog.lock } : {}),
  };
  // What was accepted is current while nothing changed since the revision was listed.
  const { generation } = staged;
  for (const tool of fresh.tools) {
    const definition = fresh.definitions.get(tool.allowed.tool);
    if (tool.source !== "server" || definition === undefined) continue;
    item.monitor.confirm(generation, tool.allowed.tool, await definitionDigest(definition));
  }
  item.staged = undefined;
  reloadServers(state);
}
