/**
 * The discovery steps every catalog shares: limits, bindings, one listing (unless given or
 * every binding has an owner spec), each bound tool's checks and, under a lock, its digest.
 *
 * @module
 */
import type { ToolLimits } from "../catalog/limits.ts";
import { listNamedTools, type ToolListing } from "../catalog/listing.ts";
import type { CatalogMonitor, StaleReason } from "../catalog/monitor.ts";
import {
  catalogHeader,
  checkDigests,
  discoveryLimits,
  type SelectableBinding,
  selectBound,
  type Selection,
  type UnfitTool,
} from "../catalog/selection.ts";
import { DiscoveryError } from "../catalog/errors.ts";
import type { DiscoveryScreen, LockedFinding } from "../catalog/screening.ts";
import type { ResultScreen } from "./result.ts";
import { asSession, type SdkClientLike } from "../session/from_client.ts";
import type { McpSession } from "../session/session.ts";

/**
 * Options of `discoverTools`, `discoverWriteTools` and `discoverCatalogs`.
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
   * A listing from `listTools` under the same monitor, so a read and a write catalog of
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
  /**
   * The poisoning screen (docs/screen.md): the host's other tool and server names and the
   * policy, server-wide and per remote name. Absent: the default policy (hidden text refuses a
   * tool with `mcp_tool_screen_refused`, the other classes are reported) with no other names;
   * `false`: no screen.
   */
  readonly screen?: DiscoveryScreen | false;
  /**
   * The screen verdicts a lock expects, by remote name (`LockedTool.screen`): a screened
   * listed tool with the expected digest whose findings (codes and pointers) differ does not
   * fit (`catalog_lock_mismatch`).
   */
  readonly expectedScreens?: Readonly<Record<string, readonly LockedFinding[]>>;
  /**
   * Screen these tools' results for hidden or deceptive text (opt-in): `"refuse"` fails a call
   * whose result holds any with `mcp_result_hidden_text`, `"reveal"` writes it as visible
   * escapes. Absent: results are passed as the server sent them (after every other check).
   */
  readonly screenResults?: ResultScreen;
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
 * A selection with the session and limits its registrations are built from.
 *
 * @category Discovery and calls
 */
export interface Found<B extends SelectableBinding> extends Selection<B> {
  /** The resolved bindings by remote name. */
  readonly bindings: ReadonlyMap<string, B>;
  readonly session: McpSession;
  readonly monitor: CatalogMonitor;
  readonly limits: ToolLimits;
  /** Each selected listed tool's entry digest, by remote name (owner specs have none). */
  readonly digests: ReadonlyMap<string, string>;
  /** What hidden text in these tools' results does (absent: not screened). */
  readonly resultScreen?: ResultScreen;
}

/**
 * The discovery steps of every catalog: limits, bindings, the listing (unless given or every
 * binding has an owner spec), and each bound tool's checks.
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
  const selected = await selectBound({
    serverId,
    bindings,
    monitor,
    limits,
    listing: toList.length > 0 ? listing : undefined,
    onUnfit,
    ...(options.screen !== undefined ? { screen: options.screen } : {}),
  });
  const { selection, digests } = await checkDigests(
    selected,
    options.expectedDigests,
    onUnfit,
    options.expectedScreens,
  );
  const resultScreen = options.screenResults;
  if (resultScreen !== undefined && resultScreen !== "refuse" && resultScreen !== "reveal") {
    throw new DiscoveryError(
      "discovery_options_invalid",
      'screenResults must be "refuse" or "reveal"',
    );
  }
  return {
    ...selection,
    bindings,
    session,
    monitor,
    limits,
    digests,
    ...(resultScreen !== undefined ? { resultScreen } : {}),
  };
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
