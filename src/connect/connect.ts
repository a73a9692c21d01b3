import { resolveToolLimits } from "../catalog/limits.ts";
import { DEFAULT_TIMEOUT_MS, type SecureFetch, secureFetch } from "../transport/secure_fetch.ts";
import {
  type ConnectAllConfig,
  type ConnectCommonOptions,
  resolveConfig,
  type ResolvedServer,
  type ServerConfig,
  type ToolSpec,
} from "./config.ts";
import type { ApprovalDecider } from "../catalog/write_bindings.ts";
import type { ReadSnapshot, WriteSnapshot } from "../catalog/snapshot.ts";
import { discoverServer, type ServerCatalog, type ServerExpectations } from "./discovery.ts";
import {
  createLock,
  type LockComparison,
  type LockedServer,
  lockServer,
  type SluiceLock,
} from "../catalog/lock.ts";
import { elapsed, emitEvent } from "./events.ts";
import {
  type ChangeMechanism,
  type ConnectReport,
  reportedLock,
  type ReportedProviders,
  reportedProviders,
  type ServerReport,
} from "./report.ts";
import { ServerSession } from "./session.ts";
import { ttlRelistDelay } from "./ttl.ts";
import { DEFAULT_RELIST_INTERVAL_MS, Relister } from "./relister.ts";
import { reloadToolkit, Toolkit, toolkitExports, type ToolkitServer } from "./toolkit.ts";
import { type AcceptOptions, hasChanges, type StagedRevision, summarize } from "./revision.ts";
import { ConnectConfigError } from "./errors.ts";
import { connectErrorOf, type FailedServer, serverFailureReason } from "./failure.ts";
import { listTools } from "../calls/discover.ts";
import type { ToolListing } from "../catalog/listing.ts";
import { definitionDigest, definitionOfListed, diffDefinitions } from "../catalog/revisions.ts";
import { byLocalName } from "../catalog/snapshot.ts";
import { deepFreeze } from "../identity/mod.ts";
import { Gate } from "../gate/gate.ts";
import { callInternals } from "../calls/registration.ts";
import { reportOf } from "../providers/reports.ts";
import type { InlineApprovalRequest } from "../gate/types.ts";

/**
 * A live set of governed tools: the toolkit, a report and `close()`.
 *
 * @category Agent developers: connect()
 */
export interface Connection {
  /** The allowlisted tools the model may call. */
  readonly toolkit: Toolkit;
  /**
   * Which tools are ready, which were skipped and why, and each server's state. It holds no
   * text a server chose (no description, schema, property or keyword name of the server):
   * schema locations are positional, changes are digests and field names, so a host may show
   * it to a model. The names and diffs are for people: {@link lockComparison} and
   * `sluice inspect`.
   */
  report(): ConnectReport;
  /**
   * With `connect({ lock })`: server `id`'s full lock comparison, each changed tool with its
   * diff (`renderLockMismatches` prints it). Server text, for people reviewing it; never hand
   * it to a model. `undefined` without a lock or for a server not listed.
   *
   * @param id the server id
   */
  lockComparison(id: string): LockComparison | undefined;
  /**
   * Each server's frozen catalogs: `read` for the tools that need no approval, `write`
   * (`schemaVersion: 2`, confirm policies stating who decides) for those that do.
   */
  catalogs(): readonly ServerCatalogs[];
  /**
   * A lock of what runs now: per contacted server, its protocol version and the definitions
   * of its ready tools as the server listed them (owner specs are the host's own and are not
   * locked). Write it with `serializeLock` as `sluice.lock.json`; pass it back (`parseLock`)
   * as `connect({ lock })`.
   */
  lock(): Promise<SluiceLock>;
  /**
   * Lists every server's allowed tools again into a staged revision beside the current
   * catalog, never replacing it: tools found unchanged stay (or become again) current, a
   * changed tool stays stale until accepted. A change heard on a server's change detection
   * does this by itself, coalesced and at most once per `minRelistIntervalMs`; `refresh()`
   * itself is not delayed (it lists as soon as a listing in flight ends). Returns the
   * revisions staged (only servers where something changed); emits one `revision` event each.
   */
  refresh(): Promise<readonly StagedRevision[]>;
  /** The staged revisions not yet accepted, one per server at most. */
  revisions(): readonly StagedRevision[];
  /**
   * Takes the named tools of a staged revision (default: all it adds, changes or removes):
   * they are rebuilt from the revision's listing and callable again; a changed tool not named
   * stays stale. A rebuilt write catalog has a new digest, so approvals bound to the old one
   * are refused at claim. Runs after a listing in flight of that server, never beside one.
   * Throws `ConnectConfigError` `connect_revision_invalid` for a revision that is not staged
   * (already accepted, by this call's twin too, or replaced) or a tool it does not touch.
   *
   * @param revision a revision from {@link refresh} or {@link revisions}
   * @param options the tools to take
   */
  accept(revision: StagedRevision, options?: AcceptOptions): Promise<void>;
  /**
   * Tries a failed server again (`report().servers[i].status === "failed"`): a new session,
   * listed and checked as at set-up (against the connection's `lock` too). Its tools then join
   * the toolkit: `toolkit.tools` becomes a new frozen array (an array or provider export made
   * before stays as it was; export again to show a model the new tools), `report()` and its
   * `providers` include them, `lock()` covers the server. Resolves with the server's report;
   * a server that is not failed resolves at once, unchanged. Concurrent calls share one
   * attempt.
   *
   * @param id the server id
   * @throws {ConnectError} when the server still cannot be set up (its tools keep answering
   *   `mcp_server_unavailable`), or the connection is closed
   * @throws {ConnectConfigError} `connect_config_invalid` for an id this connection does not have
   */
  reconnect(id: string): Promise<ServerReport>;
  /** Closes every session (a legacy session is also deleted on the server). Idempotent. */
  close(): Promise<void>;
}

/**
 * One server's catalogs in a {@link Connection}.
 *
 * @category Agent developers: connect()
 */
export interface ServerCatalogs {
  /** Server id. */
  readonly server: string;
  /** The read catalog, or `null` when every allowed tool needs approval or none is ready. */
  readonly read: ReadSnapshot | null;
  /** The write catalog of the tools that need approval, or `null`. */
  readonly write: WriteSnapshot | null;
}

/**
 * Options of {@link connect}: one server, tools named by their plain remote names.
 *
 * @category Agent developers: connect()
 */
export interface ConnectOptions
  extends Omit<ConnectCommonOptions, "preApproved" | "specs" | "resendOnBrokenStream"> {
  /** Server id, prefix of every local name (default `"mcp"`). */
  readonly id?: string;
  /** Bearer token, sent only to the URL's origin. */
  readonly token?: string;
  /** OAuth 2.1 for the server, instead of `token` (see docs/oauth.md). */
  readonly auth?: ServerConfig["auth"];
  /** Trust the server's `readOnlyHint: true` (see `ServerConfig`). */
  readonly trustReadOnlyHint?: boolean;
  /** Exact remote tool names the model may call; no wildcards. */
  readonly allow: readonly string[];
  /** Remote tool names that need no approval (each must be allowed). */
  readonly preApproved?: readonly string[];
  /** Pre-approved remote tool names re-sent once when a 2026-07-28 reply stream breaks. */
  readonly resendOnBrokenStream?: readonly string[];
  /** Owner specs by remote tool name. */
  readonly specs?: readonly Omit<ToolSpec, "server">[];
}

interface Prepared {
  readonly server: ResolvedServer;
  /** The session, fetch and hold of now (a reconnect replaces all three). */
  session: ServerSession;
  fetch: SecureFetch;
  /** Ends the hold on the fetch's pinned connections (taken for the connection's lifetime). */
  release: () => void;
  catalog?: ServerCatalog;
  /** A reconnect in flight. */
  reconnecting?: Promise<ServerReport>;
  /** The server's staged revision, if any (a newer listing replaces it). */
  staged?: {
    readonly revision: StagedRevision;
    readonly listing: ToolListing;
    /** The monitor's generation the revision describes (a later change makes it stale). */
    readonly generation: number;
  };
  /** When the server is listed again: coalesced, at least the minimum interval apart. */
  relister?: Relister<StagedRevision | undefined>;
  /** The latest listing's `ttlMs` hint, and the timer that lists again after it. */
  ttlMs?: number;
  ttlTimer?: ReturnType<typeof setTimeout>;
}

/**
 * Connects to several MCP servers over Streamable HTTP and returns governed tools for exactly
 * the allowlisted `"server.tool"` entries. Nothing is read from the environment. Each server
 * gets the official v2 client over `secureFetch` (2026-07-28 first, then the 2025 handshake
 * limited to 2025-11-25 and 2025-06-18); every call runs through one `Gate`. A tool that does
 * not fit is skipped and reported. A server that cannot be reached or is refused fails only its
 * own tools: it is `"failed"` in `report()` with a `reason`, its tools answer
 * `mcp_server_unavailable`, and `connection.reconnect(id)` tries it again. When no server can
 * be set up, or any cannot with `requireAll: true`, it rejects with a {@link ConnectError}.
 *
 * @example
 * ```ts
 * import { connectAll } from "@sluice/mcp";
 * const connection = await connectAll({
 *   servers: [{ id: "docs", url: "https://mcp.example.com/mcp", token: Deno.env.get("TOKEN") }],
 *   allow: ["docs.search", "docs.delete_page"],
 *   preApproved: ["docs.search"],
 *   approve: (server, tool, args) => confirm(`${server}.${tool} ${JSON.stringify(args)}?`),
 *   onEvent: (event) => console.log(event),
 * });
 * try {
 *   const tools = connection.toolkit.toAnthropicTools();
 *   const result = await connection.toolkit.call("docs__search", { query: "sluice" });
 * } finally {
 *   await connection.close();
 * }
 * ```
 *
 * @param config servers, allowlist and governance
 * @throws {ConnectConfigError} for a configuration sluice refuses
 * @throws {ConnectError} when no server can be set up, or (`requireAll`) any one cannot
 *
 * @category Agent developers: connect()
 */
export async function connectAll(config: ConnectAllConfig): Promise<Connection> {
  const servers = resolveConfig(config).filter((server) => server.tools.length > 0);
  const limits = resolveToolLimits(config.limits);
  const transport = config.transport ?? {};
  const timeoutMs = transport.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Who decides the calls that need approval, as every write catalog records it.
  const approve = config.approve;
  const decidedBy: ApprovalDecider = approve !== undefined
    ? "inline"
    : config.store !== undefined
    ? "store"
    : "none";
  /** A server's session over its own hardened fetch, held for the connection's lifetime. */
  const open = (server: ResolvedServer) => {
    const fetch = secureFetch({
      ...transport,
      ...(server.token !== undefined
        ? { token: server.token, tokenOrigin: server.url.origin }
        : {}),
    });
    const sessionFetch = server.auth !== undefined
      ? server.auth.fetchFor(server.url, transport, {
        legacyDiscovery: config.legacyProtocolVersions?.includes("2025-03-26") === true,
      })
      : fetch;
    const session = new ServerSession({
      url: server.url,
      fetch: sessionFetch,
      timeoutMs,
      ...(config.changeDetection === true ? { changeDetection: true } : {}),
      ...(config.eraCache ? { eraCache: config.eraCache } : {}),
      ...(config.legacyProtocolVersions
        ? { legacyProtocolVersions: [...config.legacyProtocolVersions] }
        : {}),
    });
    return { session, fetch, release: sessionFetch.hold() };
  };
  const prepared: Prepared[] = servers.map((server) => ({ server, ...open(server) }));
  const makeGate = (toolkitServers: readonly ToolkitServer[]) =>
    new Gate({
      catalogs: toolkitServers.map((server) => ({
        registrations: server.tools.map((tool) => tool.registration),
      })),
      ...(config.store !== undefined ? { store: config.store } : {}),
      ...(approve !== undefined
        ? {
          approve: (request: InlineApprovalRequest) =>
            approve(request.server, request.remoteName, request.arguments),
        }
        : {}),
      ...(config.approvalTtlMs !== undefined ? { approvalTtlMs: config.approvalTtlMs } : {}),
      ...(config.onPending !== undefined ? { onPending: config.onPending } : {}),
      ...(config.allowNonDurableStoreForTests === true
        ? { allowNonDurableStoreForTests: true }
        : {}),
    });
  const serversNow = () => prepared.map(toolkitServerOf);
  /** Lists and checks one server (at set-up, or again on reconnect); one discovery event. */
  const discover = async (item: Prepared, signal: AbortSignal | undefined) => {
    const start = performance.now();
    item.catalog = await discoverServer(
      item.server,
      item.session,
      limits,
      signal,
      decidedBy,
      expectationsOf(config.lock, item.server.id),
    );
    emitEvent(config.onEvent, {
      kind: "discovery",
      server: item.server.id,
      ok: item.catalog.errorCode === undefined,
      ...(item.catalog.errorCode !== undefined ? { errorCode: item.catalog.errorCode } : {}),
      durationMs: elapsed(start),
      catalogDigest: item.catalog.snapshot?.revisionDigest ?? null,
    });
  };
  let toolkitServers: ToolkitServer[];
  let gate: Gate;
  try {
    await Promise.all(prepared.map((item) => discover(item, config.signal)));
    const failed = prepared.filter((item) => item.catalog!.errorCode !== undefined);
    if (failed.length === prepared.length || (failed.length > 0 && config.requireAll === true)) {
      throw connectErrorOf(failed.map(failedServerOf));
    }
    toolkitServers = serversNow();
    gate = makeGate(toolkitServers);
  } catch (error) {
    await closeSessions(prepared);
    throw error;
  }
  const toolkit = new Toolkit({
    servers: toolkitServers,
    runId: crypto.randomUUID(),
    gate,
    ...(config.store !== undefined ? { store: config.store } : {}),
    ...(config.onEvent ? { onEvent: config.onEvent } : {}),
  });
  let closing: Promise<void> | undefined;
  let revisionCount = 0;
  /** Lists one server again and stages what changed (nothing when nothing did). */
  const stage = async (item: Prepared): Promise<StagedRevision | undefined> => {
    const names = item.server.tools.filter((tool) => tool.spec === undefined).map((t) => t.tool);
    if (names.length === 0 || closing !== undefined || item.catalog === undefined) return;
    const start = performance.now();
    const monitor = item.session.monitor;
    let listing: ToolListing;
    try {
      listing = await listTools(item.session, names, { monitor, limits });
    } catch {
      return undefined; // the tools stay as they are: stale, when a change was heard
    }
    item.ttlMs = listing.ttlMs;
    const catalog = item.catalog;
    const current = catalog.tools.filter((tool) => tool.source === "server")
      .map((tool) => catalog.definitions.get(tool.allowed.tool)!);
    const diff = await diffDefinitions(
      current,
      [...listing.tools.values()].map(definitionOfListed),
    );
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
      id: `${item.server.id}#${++revisionCount}`,
      server: item.server.id,
      protocolVersion: monitor.protocolVersion ?? "",
      diff: deepFreeze(diff),
    });
    item.staged = { revision, listing, generation };
    emitEvent(config.onEvent, {
      kind: "revision",
      server: item.server.id,
      ok: true,
      durationMs: elapsed(start),
      catalogDigest: catalog.snapshot?.revisionDigest ?? null,
      revision: summarize(revision),
    });
    return revision;
  };
  const relistInterval = config.minRelistIntervalMs ?? DEFAULT_RELIST_INTERVAL_MS;
  /**
   * Where no change stream is open and the last listing carried a `ttlMs` hint: list again
   * after it (clamped to 1 s..1 h: `ttlRelistDelay`).
   */
  const scheduleTtl = (item: Prepared): void => {
    clearTimeout(item.ttlTimer);
    item.ttlTimer = undefined;
    if (config.changeDetection !== true || closing !== undefined) return;
    if (item.ttlMs === undefined || item.session.changeStream !== undefined) return;
    const delay = ttlRelistDelay(item.ttlMs);
    item.ttlTimer = setTimeout(() => {
      item.ttlTimer = undefined;
      item.relister!.request();
    }, delay);
  };
  /**
   * Starts hearing a server that was set up: its re-listing slot and change listeners. A failed
   * server gets them once a reconnect sets it up.
   */
  const activate = async (item: Prepared): Promise<void> => {
    const relister = new Relister(() => stage(item), relistInterval, () => scheduleTtl(item));
    item.relister = relister;
    // connect()'s own listing is the latest one: the first re-listing waits the interval.
    relister.began();
    item.session.monitor.onChange(() => relister.request());
    // A change made while the stream was down: the re-listing finds it by its digests.
    item.session.onStreamReopened(() => relister.request());
    const listed = item.catalog!.listing;
    item.ttlMs = listed?.ttlMs;
    // A change heard while (or since) connect() listed: list again before handing tools out.
    if (listed !== undefined && item.session.monitor.generation !== listed.generation) {
      await relister.now();
    } else {
      scheduleTtl(item);
    }
  };
  for (const item of prepared) {
    if (item.catalog!.errorCode === undefined) await activate(item);
  }
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
  const accept = (revision: StagedRevision, options: AcceptOptions = {}): Promise<void> => {
    const server = (revision as Partial<StagedRevision> | undefined)?.server;
    const item = prepared.find((entry) => entry.server.id === server);
    if (item?.relister === undefined) return Promise.reject(notStaged());
    return item.relister.exclusive(() => acceptStaged(item, revision, options));
  };
  const acceptStaged = async (
    item: Prepared,
    revision: StagedRevision,
    options: AcceptOptions,
  ): Promise<void> => {
    const staged = item.staged;
    if (staged?.revision !== revision || closing !== undefined) throw notStaged();
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
      item.session,
      limits,
      undefined,
      decidedBy,
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
      item.session.monitor.confirm(
        generation,
        tool.allowed.tool,
        await definitionDigest(definition),
      );
    }
    item.staged = undefined;
    const servers = serversNow();
    reloadToolkit(toolkit, servers, makeGate(servers));
  };
  // The provider exports depend only on the model-facing tools, a frozen array the toolkit
  // replaces when a revision is accepted: each mode is made once per such array, when first
  // read, from the toolkit's own exports (which its toOpenAITools() and the rest return).
  let shown: { tools: Toolkit["tools"]; reports: ReportedProviders } | undefined;
  const providersNow = (): ReportedProviders => {
    if (shown?.tools !== toolkit.tools) {
      const exports = toolkitExports(toolkit);
      shown = {
        tools: toolkit.tools,
        reports: reportedProviders((mode) => reportOf(exports, mode), toolkit.tools),
      };
    }
    return shown.reports;
  };
  /** Sets a failed server up again in place: a new session, then discovery as at set-up. */
  const retry = async (item: Prepared): Promise<ServerReport> => {
    const old = { session: item.session, release: item.release, cause: item.catalog!.errorCode };
    Object.assign(item, open(item.server));
    await old.session.close().catch(() => {});
    old.release();
    await discover(item, undefined);
    if (closing !== undefined) {
      throw connectErrorOf([{
        id: item.server.id,
        url: item.server.url,
        code: "mcp_connection_closed",
      }]);
    }
    const { errorCode, tools } = item.catalog!;
    if (errorCode === undefined) await activate(item);
    // Ready: the tools join. Failed again: the toolkit changes only if a tool (an owner spec's,
    // now on the new session) or the cause its tools answer with did.
    if (errorCode === undefined || tools.length > 0 || errorCode !== old.cause) {
      const servers = serversNow();
      reloadToolkit(toolkit, servers, makeGate(servers));
    }
    if (errorCode !== undefined) throw connectErrorOf([failedServerOf(item)]);
    return structuredClone(serverReport(item, config));
  };
  const reconnect = (id: string): Promise<ServerReport> => {
    const item = prepared.find((entry) => entry.server.id === id);
    if (item === undefined) {
      return Promise.reject(
        new ConnectConfigError(
          "connect_config_invalid",
          `reconnect: "${String(id).slice(0, 48)}" is not a server of this connection`,
        ),
      );
    }
    if (closing !== undefined) {
      return Promise.reject(
        connectErrorOf([{ id, url: item.server.url, code: "mcp_connection_closed" }]),
      );
    }
    if (item.catalog!.errorCode === undefined) {
      return Promise.resolve(structuredClone(serverReport(item, config)));
    }
    return item.reconnecting ??= retry(item).finally(() => {
      item.reconnecting = undefined;
    });
  };
  return Object.freeze({
    toolkit,
    report: () => ({ ...buildReport(prepared, decidedBy, config), providers: providersNow() }),
    catalogs: () =>
      prepared.map((item) => ({
        server: item.server.id,
        read: item.catalog!.snapshot,
        write: item.catalog!.writeSnapshot,
      })),
    lockComparison: (id: string) => {
      const lock = prepared.find((item) => item.server.id === id)?.catalog?.lock;
      return lock === undefined ? undefined : structuredClone(lock);
    },
    lock: () => lockOf(prepared),
    refresh: async () => {
      const staged = await Promise.all(prepared.map((item) => item.relister?.now()));
      return staged.filter((revision) => revision !== undefined);
    },
    revisions: () => prepared.flatMap((item) => item.staged ? [item.staged.revision] : []),
    accept,
    reconnect,
    close: () =>
      closing ??= (async () => {
        // A reconnect in flight ends first: its new session is then closed with the others.
        await Promise.all(prepared.map((item) => item.reconnecting?.catch(() => undefined)));
        for (const item of prepared) {
          clearTimeout(item.ttlTimer);
          item.relister?.close();
        }
        await closeSessions(prepared);
        await Promise.all(prepared.map((item) => item.relister?.idle().catch(() => undefined)));
      })(),
  });
}

/** Closes every session, then lets go of its fetch's pinned connections. */
async function closeSessions(prepared: readonly Prepared[]): Promise<void> {
  await Promise.all(prepared.map(async (item) => {
    await item.session.close();
    item.release();
  }));
}

async function lockOf(prepared: readonly Prepared[]): Promise<SluiceLock> {
  const servers: Record<string, LockedServer> = {};
  for (const item of prepared) {
    const version = item.session.protocolVersion;
    if (version === undefined) continue;
    const ready = item.catalog!.tools.filter((tool) => tool.source === "server");
    servers[item.server.id] = await lockServer(
      version,
      ready.map((tool) => item.catalog!.definitions.get(tool.allowed.tool)!),
    );
  }
  return createLock(servers);
}

/** How a server's tool list changes reach the connection now. */
function mechanismOf(item: Prepared): ChangeMechanism {
  const stream = item.session.changeStream;
  if (stream !== undefined) return stream;
  if (item.ttlMs !== undefined) return "ttl";
  return item.session.era === "legacy" ? "notifications" : "none";
}

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

/** The stale ready tools of a server, and why (the first change not yet resolved). */
function staleOf(item: Prepared): Pick<ServerReport, "stale" | "staleTools"> {
  const stale = item.catalog!.tools.filter((tool) =>
    callInternals(tool.registration)?.status() === "stale"
  ).map((tool) => tool.allowed.tool);
  if (stale.length === 0) return {};
  const monitor = item.session.monitor;
  const since = item.catalog!.listing?.generation ?? 0;
  return { stale: monitor.staleReason(since) ?? "tools_list_changed", staleTools: stale };
}

/** What a server's listed tools are checked against under `lock`. */
function expectationsOf(lock: SluiceLock | undefined, id: string): ServerExpectations {
  if (lock === undefined) return { locked: false };
  const server = Object.hasOwn(lock.servers, id) ? lock.servers[id] : undefined;
  return { locked: true, ...(server ? { server } : {}) };
}

/** A server's part of the toolkit: its ready tools, and when it failed, those it makes unavailable. */
function toolkitServerOf(item: Prepared): ToolkitServer {
  const catalog = item.catalog!;
  const base = { id: item.server.id, session: item.session, tools: catalog.tools };
  if (catalog.errorCode === undefined) return base;
  const ready = new Set(catalog.tools.map((tool) => tool.allowed.localName));
  return {
    ...base,
    failure: {
      cause: catalog.errorCode,
      tools: item.server.tools.filter((tool) => !ready.has(tool.localName))
        .map((tool) => ({ name: tool.localName, tool: tool.tool })),
    },
  };
}

/** A failed server as `ConnectError` takes it. */
function failedServerOf(item: Prepared): FailedServer {
  return {
    id: item.server.id,
    url: item.server.url,
    code: item.catalog!.errorCode!,
    error: item.catalog!.error,
  };
}

/** One server's state. */
function serverReport(item: Prepared, config: ConnectAllConfig): ServerReport {
  const { session, catalog } = item;
  const era = session.era;
  const errorCode = catalog!.errorCode;
  return {
    id: item.server.id,
    status: errorCode !== undefined ? "failed" : era ? "ready" : "deferred",
    ...(era ? { era, protocolVersion: session.protocolVersion } : {}),
    ...(errorCode !== undefined
      ? { errorCode, reason: serverFailureReason(errorCode, item.server.url) }
      : {}),
    catalogDigest: catalog!.snapshot?.revisionDigest ?? null,
    writeCatalogDigest: catalog!.writeSnapshot?.revisionDigest ?? null,
    transport: item.fetch.describe(),
    handshakes: session.stats.handshakes,
    ...staleOf(item),
    ...(config.changeDetection === true ? { changeDetection: mechanismOf(item) } : {}),
    ...(catalog!.lock ? { lock: reportedLock(catalog!.lock) } : {}),
  };
}

function buildReport(
  prepared: readonly Prepared[],
  decidedBy: ApprovalDecider,
  config: ConnectAllConfig,
): Omit<ConnectReport, "providers"> {
  const ready = prepared.flatMap((item) =>
    item.catalog!.tools.map((tool) => ({
      name: tool.allowed.localName,
      server: tool.allowed.server,
      tool: tool.allowed.tool,
      requiresApproval: tool.policy.requiresApproval,
      approvalReason: tool.policy.reason,
      source: tool.source,
      ...(tool.policy.requiresApproval ? { decidedBy } : {}),
      deferred: tool.policy.requiresApproval && decidedBy === "store",
    }))
  );
  const skipped = prepared.flatMap((item) => item.catalog!.skipped);
  const servers = prepared.map((item) => serverReport(item, config));
  return structuredClone({ ready, skipped, servers });
}

/**
 * Connects to one MCP server: {@link connectAll} with a single server, tools named by their
 * remote names. A server that cannot be reached or is refused rejects with a
 * {@link ConnectError} carrying its code and what to change; nothing is left open.
 *
 * @example
 * ```ts
 * import { connect } from "@sluice/mcp";
 * const connection = await connect("https://mcp.example.com/mcp", {
 *   id: "docs",
 *   token: "secret",
 *   allow: ["search", "fetch_page"],
 *   preApproved: ["search"],
 * });
 * const envelope = await connection.toolkit.call("docs__search", { query: "sluice" });
 * await connection.close();
 * ```
 *
 * @param url the Streamable HTTP endpoint
 * @param options allowlist, governance and transport options
 * @throws {ConnectConfigError} for a configuration sluice refuses
 * @throws {ConnectError} when the server cannot be reached or is refused (its code as `code`:
 *   `transport_failed`, `transport_permission_denied`, `auth_authorization_required`, ...)
 *
 * @category Agent developers: connect()
 */
export function connect(url: string | URL, options: ConnectOptions): Promise<Connection> {
  const id = options.id ?? "mcp";
  const qualify = (names: readonly string[] | undefined) => {
    if (names === undefined) return undefined;
    if (!Array.isArray(names)) return names; // resolveConfig reports the shape
    return names.map((name) => typeof name === "string" ? `${id}.${name}` : name);
  };
  const {
    allow,
    preApproved,
    resendOnBrokenStream,
    specs,
    token,
    auth,
    trustReadOnlyHint,
    ...common
  } = options;
  return connectAll({
    ...common,
    servers: [{
      id,
      url,
      ...(token !== undefined ? { token } : {}),
      ...(auth !== undefined ? { auth } : {}),
      ...(trustReadOnlyHint !== undefined ? { trustReadOnlyHint } : {}),
    }],
    allow: qualify(allow) ?? [],
    ...(preApproved !== undefined ? { preApproved: qualify(preApproved) } : {}),
    ...(resendOnBrokenStream !== undefined
      ? { resendOnBrokenStream: qualify(resendOnBrokenStream) }
      : {}),
    ...(specs !== undefined
      ? {
        specs: Array.isArray(specs)
          ? specs.map((spec: Omit<ToolSpec, "server">) => ({ ...spec, server: id }))
          : specs as unknown as ToolSpec[],
      }
      : {}),
  });
}
