/**
 * Discovery: the bound tools of one server, read and write, from one listing and one pass of
 * checks into frozen, digest-pinned catalogs (a read snapshot, a write snapshot that records
 * the host's authorization identity), registrations and their call plans.
 *
 * @module
 */
import {
  type AnyResolvedBinding,
  isWriteBinding,
  type ReadToolBindings,
  resolveAllBindings,
  type ResolvedBinding,
  type ResolvedWriteBinding,
  type WriteToolBindings,
} from "../catalog/bindings.ts";
import { listNamedTools, type ToolListing } from "../catalog/listing.ts";
import type { StaleReason } from "../catalog/monitor.ts";
import { discoveryLimits, type Selected, type UnfitTool } from "../catalog/selection.ts";
import {
  buildSnapshot,
  buildWriteSnapshot,
  mapByLocalName,
  type ReadSnapshot,
  type SnapshotEntry,
  type SnapshotEntryBase,
  type WriteSnapshot,
  type WriteSnapshotEntry,
} from "../catalog/snapshot.ts";
import { deepFreeze } from "../identity/mod.ts";
import type { ScreenFinding } from "../screen/findings.ts";
import { asSession, type SdkClientLike } from "../session/from_client.ts";
import type { McpSession } from "../session/session.ts";
import {
  approvalFieldsOf,
  createRegistration,
  createWriteRegistration,
  type ToolRegistration,
  type WriteToolRegistration,
} from "./registration.ts";
import { type CallPlan, scopeCheckOf } from "./call_plan.ts";
import { type DiscoverOptions, findBound, type Found, staleness } from "./bound.ts";

/**
 * One catalog of a discovery: the frozen snapshot, one registration per entry and one call
 * plan per entry, same order. Hand it to a `Gate` to run calls.
 *
 * @typeParam Snapshot the snapshot's type (read or write)
 * @typeParam Registration the registrations' type (read or write)
 *
 * @category Discovery and calls
 */
export interface DiscoveredCatalog<Snapshot, Registration> {
  /** The detached, deeply frozen catalog. */
  readonly snapshot: Snapshot;
  /** The tools as a model sees them, one per snapshot entry, sorted by local name. */
  readonly registrations: readonly Registration[];
  /** What a `Gate` runs each tool's calls with, one per registration, same order. */
  readonly calls: readonly CallPlan[];
  /** Bound tools left out with `onUnfit: "skip"`, each with its error (empty otherwise). */
  readonly skipped: readonly UnfitTool[];
  /**
   * The poisoning screen's findings on each screened tool of this catalog, by remote name
   * (`[]`: clean), the refused ones included. `decoded` is the remote text itself: for the
   * operator's eyes, never for a model or a log.
   */
  readonly findings: Readonly<Record<string, readonly ScreenFinding[]>>;
  /**
   * `true` when the server announced a change (or its change stream ended) while discovery
   * was listing: every call already answers `mcp_catalog_stale`, so rediscover.
   */
  readonly stale: boolean;
  /** Why, when `stale`. */
  readonly staleReason?: StaleReason;
}

/**
 * What read discovery returns: the read catalog.
 *
 * @category Discovery and calls
 */
export type DiscoveryResult = DiscoveredCatalog<ReadSnapshot, ToolRegistration>;

/**
 * What write discovery returns: the write catalog (`schemaVersion: 2`) and write registrations.
 *
 * @category Discovery and calls
 */
export type WriteDiscoveryResult = DiscoveredCatalog<WriteSnapshot, WriteToolRegistration>;

/**
 * Lists a server's tools once, keeping detached copies of the named ones, for
 * `discoverTools` and `discoverWriteTools` to share (`options.listing`). A tool that is not
 * named fails nothing. Throws a `DiscoveryError` when the list as a whole breaks a budget or
 * the protocol, or the request fails.
 *
 * @example
 * ```ts
 * import {
 *   type CatalogMonitor,
 *   discoverTools,
 *   discoverWriteTools,
 *   listTools,
 *   type ReadToolBindings,
 *   type WriteToolBindings,
 * } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * declare const client: Client, monitor: CatalogMonitor;
 * declare const readBindings: ReadToolBindings, writeBindings: WriteToolBindings;
 *
 * const listing = await listTools(client, ["search", "delete_page"], { monitor });
 * const reads = await discoverTools(client, "docs", readBindings, { monitor, listing });
 * const writes = await discoverWriteTools(client, "docs", writeBindings, { monitor, listing });
 * ```
 *
 * @param source the host's connected SDK client (v1 or v2), or a session
 * @param names the remote names to keep
 * @param options the monitor, limits and signal
 *
 * @category Discovery and calls
 */
export function listTools(
  source: SdkClientLike | McpSession,
  names: Iterable<string>,
  options: Omit<DiscoverOptions, "listing" | "onUnfit">,
): Promise<ToolListing> {
  const limits = discoveryLimits(options.limits);
  return listNamedTools(asSession(source), options.monitor, new Set(names), limits, options.signal);
}

/**
 * Discovers the bound tools of one server into a frozen, digest-pinned snapshot, registrations
 * (plain data) and their call plans, which a `Gate` runs. Pages through `tools/list` under the limits (or uses `options.listing`),
 * selects only bound tools, checks each selected schema against the profile and compiles its
 * validator once. Unbound tools appear nowhere: not in the snapshot, the registrations or any
 * error. A binding with an owner `spec` is not listed.
 *
 * Throws a `DiscoveryError` (codes `binding_*`, `limits_invalid`, `mcp_*`, transport
 * codes).
 *
 * @param source the host's connected SDK client (v1 or v2), or a session
 * @param serverId the host's id for this server, recorded in the snapshot
 * @param bindings the host's bindings keyed by remote tool name
 * @param options the session's monitor, optional limits, listing, skip rule and abort signal
 *
 * @example
 * ```ts
 * import { CatalogMonitor, discoverTools, Gate } from "@sluice/mcp";
 * import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
 *
 * const client = new Client({ name: "my-host", version: "1.0.0" });
 * const transport = new StreamableHTTPClientTransport(new URL("https://docs.example.com/mcp"));
 * const monitor = new CatalogMonitor();
 * transport.onmessage = monitor.onMessage;
 * await client.connect(transport);
 * monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
 * try {
 *   const reads = await discoverTools(client, "docs", {
 *     search: {
 *       localName: "search_docs",
 *       policy: { mode: "read", title: "Search documents" },
 *       scope: null,
 *       concurrencySafe: true,
 *     },
 *   }, { monitor });
 *   // Calls run through a gate: for reads only, a read-only one.
 *   const gate = new Gate({ catalogs: [reads] });
 *   const [envelope] = await gate.run(
 *     [{ id: "call_1", name: "search_docs", arguments: { query: "sluice" } }],
 *     { runId: "run-1" },
 *   );
 * } finally {
 *   monitor.close();
 * }
 * ```
 *
 * @category Discovery and calls
 */
export async function discoverTools(
  source: SdkClientLike | McpSession,
  serverId: string,
  bindings: ReadToolBindings,
  options: DiscoverOptions,
): Promise<DiscoveryResult> {
  return (await discoverCatalogs(source, serverId, { reads: bindings }, options)).reads!;
}

/**
 * Discovers the bound write tools of one server into a `schemaVersion: 2` snapshot that records
 * the host's authorization identity, and write registrations for a `Gate`. Every binding must
 * state `policy: { mode: "confirm", title, effect }` with the same `effect` as the binding, a
 * scope validator function, and non-empty `bindingId`, `bindingRevision`, `scopeId` and
 * `scopeRevision`; server annotations never grant or waive any of it. The listing, schema and
 * budget checks are the read discovery's.
 *
 * Throws a `DiscoveryError` (codes `binding_*`, `limits_invalid`, `mcp_*`).
 *
 * @param source the host's connected SDK client (v1 or v2), or a session
 * @param serverId the host's id for this server
 * @param bindings the host's write bindings keyed by remote tool name
 * @param options the session's monitor, optional limits, listing, skip rule and abort signal
 *
 * @example
 * ```ts
 * import { type CatalogMonitor, discoverWriteTools } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * declare const client: Client, monitor: CatalogMonitor; // connected, as for discoverTools
 *
 * const writes = await discoverWriteTools(client, "records", {
 *   write_record: {
 *     localName: "save_record",
 *     policy: { mode: "confirm", title: "Save a record", effect: "write" },
 *     effect: "write",
 *     scope: (state, args) => args.key === "allowed" ? undefined : "other key",
 *     bindingId: "records.save",
 *     bindingRevision: "3",
 *     scopeId: "team-a",
 *     scopeRevision: "12",
 *   },
 * }, { monitor });
 * ```
 *
 * @category Discovery and calls
 */
export async function discoverWriteTools(
  source: SdkClientLike | McpSession,
  serverId: string,
  bindings: WriteToolBindings,
  options: DiscoverOptions,
): Promise<WriteDiscoveryResult> {
  return (await discoverCatalogs(source, serverId, { writes: bindings }, options)).writes!;
}

/**
 * The host's bindings of one server, read and write, for {@link discoverCatalogs}: each side
 * keyed by remote tool name; a remote or local name may appear on one side only.
 *
 * @category Discovery and calls
 */
export interface CatalogBindings {
  /** Read bindings (`policy.mode: "read"`), as for {@link discoverTools}. */
  readonly reads?: ReadToolBindings;
  /** Write bindings (`policy.mode: "confirm"`), as for {@link discoverWriteTools}. */
  readonly writes?: WriteToolBindings;
}

/**
 * What {@link discoverCatalogs} returns: the read and the write catalog of one pass, each
 * `null` when no bindings were given for it.
 *
 * @category Discovery and calls
 */
export interface DiscoveredCatalogs {
  /** The read catalog, as {@link discoverTools} returns it. */
  readonly reads: DiscoveryResult | null;
  /** The write catalog, as {@link discoverWriteTools} returns it. */
  readonly writes: WriteDiscoveryResult | null;
}

/**
 * Discovers the read and the write tools of one server in one pass: one listing (or
 * `options.listing`), each bound tool checked once, then a read catalog and a write catalog
 * built from the same selection, each as {@link discoverTools} and {@link discoverWriteTools}
 * build theirs. Throws a `DiscoveryError` as they do.
 *
 * @param source the host's connected SDK client (v1 or v2), or a session
 * @param serverId the host's id for this server
 * @param bindings the read and write bindings, each keyed by remote tool name
 * @param options the session's monitor, optional limits, listing, skip rule and abort signal
 *
 * @example
 * ```ts
 * import { type CatalogMonitor, discoverCatalogs, Gate } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * import type { ReadToolBindings, WriteToolBindings } from "@sluice/mcp";
 * declare const client: Client, monitor: CatalogMonitor;
 * declare const reads: ReadToolBindings, writes: WriteToolBindings;
 *
 * const found = await discoverCatalogs(client, "docs", { reads, writes }, { monitor });
 * const gate = new Gate({ catalogs: [found.reads!], approve: () => true });
 * ```
 *
 * @category Discovery and calls
 */
export async function discoverCatalogs(
  source: SdkClientLike | McpSession,
  serverId: string,
  bindings: CatalogBindings,
  options: DiscoverOptions,
): Promise<DiscoveredCatalogs> {
  const found = await findBound(
    source,
    serverId,
    () => resolveAllBindings(bindings.reads, bindings.writes),
    options,
  );
  const writeNames = new Set(
    [...found.bindings].filter(([, binding]) => isWriteBinding(binding)).map(([name]) => name),
  );
  const side = (write: boolean) => ({
    selected: found.selected.filter((item) => isWriteBinding(item.binding) === write),
    skipped: found.unfit.filter((item) => writeNames.has(item.remoteName) === write),
  });
  return {
    reads: bindings.reads !== undefined ? await readCatalog(found, side(false)) : null,
    writes: bindings.writes !== undefined ? await writeCatalog(serverId, found, side(true)) : null,
  };
}

/** One side of a selection: its selected tools and those that did not fit. */
interface Side {
  readonly selected: readonly Selected<AnyResolvedBinding>[];
  readonly skipped: readonly UnfitTool[];
}

/** The findings of a side's screened tools, selected and skipped, by remote name. */
function findingsOf(side: Side): Record<string, readonly ScreenFinding[]> {
  const findings: Record<string, readonly ScreenFinding[]> = {};
  for (const item of side.selected) {
    if (item.screen !== undefined) findings[item.base.remoteName] = item.screen.findings;
  }
  for (const item of side.skipped) {
    if (item.screen !== undefined) findings[item.remoteName] = item.screen.findings;
  }
  return findings;
}

/** One side's discovery result: its snapshot and registrations, what it skipped, its plans. */
function catalogOf<Snapshot, Registration>(
  found: Found<AnyResolvedBinding>,
  side: Side,
  snapshot: Snapshot,
  registrations: readonly Registration[],
  calls: readonly CallPlan[],
) {
  return discovered(
    {
      snapshot,
      registrations,
      skipped: side.skipped,
      findings: findingsOf(side),
      ...staleness(found),
    },
    calls,
  );
}

async function readCatalog(found: Found<AnyResolvedBinding>, side: Side): Promise<DiscoveryResult> {
  const selected = side.selected as readonly Selected<ResolvedBinding>[];
  const entries = selected.map((item): SnapshotEntry => ({
    ...item.base,
    policy: item.binding.policy,
    concurrencySafe: item.binding.concurrencySafe,
  }));
  const snapshot = await buildSnapshot({ ...found.header, entries });
  const calls = mapByLocalName(
    snapshot.entries,
    selected,
    (item) => item.base.localName,
    (entry, item) =>
      callPlanOf(found, entry, item, {
        resendOnBrokenStream: item.binding.resendOnBrokenStream,
      }),
  );
  const registrations = snapshot.entries.map(createRegistration);
  return catalogOf(found, side, snapshot, registrations, calls);
}

async function writeCatalog(
  serverId: string,
  found: Found<AnyResolvedBinding>,
  side: Side,
): Promise<WriteDiscoveryResult> {
  const selected = side.selected as readonly Selected<ResolvedWriteBinding>[];
  const entries = selected.map((item): WriteSnapshotEntry => ({
    ...item.base,
    policy: item.binding.policy,
    concurrencySafe: false,
    authorization: {
      bindingId: item.binding.bindingId,
      bindingRevision: item.binding.bindingRevision,
      scopeId: item.binding.scopeId,
      scopeRevision: item.binding.scopeRevision,
      effect: item.binding.policy.effect,
    },
  }));
  const snapshot = await buildWriteSnapshot({ ...found.header, entries });
  const registrations = snapshot.entries.map((entry) =>
    createWriteRegistration(serverId, entry, snapshot.revisionDigest)
  );
  const calls = mapByLocalName(
    snapshot.entries,
    selected,
    (item) => item.base.localName,
    (entry, item) => ({ entry, item }),
  ).map(({ entry, item }, index) =>
    callPlanOf(found, entry, item, {
      approval: {
        binding: approvalFieldsOf(registrations[index]),
        decidedBy: entry.policy.decidedBy,
      },
    })
  );
  return catalogOf(found, side, snapshot, registrations, calls);
}

/**
 * A discovery result: its data deeply frozen, its call plans frozen each (they hold the
 * session, which stays live).
 *
 * @param data the snapshot, registrations and skip and stale state
 * @param calls one call plan per registration, same order
 *
 * @category Discovery and calls
 */
export function discovered<T extends object>(
  data: T,
  calls: readonly CallPlan[],
): Readonly<T & { calls: readonly CallPlan[] }> {
  return Object.freeze({ ...deepFreeze(data), calls: Object.freeze([...calls]) });
}

/**
 * The call plan of `entry`: the session side of a selection plus the selected tool's
 * validators and scope validator.
 *
 * @param source the selection's session, monitor, generation, limits and digests
 * @param entry the frozen snapshot entry
 * @param item the selected tool
 * @param extra the write approval, the resend rule
 *
 * @category Discovery and calls
 */
export function callPlanOf(
  source: Pick<
    Found<AnyResolvedBinding>,
    "session" | "monitor" | "generation" | "limits" | "digests" | "resultScreen" | "header"
  >,
  entry: SnapshotEntryBase,
  item: Selected<AnyResolvedBinding>,
  extra: Partial<Pick<CallPlan, "approval" | "resendOnBrokenStream">> = {},
): CallPlan {
  return Object.freeze({
    entry,
    serverId: source.header.serverId,
    session: source.session,
    monitor: source.monitor,
    generation: source.generation,
    limits: source.limits,
    scope: scopeCheckOf(item.binding.scope, source.limits.timeoutMs),
    validateInput: item.validateInput,
    validateOutput: item.validateOutput,
    ...(item.headers.length > 0 ? { paramHeaders: item.headers } : {}),
    ...(source.digests.has(entry.remoteName)
      ? { definitionDigest: source.digests.get(entry.remoteName)! }
      : {}),
    ...(extra.resendOnBrokenStream !== undefined
      ? { resendOnBrokenStream: extra.resendOnBrokenStream }
      : {}),
    ...(extra.approval !== undefined ? { approval: extra.approval } : {}),
    ...(source.resultScreen !== undefined ? { resultScreen: source.resultScreen } : {}),
  });
}
