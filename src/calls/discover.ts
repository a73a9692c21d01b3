/**
 * Read discovery: the bound tools of one server into a frozen, digest-pinned snapshot and
 * registrations with their call plans. Shares its listing and checks with write discovery.
 *
 * @module
 */
import { type ReadToolBindings, resolveBindings } from "../catalog/bindings.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import { listNamedTools, type ToolListing } from "../catalog/listing.ts";
import type { CatalogMonitor, StaleReason } from "../catalog/monitor.ts";
import {
  catalogHeader,
  discoveryLimits,
  type SelectableBinding,
  selectBound,
  type Selected,
  type Selection,
  type UnfitTool,
} from "../catalog/selection.ts";
import { definitionDigest, definitionOfEntry } from "../catalog/revisions.ts";
import {
  buildSnapshot,
  byLocalName,
  mapByLocalName,
  type ReadSnapshot,
  type SnapshotEntry,
  type SnapshotEntryBase,
} from "../catalog/snapshot.ts";
import { deepFreeze } from "../identity/mod.ts";
import { DiscoveryError } from "../catalog/errors.ts";
import { asSession, type SdkClientLike } from "../session/from_client.ts";
import type { McpSession } from "../session/session.ts";
import { createRegistration, type ToolRegistration } from "./registration.ts";
import { type CallPlan, scopeCheckOf } from "./call_plan.ts";

/**
 * Options of {@link discoverTools} and `discoverWriteTools`.
 *
 * @category Discovery and calls
 */
export interface DiscoverOptions {
  /** The session's monitor: protocol version, list changes, close. Required. */
  readonly monitor: CatalogMonitor;
  /** Lowered bounds (or a raised timeout); defaults in `DEFAULT_TOOL_LIMITS`. */
  readonly limits?: Partial<ToolLimits>;
  /** Aborts discovery (ends in `mcp_aborted`). */
  readonly signal?: AbortSignal;
  /**
   * A listing from {@link listTools} under the same monitor, so a read and a write catalog of
   * one server share one `tools/list`. Without it discovery lists by itself.
   */
  readonly listing?: ToolListing;
  /**
   * What a bound tool that does not fit does: `"fail"` (default) throws its
   * `DiscoveryError`; `"skip"` leaves it out of the catalog and returns it in `skipped`, so
   * the other tools stay usable. A failure of the whole list throws either way.
   */
  readonly onUnfit?: "fail" | "skip";
  /**
   * Expected entry digests by remote name (a lock's, see `definitionDigest`): a listed bound
   * tool whose definition has another digest, or that has no expected digest, does not fit
   * (`catalog_lock_mismatch`, skipped or thrown as `onUnfit` says). Tools with an owner spec
   * are the host's own definition and are not checked.
   */
  readonly expectedDigests?: Readonly<Record<string, string>>;
}

/**
 * What discovery returns: the frozen snapshot, one registration per entry and one call plan
 * per entry, same order. Hand it to a `Gate` to run calls.
 *
 * @category Discovery and calls
 */
export interface DiscoveryResult {
  /** The detached, deeply frozen catalog. */
  readonly snapshot: ReadSnapshot;
  /** The tools as a model sees them, one per snapshot entry, sorted by local name. */
  readonly registrations: readonly ToolRegistration[];
  /** What a `Gate` runs each tool's calls with, one per registration, same order. */
  readonly calls: readonly CallPlan[];
  /** Bound tools left out with `onUnfit: "skip"`, each with its error (empty otherwise). */
  readonly skipped: readonly UnfitTool[];
  /**
   * `true` when the server announced a change (or its change stream ended) while discovery
   * was listing: every registration already answers `mcp_catalog_stale`, so rediscover.
   */
  readonly stale: boolean;
  /** Why, when `stale`. */
  readonly staleReason?: StaleReason;
}

/**
 * Whether the catalog of a selection is stale already, and why, as discovery results say it.
 *
 * @param found the selection
 *
 * @category Discovery and calls
 */
export function staleness(
  found: Pick<Found<SelectableBinding>, "monitor" | "generation">,
): { readonly stale: boolean; readonly staleReason?: StaleReason } {
  const reason = found.monitor.staleReason(found.generation);
  return reason === undefined ? { stale: false } : { stale: true, staleReason: reason };
}

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
 * A selection with the session and limits its registrations are built from.
 *
 * @category Discovery and calls
 */
export interface Found<B extends SelectableBinding> extends Selection<B> {
  readonly session: McpSession;
  readonly monitor: CatalogMonitor;
  readonly limits: ToolLimits;
  /** Each selected listed tool's entry digest, by remote name (owner specs have none). */
  readonly digests: ReadonlyMap<string, string>;
}

/**
 * Each selected listed tool's entry digest; with `expected`, the tools that do not match it
 * move to `unfit` (or throw, with `onUnfit: "fail"`).
 */
async function checkDigests<B extends SelectableBinding>(
  selection: Selection<B>,
  expected: Readonly<Record<string, string>> | undefined,
  onUnfit: "fail" | "skip",
): Promise<{ selection: Selection<B>; digests: Map<string, string> }> {
  const digests = new Map<string, string>();
  const selected: Selected<B>[] = [];
  const unfit: UnfitTool[] = [...selection.unfit];
  for (const item of selection.selected) {
    if (item.binding.spec !== undefined) {
      selected.push(item);
      continue;
    }
    const name = item.base.remoteName;
    const found = await definitionDigest(definitionOfEntry(item.base));
    if (expected !== undefined && !(Object.hasOwn(expected, name) && expected[name] === found)) {
      const error = new DiscoveryError(
        "catalog_lock_mismatch",
        `bound tool "${name}" does not have the expected definition digest`,
        { tool: name },
      );
      if (onUnfit === "fail") throw error;
      unfit.push({ localName: item.base.localName, remoteName: name, error });
      continue;
    }
    digests.set(name, found);
    selected.push(item);
  }
  unfit.sort(byLocalName);
  return { selection: { ...selection, selected, unfit }, digests };
}

/**
 * The discovery steps shared by read and write catalogs: limits, bindings, the listing (unless
 * given or every binding has an owner spec), and each bound tool's checks.
 *
 * @category Discovery and calls
 */
export async function findBound<B extends SelectableBinding>(
  source: SdkClientLike | McpSession,
  serverId: string,
  resolve: () => Map<string, B>,
  options: DiscoverOptions,
): Promise<Found<B>> {
  const limits = discoveryLimits(options.limits);
  const bindings = resolve();
  const session = asSession(source);
  const { monitor } = options;
  if (options.listing !== undefined && options.listing.monitor !== monitor) {
    throw new DiscoveryError(
      "discovery_options_invalid",
      "the listing was made under another monitor",
    );
  }
  const toList = [...bindings.values()].filter((binding) => binding.spec === undefined);
  let listing = options.listing;
  if (listing === undefined && toList.length > 0) {
    // Checks the server id, monitor and version before the first request.
    catalogHeader(serverId, monitor, true);
    const names = new Set(toList.map((binding) => binding.remoteName));
    listing = await listNamedTools(session, monitor, names, limits, options.signal);
  }
  const onUnfit = options.onUnfit ?? "fail";
  const { selection, digests } = await checkDigests(
    await selectBound({
      serverId,
      bindings,
      monitor,
      limits,
      listing: toList.length > 0 ? listing : undefined,
      onUnfit,
    }),
    options.expectedDigests,
    onUnfit,
  );
  return { ...selection, session, monitor, limits, digests };
}

/**
 * Discovers the bound tools of one server into a frozen, digest-pinned snapshot, registrations
 * (plain data) and their call plans, which a `Gate` runs. Pages through `tools/list` under the limits (or uses `options.listing`),
 * selects only bound tools, checks each selected schema against the profile and compiles its
 * validator once. Unbound tools appear nowhere: not in the snapshot, the registrations or any
 * error. A binding with an owner `spec` is not listed.
 *
 * Throws a {@link DiscoveryError} (codes `binding_*`, `limits_invalid`, `mcp_*`, transport
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
  const found = await findBound(source, serverId, () => resolveBindings(bindings), options);
  const entries = found.selected.map((item): SnapshotEntry => ({
    ...item.base,
    policy: item.binding.policy,
    concurrencySafe: item.binding.concurrencySafe,
  }));
  const snapshot = await buildSnapshot({ ...found.header, entries });
  const calls = mapByLocalName(
    snapshot.entries,
    found.selected,
    (item) => item.base.localName,
    (entry, item) =>
      callPlanOf(found, entry, item, {
        resendOnBrokenStream: item.binding.resendOnBrokenStream,
      }),
  );
  return discovered(
    { snapshot, registrations: snapshot.entries.map(createRegistration), ...unfitOf(found) },
    calls,
  );
}

/**
 * Bound tools that did not fit, and whether the catalog is stale already.
 *
 * @param found the selection
 *
 * @category Discovery and calls
 */
export function unfitOf(
  found: Found<SelectableBinding>,
): {
  readonly skipped: readonly UnfitTool[];
  readonly stale: boolean;
  readonly staleReason?: StaleReason;
} {
  return { skipped: found.unfit, ...staleness(found) };
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
    Found<SelectableBinding>,
    "session" | "monitor" | "generation" | "limits" | "digests"
  >,
  entry: SnapshotEntryBase,
  item: Selected<SelectableBinding>,
  extra: Partial<Pick<CallPlan, "approval" | "resendOnBrokenStream">> = {},
): CallPlan {
  return Object.freeze({
    entry,
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
  });
}
