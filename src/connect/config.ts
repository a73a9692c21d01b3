import type { GateTelemetry } from "../telemetry/types.ts";
import type { SluiceLock } from "../catalog/lock.ts";
import type { ResultScreen } from "../calls/result.ts";
import type { DiscoveryScreen, ScreenPolicy } from "../catalog/screening.ts";
import { isRecord, type JsonObject } from "../identity/mod.ts";
import type { ApprovalRecord, ApprovalStore } from "../approvals/types.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import type { OAuthClient } from "../auth/oauth_client.ts";
import type { Resolver } from "../transport/resolver.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import type { EraCache } from "../session/era.ts";
import { ConnectConfigError } from "./errors.ts";
import type { ConnectEvent } from "./events.ts";
import { invalid, parseEntry, stringList } from "./config_entries.ts";
import { assignLocalNames } from "./names.ts";
import { resolveScreens } from "./screen_config.ts";
import { type ResolvedStdio, resolveStdio, stdioUrl } from "./stdio_config.ts";
import type { ServerConfig, StdioServerConfig } from "./server_config.ts";

export type {
  HttpServerConfig,
  ServerConfig,
  ServerEntryOptions,
  StdioServerConfig,
} from "./server_config.ts";
import { MAX_RELIST_INTERVAL_MS, MIN_RELIST_INTERVAL_MS } from "./relister.ts";
import { LEGACY_PROTOCOL_VERSIONS, OPT_IN_PROTOCOL_VERSIONS } from "../session/protocol.ts";
import { checkClientHandlers, type ConnectClientHandlers } from "./client_handlers.ts";

/**
 * The owner's description and input schema for one tool; the server's are then never used.
 *
 * @category Agent developers: connect()
 */
export interface ToolSpec {
  /** Server id. */
  readonly server: string;
  /** Remote tool name. */
  readonly tool: string;
  /** Model-facing description. */
  readonly description: string;
  /** Input schema (must fit the schema profile). */
  readonly inputSchema: JsonObject;
}

/**
 * Decides a flagged call. Only a return value of exactly `true` (or a promise of it) runs the
 * call; anything else, and any exception, denies it without contacting the server.
 *
 * @category Agent developers: connect()
 */
export type ApproveCallback = (
  server: string,
  tool: string,
  args: JsonObject,
) => unknown;

/**
 * Options of the hardened fetch every server session uses.
 *
 * @category Agent developers: connect()
 */
export interface ConnectTransportOptions {
  /**
   * Allow loopback destinations and plain http to them. Local development and tests only:
   * anything listening on this machine becomes reachable. Default `false`.
   */
  readonly dangerouslyAllowLoopback?: boolean;
  /** Byte cap on every response body. Default 1 MiB. */
  readonly maxResponseBytes?: number;
  /** One deadline per HTTP request (connection, headers, body) in ms. Default 30 000. */
  readonly timeoutMs?: number;
  /** Resolver for the public-address check (tests map names to addresses). */
  readonly resolve?: Resolver;
  /** The underlying fetch (tests pass one that trusts a throwaway CA). */
  readonly fetch?: FetchFunction;
}

/**
 * Options shared by {@link ConnectAllConfig} and `connect()`.
 *
 * @category Agent developers: connect()
 */
export interface ConnectCommonOptions extends ConnectClientHandlers {
  /** Exact `"server.tool"` entries that need no approval (each must also be allowed). */
  readonly preApproved?: readonly string[];
  /**
   * Exact `"server.tool"` entries (each also in `preApproved`) whose call is sent once more as
   * a new request when its reply stream breaks on a 2026-07-28 server (the revision tells
   * clients to; sluice re-sends nothing unless named here). A tool that still needs approval
   * (the server marks it destructive) is never re-sent.
   */
  readonly resendOnBrokenStream?: readonly string[];
  /** Owner-supplied tool specs; a server whose allowed tools all have one is not listed. */
  readonly specs?: readonly ToolSpec[];
  /**
   * The poisoning screen's policy per exact `"server.tool"` entry (each must be allowed), over
   * its server's `screen`; `false` leaves that tool unscreened. A tool the screen refuses can
   * also be used through an owner spec (`specs`): the screen then reads the owner's text.
   */
  readonly screenTools?: Readonly<Record<string, ScreenPolicy | false>>;
  /** Decides flagged calls inline; without it flagged calls are deferred to `store`. */
  readonly approve?: ApproveCallback;
  /**
   * The durable approval store for deferred approvals (used only without `approve`): a
   * flagged call then ends `approval_pending` with an `approvalId`; once a person approves it
   * in the store, `toolkit.resume(approvalId)` runs it exactly once.
   */
  readonly store?: ApprovalStore;
  /** How long a deferred approval stays usable, in ms (the gate's default: 15 minutes). */
  readonly approvalTtlMs?: number;
  /** Lets a non-durable store (the in-memory one) hold deferred approvals. Tests only. */
  readonly allowNonDurableStoreForTests?: boolean;
  /** Receives one audit event per discovery and per call. Exceptions are swallowed. */
  readonly onEvent?: (event: ConnectEvent) => void;
  /**
   * OpenTelemetry spans and metrics of every call through the host's own tracer and meter
   * (`server.address` / `server.port` filled from each server's URL); see the gate's option.
   */
  readonly telemetry?: GateTelemetry;
  /**
   * Told of each deferred call that ends `approval_pending`, with a copy of the pending record
   * (for example `webhookNotifier` from `@sluice/mcp/inbox`). Never awaited; its failures and
   * slowness have no effect on the call.
   */
  readonly onPending?: (approval: ApprovalRecord) => void | Promise<void>;
  /** Lowered bounds for discovery and calls (see `DEFAULT_TOOL_LIMITS`). */
  readonly limits?: Partial<ToolLimits>;
  /** The hardened fetch's options. */
  readonly transport?: ConnectTransportOptions;
  /** Remembers which era each URL speaks across connects (reuse within one owner only). */
  readonly eraCache?: EraCache;
  /**
   * The 2025 revisions accepted from a server's `initialize` answer (default `2025-11-25`,
   * `2025-06-18`). Add `"2025-03-26"` (still widely deployed) to reach servers that speak only
   * it; nothing else is accepted.
   */
  readonly legacyProtocolVersions?: readonly string[];
  /**
   * A parsed `sluice.lock.json` (`parseLock`). With it, every allowed tool a server lists must
   * match its locked entry digest; one that does not (or is not locked) is skipped with
   * `catalog_lock_mismatch` and its diff in `report().servers[].lock`; the others run.
   */
  readonly lock?: SluiceLock;
  /**
   * Hear tool list changes and stage them as revisions (`connection.revisions()`): on
   * 2026-07-28 a `subscriptions/listen` stream, on 2025 the standalone GET stream where the
   * server offers one (both through the hardened fetch, re-opened with bounded backoff and
   * closed by `close()`); where neither exists, listing again after the list result's `ttlMs`
   * hint (at least 1 s apart); on 2025 also the `list_changed` a server sends on its replies.
   * `report().servers[].changeDetection` says which (`ChangeMechanism`). What is heard is
   * listed again coalesced, at most once per `minRelistIntervalMs`. Default off.
   */
  readonly changeDetection?: boolean;
  /**
   * The minimum interval in ms between two listings of one server that connect() begins by
   * itself (a change heard, a re-opened stream, a `ttlMs` hint); notices meanwhile are
   * coalesced into one more listing. Default 1 000 (`DEFAULT_RELIST_INTERVAL_MS`); an integer
   * from 100 to 3 600 000. A server then causes at most `floor(T / interval) + 1` listings in
   * any window of T ms (docs/drift.md); `refresh()` is the host's and is not delayed.
   */
  readonly minRelistIntervalMs?: number;
  /** Aborts setup. */
  readonly signal?: AbortSignal;
}

/**
 * Configuration of `connectAll()`.
 *
 * @example
 * ```ts
 * import type { ConnectAllConfig } from "@sluice/mcp";
 * const config: ConnectAllConfig = {
 *   servers: [{ id: "docs", url: "https://mcp.example.com/mcp", token: "secret" }],
 *   allow: ["docs.search", "docs.fetch_page"],
 *   preApproved: ["docs.search"],
 * };
 * ```
 *
 * @category Agent developers: connect()
 */
export interface ConnectAllConfig extends ConnectCommonOptions {
  /** The servers, each with a unique id. */
  readonly servers: readonly ServerConfig[];
  /** Exact `"server.tool"` entries (split at the first `.`); no wildcards. */
  readonly allow: readonly string[];
  /**
   * Reject with a `ConnectError` when any server cannot be set up, as `connect()` does for
   * its one server. Default `false`: the servers that came up are used, a failed one is
   * reported (`report().servers[i].reason`), its tools answer `mcp_server_unavailable`, and
   * `connection.reconnect(id)` tries it again; only when no server comes up does it reject.
   */
  readonly requireAll?: boolean;
}

/**
 * One allowed tool after validation.
 *
 * @category Agent developers: connect()
 */
export interface AllowedTool {
  readonly server: string;
  readonly tool: string;
  readonly localName: string;
  readonly preApproved: boolean;
  /** Whether a call whose 2026-07-28 reply stream broke is sent once more (reads only). */
  readonly resendOnBrokenStream: boolean;
  readonly spec?: ToolSpec;
}

/**
 * One server after validation.
 *
 * @category Agent developers: connect()
 */
export interface ResolvedServer {
  readonly id: string;
  /** The endpoint; for a stdio server `stdio:<id>`, which names it in messages only. */
  readonly url: URL;
  /** The command of a stdio server. */
  readonly stdio?: ResolvedStdio;
  readonly token?: string;
  readonly auth?: OAuthClient;
  readonly trustReadOnlyHint: boolean;
  /** Allowed tools of this server, in allowlist order. */
  readonly tools: readonly AllowedTool[];
  /**
   * The screen discovery runs (`false`: off for every tool): the server's policy, the
   * per-tool ones, and the other servers' ids and allowed tool names as context.
   */
  readonly screen: DiscoveryScreen | false;
  /** What hidden text in this server's results does (absent: results are not screened). */
  readonly screenResults?: ResultScreen;
}

// A letter or `_` first: Gemini function names must start with one.
const SERVER_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,47}$/;

function resolveSpecs(value: unknown, servers: ReadonlySet<string>): Map<string, ToolSpec> {
  const specs = new Map<string, ToolSpec>();
  if (value === undefined) return specs;
  if (!Array.isArray(value)) throw invalid("specs must be an array");
  for (const spec of value) {
    if (
      !isRecord(spec) || typeof spec.server !== "string" || typeof spec.tool !== "string" ||
      typeof spec.description !== "string" || !isRecord(spec.inputSchema)
    ) {
      throw invalid("every spec needs server, tool, description (string) and inputSchema");
    }
    if (!servers.has(spec.server)) {
      throw new ConnectConfigError("connect_not_allowed", "a spec names an unknown server");
    }
    const key = `${spec.server}.${spec.tool}`;
    if (specs.has(key)) throw invalid(`two specs for "${key}"`);
    // Detached copy: the owner mutating its object later changes nothing.
    specs.set(key, structuredClone(spec) as unknown as ToolSpec);
  }
  return specs;
}

/** Every server's id, url and credentials, checked; the ids. */
function checkServers(servers: readonly ServerConfig[]): Set<string> {
  const ids = new Set<string>();
  for (const server of servers) {
    if (!isRecord(server) || typeof server.id !== "string" || !SERVER_ID.test(server.id)) {
      throw invalid(
        "every server needs an id of 1 to 48 characters [A-Za-z0-9_-], starting with a letter or _",
      );
    }
    if (ids.has(server.id)) throw invalid(`server id "${server.id}" is used twice`);
    ids.add(server.id);
    checkShared(server);
    if (isStdio(server)) continue;
    if (server.command !== undefined) {
      throw invalid(`server "${server.id}": a command needs transport: "stdio"`);
    }
    if (server.transport !== undefined && server.transport !== "http") {
      throw invalid(`server "${server.id}": transport must be "http" or "stdio"`);
    }
    if (typeof server.url !== "string" && !(server.url instanceof URL)) {
      throw invalid(`server "${server.id}" needs a url`);
    }
    if (server.token !== undefined && typeof server.token !== "string") {
      throw invalid(`server "${server.id}" has a token that is not a string`);
    }
    if (
      server.auth !== undefined &&
      (typeof server.auth !== "object" || server.auth === null ||
        typeof (server.auth as { fetchFor?: unknown }).fetchFor !== "function")
    ) {
      throw invalid(`server "${server.id}": auth must be an OAuthClient`);
    }
    if (server.auth !== undefined && server.token !== undefined) {
      throw invalid(`server "${server.id}": give token or auth, not both`);
    }
  }
  return ids;
}

function isStdio(server: ServerConfig): server is StdioServerConfig {
  return server.transport === "stdio";
}

/** What every entry form has: its screen of results and its trust in read-only hints. */
function checkShared(server: ServerConfig): void {
  if (
    server.screenResults !== undefined && server.screenResults !== "refuse" &&
    server.screenResults !== "reveal"
  ) {
    throw invalid(`server "${server.id}": screenResults must be "refuse" or "reveal"`);
  }
  if (server.trustReadOnlyHint !== undefined && typeof server.trustReadOnlyHint !== "boolean") {
    throw invalid(`server "${server.id}": trustReadOnlyHint must be a boolean`);
  }
}

/** The allowlist, the pre-approved and resent entries and the owner specs, checked. */
function resolveAllowlist(config: ConnectAllConfig, ids: ReadonlySet<string>) {
  const allow = stringList(config.allow, "allow");
  if (allow.length === 0) throw invalid("allow must name at least one tool");
  const allowed = new Map<string, { server: string; tool: string }>();
  for (const entry of allow) {
    const pair = parseEntry(entry, ids, "allow");
    if (allowed.has(entry)) throw invalid(`allow lists "${entry}" twice`);
    allowed.set(entry, pair);
  }
  const preApproved = new Set<string>();
  for (const entry of stringList(config.preApproved, "preApproved")) {
    parseEntry(entry, ids, "preApproved");
    if (!allowed.has(entry)) {
      throw new ConnectConfigError(
        "connect_not_allowed",
        `preApproved names "${entry}", which is not in allow`,
      );
    }
    preApproved.add(entry);
  }
  const resend = new Set<string>();
  for (const entry of stringList(config.resendOnBrokenStream, "resendOnBrokenStream")) {
    parseEntry(entry, ids, "resendOnBrokenStream");
    if (!preApproved.has(entry)) {
      throw new ConnectConfigError(
        "connect_not_allowed",
        `resendOnBrokenStream names "${entry}", which is not in preApproved`,
      );
    }
    resend.add(entry);
  }
  const specs = resolveSpecs(config.specs, ids);
  for (const key of specs.keys()) {
    if (!allowed.has(key)) {
      throw new ConnectConfigError("connect_not_allowed", `a spec names "${key}", not in allow`);
    }
  }
  return { allowed, preApproved, resend, specs };
}

/** The connection-wide options, checked. */
function checkOptions(config: ConnectAllConfig): void {
  if (config.approve !== undefined && typeof config.approve !== "function") {
    throw invalid("approve must be a function");
  }
  if (config.onEvent !== undefined && typeof config.onEvent !== "function") {
    throw invalid("onEvent must be a function");
  }
  if (config.telemetry !== undefined && !isRecord(config.telemetry)) {
    throw invalid("telemetry must be an object");
  }
  const inject = config.telemetry?.inject;
  if (inject !== undefined && typeof inject !== "function") {
    throw invalid("telemetry.inject must be a function");
  }
  const allowedLegacy = [...LEGACY_PROTOCOL_VERSIONS, ...OPT_IN_PROTOCOL_VERSIONS];
  const legacy = stringList(config.legacyProtocolVersions, "legacyProtocolVersions");
  if (
    config.legacyProtocolVersions !== undefined &&
    (legacy.length === 0 || legacy.some((version) => !allowedLegacy.includes(version)))
  ) {
    throw invalid(`legacyProtocolVersions may list only ${allowedLegacy.join(", ")}`);
  }
  if (config.requireAll !== undefined && typeof config.requireAll !== "boolean") {
    throw invalid("requireAll must be a boolean");
  }
  if (config.onPending !== undefined && typeof config.onPending !== "function") {
    throw invalid("onPending must be a function");
  }
  checkClientHandlers(config);
  const interval = config.minRelistIntervalMs;
  if (
    interval !== undefined &&
    (!Number.isInteger(interval) || interval < MIN_RELIST_INTERVAL_MS ||
      interval > MAX_RELIST_INTERVAL_MS)
  ) {
    throw invalid(
      `minRelistIntervalMs must be an integer from ${MIN_RELIST_INTERVAL_MS} to ` +
        `${MAX_RELIST_INTERVAL_MS}`,
    );
  }
}

/**
 * Validates a `connectAll()` configuration and resolves it into servers with their allowed
 * tools. Throws {@link ConnectConfigError}.
 *
 * @category Agent developers: connect()
 */
export function resolveConfig(config: ConnectAllConfig): ResolvedServer[] {
  if (!isRecord(config)) throw invalid("the configuration must be an object");
  if (!Array.isArray(config.servers) || config.servers.length === 0) {
    throw invalid("servers must be a non-empty array");
  }
  const ids = checkServers(config.servers);
  const { allowed, preApproved, resend, specs } = resolveAllowlist(config, ids);
  checkOptions(config);
  const screens = resolveScreens(config, allowed, ids);
  const localNames = assignLocalNames([...allowed.values()]);
  return config.servers.map((server) => {
    const tools: AllowedTool[] = [];
    for (const [key, pair] of allowed) {
      if (pair.server !== server.id) continue;
      const spec = specs.get(key);
      tools.push({
        server: pair.server,
        tool: pair.tool,
        localName: localNames.get(pair)!,
        preApproved: preApproved.has(key),
        resendOnBrokenStream: resend.has(key),
        ...(spec ? { spec } : {}),
      });
    }
    let url: URL;
    const stdio = isStdio(server)
      ? resolveStdio(server.id, server as unknown as Record<string, unknown>)
      : undefined;
    try {
      url = stdio !== undefined ? stdioUrl(server.id) : new URL(server.url!);
    } catch {
      throw invalid(`server "${server.id}" has a url that does not parse`);
    }
    return {
      id: server.id,
      url,
      ...(stdio !== undefined ? { stdio } : {}),
      ...(server.token !== undefined ? { token: server.token } : {}),
      ...(server.auth !== undefined ? { auth: server.auth } : {}),
      trustReadOnlyHint: server.trustReadOnlyHint === true,
      tools,
      screen: screens.get(server.id)!,
      ...(server.screenResults !== undefined ? { screenResults: server.screenResults } : {}),
    };
  });
}
