import { observeApprovals } from "../telemetry/operator_metrics.ts";
import { resolveToolLimits } from "../catalog/limits.ts";
import { DEFAULT_TIMEOUT_MS } from "../transport/secure_fetch.ts";
import {
  type ConnectAllConfig,
  type ConnectCommonOptions,
  resolveConfig,
  type ServerConfig,
  type ToolSpec,
} from "./config.ts";
import type { StdioCommand } from "./stdio_config.ts";
import { type Connection, connectionOf } from "./connection.ts";
import {
  type ConnectionState,
  deciderOf,
  discoverInto,
  gateFor,
  openServer,
  type SetupState,
  toolkitServers,
} from "./connection_state.ts";
import { connectErrorOf } from "./failure.ts";
import { activate } from "./refresh.ts";
import { closeSessions, failedServerOf, type ServerState } from "./server_state.ts";
import { Toolkit } from "./toolkit.ts";

export type { Connection, ServerCatalogs } from "./connection.ts";

/**
 * Options of {@link connect}: one server, tools named by their plain remote names.
 *
 * @category Agent developers: connect()
 */
export interface ConnectOptions
  extends
    Omit<ConnectCommonOptions, "preApproved" | "specs" | "resendOnBrokenStream" | "screenTools"> {
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
  /** The poisoning screen's policy for the server (see `ServerConfig.screen`). */
  readonly screen?: ServerConfig["screen"];
  /** Screen the server's results for hidden text (see `ServerConfig.screenResults`). */
  readonly screenResults?: ServerConfig["screenResults"];
  /** The screen's policy per remote tool name (see `ConnectCommonOptions.screenTools`). */
  readonly screenTools?: ConnectCommonOptions["screenTools"];
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
  const timeoutMs = config.transport?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const servers: ServerState[] = resolveConfig(config)
    .filter((server) => server.tools.length > 0)
    .map((server) => ({ server, ...openServer({ config, timeoutMs }, server) }));
  const setup: SetupState = {
    config,
    limits: resolveToolLimits(config.limits),
    timeoutMs,
    decidedBy: deciderOf(config),
    servers,
  };
  let toolkit: Toolkit;
  try {
    await Promise.all(servers.map((item) => discoverInto(setup, item, config.signal)));
    const failed = servers.filter((item) => item.catalog!.errorCode !== undefined);
    if (failed.length === servers.length || (failed.length > 0 && config.requireAll === true)) {
      throw connectErrorOf(failed.map(failedServerOf));
    }
    const ready = toolkitServers(setup);
    toolkit = new Toolkit({
      servers: ready,
      runId: crypto.randomUUID(),
      gate: gateFor(config, ready),
      ...(config.store !== undefined ? { store: config.store } : {}),
      ...(config.onEvent ? { onEvent: config.onEvent } : {}),
    });
  } catch (error) {
    await closeSessions(servers);
    throw error;
  }
  const { store, telemetry } = config;
  const state: ConnectionState = {
    ...setup,
    toolkit,
    revisionCount: 0,
    // Pending and unknown approvals, read from the store at each metric collection.
    ...(store !== undefined && telemetry !== undefined
      ? { stopObserving: observeApprovals(store, telemetry) }
      : {}),
  };
  for (const item of servers) {
    if (item.catalog!.errorCode === undefined) await activate(state, item);
  }
  return connectionOf(state);
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
 * @param url the Streamable HTTP endpoint, or a local server's command to run over stdio
 *   ({@link StdioCommand}: no shell, an environment of only what it names; docs/stdio.md)
 * @param options allowlist, governance and transport options
 * @throws {ConnectConfigError} for a configuration sluice refuses
 * @throws {ConnectError} when the server cannot be reached or is refused (its code as `code`:
 *   `transport_failed`, `transport_permission_denied`, `auth_authorization_required`, ...)
 *
 * @category Agent developers: connect()
 */
export function connect(
  url: string | URL | StdioCommand,
  options: ConnectOptions,
): Promise<Connection> {
  const id = options.id ?? "mcp";
  // The stdio form: the host's command object, copied (resolveConfig checks its fields).
  const target = typeof url === "string" || url instanceof URL
    ? { url }
    : typeof url === "object" && url !== null
    ? { ...url, transport: "stdio" as const }
    : { url };
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
    screen,
    screenTools,
    screenResults,
    ...common
  } = options;
  return connectAll({
    ...common,
    servers: [{
      id,
      ...target,
      ...(token !== undefined ? { token } : {}),
      ...(auth !== undefined ? { auth } : {}),
      ...(trustReadOnlyHint !== undefined ? { trustReadOnlyHint } : {}),
      ...(screen !== undefined ? { screen } : {}),
      ...(screenResults !== undefined ? { screenResults } : {}),
      // A token or auth with a command is refused by resolveConfig, with its message.
    } as ServerConfig],
    ...(screenTools !== undefined && typeof screenTools === "object" && screenTools !== null
      ? {
        screenTools: Object.fromEntries(
          Object.entries(screenTools).map(([tool, policy]) => [`${id}.${tool}`, policy]),
        ),
      }
      : screenTools !== undefined
      ? { screenTools }
      : {}),
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
