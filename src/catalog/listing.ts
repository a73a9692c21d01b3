/**
 * The bounded `tools/list`: every page under the limits, detached copies of the tools the
 * caller names, and nothing of the others but their count and size.
 *
 * @module
 */
import { Turns } from "../turns.ts";
import { canonicalize, deepFreeze, isRecord, utf8Length } from "../identity/mod.ts";
import { type McpSession, SessionRequestError } from "../session/session.ts";
import { DiscoveryError } from "./errors.ts";
import type { ToolLimits } from "./limits.ts";
import type { CatalogMonitor } from "./monitor.ts";

/**
 * What one listing found for the names it was asked about.
 *
 * @category Discovery and calls
 */
export interface ToolListing {
  /** The monitor the listing was made under. */
  readonly monitor: CatalogMonitor;
  /** The monitor's generation when the listing started: a change heard since makes it stale. */
  readonly generation: number;
  /** Detached copies of the named tools the server listed, by remote name. */
  readonly tools: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /**
   * Named tools whose entry the server broke (listed twice, or not plain JSON: a lone
   * surrogate, a number JSON cannot hold). Only these tools fail; the others stay usable.
   */
  readonly malformed: ReadonlySet<string>;
  /**
   * The server's freshness hint: the smallest `ttlMs` (a non-negative integer) of the
   * listing's pages, absent when no page sent one. A host without a change stream may list
   * again after it.
   */
  readonly ttlMs?: number;
}

function protocolError(message: string): DiscoveryError {
  return new DiscoveryError("mcp_protocol_error", message);
}

/**
 * Fetches every `tools/list` page under the limits and keeps detached copies of the tools
 * named in `names`. A tool that is not named can fail nothing: its content is only counted
 * toward the page, tool and byte budgets. Throws a {@link DiscoveryError} for a list that
 * breaks a budget or the protocol as a whole, or a request that fails.
 *
 * @param session the server's session
 * @param monitor the session's monitor (its generation is recorded)
 * @param names the remote names to keep
 * @param limits the budgets
 * @param signal aborts the listing
 *
 * @category Discovery and calls
 */
export async function listNamedTools(
  session: McpSession,
  monitor: CatalogMonitor,
  names: ReadonlySet<string>,
  limits: ToolLimits,
  signal: AbortSignal | undefined,
): Promise<ToolListing> {
  const generation = monitor.generation;
  // A large list's copies are made in short turns, so they never stall the host.
  const turns = new Turns();
  const tools = new Map<string, Readonly<Record<string, unknown>>>();
  const malformed = new Set<string>();
  const seen = new Set<string>();
  let catalogBytes = 0;
  let count = 0;
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0;; page++) {
    if (page >= limits.maxPages) {
      throw new DiscoveryError(
        "mcp_too_many_pages",
        `the server lists more than ${limits.maxPages} pages`,
      );
    }
    let raw: unknown;
    try {
      raw = await session.request("tools/list", cursor === undefined ? {} : { cursor }, {
        ...(signal ? { signal } : {}),
        timeoutMs: limits.timeoutMs,
      });
    } catch (error) {
      if (error instanceof SessionRequestError) {
        throw new DiscoveryError(error.code, `tools/list failed (${error.code})`, {}, error);
      }
      throw new DiscoveryError("mcp_transport_error", "tools/list failed", {}, error);
    }
    if (!isRecord(raw) || !Array.isArray(raw.tools)) {
      throw protocolError("a tools/list result has no tools array");
    }
    count += raw.tools.length;
    if (count > limits.maxTools) {
      throw new DiscoveryError(
        "mcp_too_many_tools",
        `the server lists more than ${limits.maxTools} tools`,
      );
    }
    // The page's size on the wire, give or take escapes; JSON.stringify never throws on what
    // a JSON parser produced (a lone surrogate is escaped, 1e400 became Infinity → null).
    catalogBytes += utf8Length(JSON.stringify(raw.tools));
    if (catalogBytes > limits.maxCatalogBytes) {
      throw new DiscoveryError(
        "mcp_catalog_too_large",
        `the tool list is larger than ${limits.maxCatalogBytes} bytes`,
      );
    }
    for (const tool of raw.tools) {
      await turns.next();
      // An entry without a name cannot be bound, so it cannot fail a bound tool either.
      if (!isRecord(tool) || typeof tool.name !== "string") continue;
      const name = tool.name;
      if (seen.has(name)) {
        if (names.has(name)) {
          tools.delete(name);
          malformed.add(name);
        }
        continue;
      }
      seen.add(name);
      if (!names.has(name)) continue;
      try {
        // Canonical text refuses non-JSON; parsing it back gives a copy the server (or an
        // in-memory peer) can no longer change, frozen whole so that what is derived from it
        // (its schemas' checks and canonical texts) is derived once.
        tools.set(name, deepFreeze(JSON.parse(canonicalize(tool))));
      } catch {
        malformed.add(name);
      }
    }
    if (Number.isSafeInteger(raw.ttlMs) && (raw.ttlMs as number) >= 0) {
      ttlMs = Math.min(ttlMs ?? Infinity, raw.ttlMs as number);
    }
    const next = raw.nextCursor;
    // An empty string is a valid cursor; only an absent cursor ends the list.
    if (next === undefined) break;
    if (typeof next !== "string") throw protocolError("a tools/list cursor is not a string");
    cursor = next;
  }
  return Object.freeze({
    monitor,
    generation,
    tools,
    malformed,
    ...(ttlMs === undefined ? {} : { ttlMs }),
  });
}
