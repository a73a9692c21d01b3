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
import { discoverServer, type ServerCatalog } from "./discovery.ts";
import { elapsed, emitEvent } from "./events.ts";
import type { ConnectReport, ServerReport } from "./report.ts";
import { ServerSession } from "./session.ts";
import { Toolkit, type ToolkitServer } from "./toolkit.ts";
import { Gate } from "../gate/gate.ts";
import { providerReports } from "../providers/mod.ts";
import type { InlineApprovalRequest } from "../gate/types.ts";

/** A live set of governed tools: the toolkit, a report and `close()`. */
export interface Connection {
  /** The allowlisted tools the model may call. */
  readonly toolkit: Toolkit;
  /** Which tools are ready, which were skipped and why, and each server's state. */
  report(): ConnectReport;
  /**
   * Each server's frozen catalogs: `read` for the tools that need no approval, `write`
   * (`schemaVersion: 2`, confirm policies stating who decides) for those that do.
   */
  catalogs(): readonly ServerCatalogs[];
  /** Closes every session (a legacy session is also deleted on the server). Idempotent. */
  close(): Promise<void>;
}

/** One server's catalogs in a {@link Connection}. */
export interface ServerCatalogs {
  /** Server id. */
  readonly server: string;
  /** The read catalog, or `null` when every allowed tool needs approval or none is ready. */
  readonly read: ReadSnapshot | null;
  /** The write catalog of the tools that need approval, or `null`. */
  readonly write: WriteSnapshot | null;
}

/** Options of {@link connect}: one server, tools named by their plain remote names. */
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
  readonly session: ServerSession;
  readonly fetch: SecureFetch;
  catalog?: ServerCatalog;
}

/**
 * Connects to several MCP servers over Streamable HTTP and returns governed tools for exactly
 * the allowlisted `"server.tool"` entries. Nothing is read from the environment. Each server
 * gets the official v2 client over `secureFetch` (2026-07-28 first, then the 2025 handshake
 * limited to 2025-11-25 and 2025-06-18); every call runs through one `Gate`. A tool that does not fit is skipped and reported; a
 * server that fails fails only its own listed tools. Throws only for a refused configuration.
 *
 * @example
 * ```ts ignore
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
  const prepared: Prepared[] = servers.map((server) => {
    const fetch = secureFetch({
      ...transport,
      ...(server.token !== undefined
        ? { token: server.token, tokenOrigin: server.url.origin }
        : {}),
    });
    const session = new ServerSession({
      url: server.url,
      fetch: server.auth !== undefined ? server.auth.fetchFor(server.url, transport) : fetch,
      timeoutMs,
      ...(config.eraCache ? { eraCache: config.eraCache } : {}),
      ...(config.legacyProtocolVersions
        ? { legacyProtocolVersions: [...config.legacyProtocolVersions] }
        : {}),
    });
    return { server, session, fetch };
  });
  let toolkitServers: ToolkitServer[];
  let gate: Gate;
  try {
    await Promise.all(prepared.map(async (item) => {
      const start = performance.now();
      item.catalog = await discoverServer(
        item.server,
        item.session,
        limits,
        config.signal,
        decidedBy,
      );
      emitEvent(config.onEvent, {
        kind: "discovery",
        server: item.server.id,
        ok: item.catalog.errorCode === undefined,
        ...(item.catalog.errorCode !== undefined ? { errorCode: item.catalog.errorCode } : {}),
        durationMs: elapsed(start),
        catalogDigest: item.catalog.snapshot?.revisionDigest ?? null,
      });
    }));
    toolkitServers = prepared.map((item) => ({
      id: item.server.id,
      session: item.session,
      tools: item.catalog!.tools,
    }));
    gate = new Gate({
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
  } catch (error) {
    await Promise.all(prepared.map((item) => item.session.close()));
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
  return Object.freeze({
    toolkit,
    report: () => ({
      ...buildReport(prepared, decidedBy),
      providers: providerReports(toolkit.tools),
    }),
    catalogs: () =>
      prepared.map((item) => ({
        server: item.server.id,
        read: item.catalog!.snapshot,
        write: item.catalog!.writeSnapshot,
      })),
    close: () =>
      closing ??= Promise.all(prepared.map((item) => item.session.close())).then(() => {}),
  });
}

function buildReport(
  prepared: readonly Prepared[],
  decidedBy: ApprovalDecider,
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
  const servers = prepared.map((item): ServerReport => {
    const { session, catalog } = item;
    const era = session.era;
    return {
      id: item.server.id,
      status: catalog!.errorCode !== undefined ? "failed" : era ? "ready" : "deferred",
      ...(era ? { era, protocolVersion: session.protocolVersion } : {}),
      ...(catalog!.errorCode !== undefined ? { errorCode: catalog!.errorCode } : {}),
      catalogDigest: catalog!.snapshot?.revisionDigest ?? null,
      writeCatalogDigest: catalog!.writeSnapshot?.revisionDigest ?? null,
      transport: item.fetch.describe(),
      handshakes: session.stats.handshakes,
      ...(catalog!.staleReason !== undefined ? { stale: catalog!.staleReason } : {}),
    };
  });
  return structuredClone({ ready, skipped, servers });
}

/**
 * Connects to one MCP server: {@link connectAll} with a single server, tools named by their
 * remote names.
 *
 * @example
 * ```ts ignore
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
