/**
 * `serve(config)`: the same configuration `connectAll` takes, plus who may call, as one governed
 * MCP endpoint. It connects (discovery, pinning, the gate, the approval store) and serves the
 * toolkit; closing it lets calls in flight end, then closes every upstream session.
 *
 * @module
 */
import {
  type AcceptOptions,
  type ConnectAllConfig,
  type Connection,
  localToolName,
  type ServerReport,
  type StagedRevision,
} from "../connect/mod.ts";
import { approvalInbox } from "../inbox/approval_inbox.ts";
import { type InboxAuthorize, inboxSettings } from "../inbox/options.ts";
import { revisionsRoute, type RevisionsSource } from "./revisions_page.ts";
import { Authenticator } from "./authenticate.ts";
import { ServeError } from "./errors.ts";
import { serveLimits } from "./limits.ts";
import { recoverServedClaims, type ServeRecoverOptions } from "./recover.ts";
import { type ServeHandler, serveToolkit, type ServeToolkitOptions } from "./handler.ts";
import { connectRelayed } from "./relay.ts";

/**
 * What `serve` takes: a `connectAll` configuration (its `limits` and `onEvent` are the
 * upstream tools' and connection's) and, under `serve`, the endpoint's clients and limits.
 *
 * @category sluice serve
 */
export interface ServeConfig extends ConnectAllConfig {
  /**
   * Who may call, the endpoint's limits and origins, its audit events, and (`recover`) how
   * claims a crash left behind are settled at start-up: default every claimed served write is
   * recorded `unknown` before anything is served; `false` leaves them.
   */
  readonly serve: ServeToolkitOptions & {
    readonly recover?: ServeRecoverOptions | false;
    /**
     * Mounts the approval inbox (`approvalInbox`) on the same server, over the configured store,
     * at `basePath` (default `/inbox`): people decide there, and review and accept the staged
     * upstream changes at `<basePath>/revisions`; everything else is the MCP endpoint. The inbox
     * authorizes its own requests (`authorize`, such as `oneTimeLogin`'s).
     */
    readonly inbox?: ServeInboxOptions;
  };
}

/**
 * The approval inbox mounted beside the endpoint.
 *
 * @category sluice serve
 */
export interface ServeInboxOptions {
  /** Who an inbox request comes from (see `approvalInbox`); nobody gets in without it. */
  readonly authorize: InboxAuthorize;
  /** Where it is mounted; default `/inbox`. */
  readonly basePath?: string;
  /** Origins its forms may be posted from (default: the request's own). */
  readonly allowedOrigins?: readonly string[];
}

/**
 * A governed endpoint and the connection behind it.
 *
 * @category sluice serve
 */
export interface Served {
  /** Serves one HTTP request. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The upstream connection (its `report()` says which tools are served and why others not). */
  readonly connection: Connection;
  /** The endpoint itself (`inFlight()`). */
  readonly handler: ServeHandler;
  /**
   * The upstream changes heard and staged, not yet accepted (`connection.revisions()`): while a
   * revision waits, the served list stays as it was pinned and a changed tool answers
   * `mcp_catalog_stale`.
   */
  revisions(): readonly StagedRevision[];
  /**
   * Accepts a staged revision (`connection.accept`), then sends
   * `notifications/tools/list_changed` to the clients listening: only now does the served list
   * change.
   *
   * @param revision a revision from {@link revisions}
   * @param options the tools to take (default all it touches)
   */
  accept(revision: StagedRevision, options?: AcceptOptions): Promise<void>;
  /**
   * Tries a failed server again (`connection.reconnect`); when its tools join, the clients
   * listening are sent `notifications/tools/list_changed`.
   *
   * @param id the server id
   */
  reconnect(id: string): Promise<ServerReport>;
  /** The approvals settled `unknown` at start-up (claimed by a process that stopped). */
  readonly recovered: readonly string[];
  /** Stops taking requests, lets calls in flight end with their outcome, closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to the configured servers and serves their allowed tools to the configured clients.
 * Bad clients, limits, or a client's allowlist entry that names no allowed tool throw
 * `serve_config_invalid` before anything is contacted; connection failures reject as
 * `connectAll` does.
 *
 * @example
 * ```ts ignore
 * // Runs end to end in tests/serve/serve_test.ts.
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * import { serve } from "@sluice/mcp/serve";
 *
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * const served = await serve({
 *   servers: [{ id: "records", url: "https://records.example.com/mcp" }],
 *   allow: ["records.read_record", "records.write_record"],
 *   preApproved: ["records.read_record"],
 *   store,
 *   serve: { clients: [{ name: "ide", token: Deno.env.get("IDE_TOKEN")! }] },
 * });
 * Deno.serve({ hostname: "127.0.0.1", port: 8931 }, served.fetch);
 * ```
 *
 * @param config the servers, allowlist and store of `connectAll`, plus `serve`
 *
 * @category sluice serve
 */
export async function serve(config: ServeConfig): Promise<Served> {
  // The endpoint's own settings are checked before any server is contacted.
  if (typeof config.serve !== "object" || config.serve === null) {
    throw new ServeError("serve_config_invalid", "sluice serve: give serve: { clients }");
  }
  await Authenticator.of(config.serve.clients, config.serve.oauth);
  serveLimits(config.serve.limits);
  checkClientAllowlists(config);
  if (config.serve.inbox !== undefined && config.store === undefined) {
    throw new ServeError("serve_config_invalid", "sluice serve: serve.inbox needs a store");
  }
  const { recover } = config.serve;
  const recovered = config.store === undefined || recover === false
    ? []
    : await recoverServedClaims(config.store, recover);
  // The upstreams' requests for input during a served call go to that call's client.
  const { connection, relay } = await connectRelayed(config);
  let handler: ServeHandler;
  try {
    handler = await serveToolkit(connection.toolkit, {
      inputRelay: relay,
      ...config.serve,
      ...(config.store === undefined ? {} : { taskStore: config.store }),
    });
  } catch (error) {
    await connection.close();
    throw error;
  }
  let closed: Promise<void> | undefined;
  const accept = async (revision: StagedRevision, options?: AcceptOptions) => {
    await connection.accept(revision, options);
    handler.toolsChanged();
  };
  const revisions = () => connection.revisions();
  return {
    fetch: withInbox(config, handler.fetch, { revisions, accept }),
    connection,
    handler,
    recovered: Object.freeze(recovered),
    revisions,
    accept,
    reconnect: async (id) => {
      const report = await connection.reconnect(id);
      handler.toolsChanged();
      return report;
    },
    close: () => closed ??= handler.close().finally(() => connection.close()).then(() => undefined),
  };
}

/** The endpoint's fetch, with the inbox answering under its base path when one is mounted. */
function withInbox(
  config: ServeConfig,
  endpoint: (request: Request) => Promise<Response>,
  source: RevisionsSource,
): (request: Request) => Promise<Response> {
  const options = config.serve.inbox;
  if (options === undefined) return endpoint;
  if (config.store === undefined) {
    throw new ServeError("serve_config_invalid", "sluice serve: serve.inbox needs a store");
  }
  const basePath = options.basePath ?? "/inbox";
  const inboxOptions = {
    store: config.store,
    authorize: options.authorize,
    basePath,
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  };
  const inbox = approvalInbox(inboxOptions);
  const revisionsPage = revisionsRoute(inboxSettings(inboxOptions), source);
  return async (request) => {
    const path = new URL(request.url).pathname;
    const inside = path === basePath || path.startsWith(`${basePath}/`);
    if (!inside) return await endpoint(request);
    return await (revisionsPage(request) ?? inbox(request));
  };
}

/** Every client's allowlist entry must be the local name of a tool the configuration allows. */
function checkClientAllowlists(config: ServeConfig): void {
  const allowed = new Set<string>();
  for (const entry of Array.isArray(config.allow) ? config.allow : []) {
    const dot = typeof entry === "string" ? entry.indexOf(".") : -1;
    const name = dot > 0 ? localToolName(entry.slice(0, dot), entry.slice(dot + 1)) : undefined;
    if (name !== undefined) allowed.add(name);
  }
  const lists = [
    ["clients", config.serve.clients],
    ["oauth.clients", config.serve.oauth?.clients],
  ] as const;
  for (const [where, clients] of lists) {
    for (const [index, client] of (Array.isArray(clients) ? clients : []).entries()) {
      for (const name of Array.isArray(client?.allow) ? client.allow : []) {
        if (!allowed.has(name)) {
          throw new ServeError(
            "serve_config_invalid",
            `sluice serve: serve.${where}[${index}].allow names "${name}", which is not the ` +
              "local name of an allowed tool (<server>__<tool>)",
          );
        }
      }
    }
  }
}
