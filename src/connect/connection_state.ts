/**
 * The state of one connection made by `connectAll`: its servers, the toolkit and gate over
 * them, and how a server is opened and discovered and the connection closed.
 *
 * @module
 */
import { serverAddressOf } from "../telemetry/types.ts";
import { sessionTracing } from "../telemetry/session_tracing.ts";
import { catalogCountersOf } from "../telemetry/operator_metrics.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import type { ApprovalDecider } from "../catalog/bindings.ts";
import { secureFetch } from "../transport/secure_fetch.ts";
import { Gate } from "../gate/gate.ts";
import type { InlineApprovalRequest } from "../gate/types.ts";
import type { ConnectAllConfig, ResolvedServer } from "./config.ts";
import { type ConnectedTool, discoverServer } from "./discovery.ts";
import type { TracedVerdicts } from "../telemetry/call_trace.ts";
import { elapsed, emitEvent } from "./events.ts";
import { expectationsOf } from "./connection_lock.ts";
import { closeSessions, type ServerState, toolkitServerOf } from "./server_state.ts";
import { CatalogMonitor } from "../catalog/monitor.ts";
import { acceptedProtocolVersions } from "../session/protocol.ts";
import { ServerSession, type ServerSessionOptions } from "../session/server_session.ts";
import { openStdioSession } from "../session/stdio_open.ts";
import type { ConnectSession } from "../session/connect_session.ts";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../transport/fetch_options.ts";
import type { ResolvedStdio } from "./stdio_config.ts";
import { reloadToolkit, type Toolkit, type ToolkitServer } from "./toolkit.ts";
import { callHandlersOf, offerOf } from "./client_handlers.ts";

/** What a connection is set up from, fixed for its life. */
export interface SetupState {
  readonly config: ConnectAllConfig;
  readonly limits: ToolLimits;
  /** The per-request deadline of every session. */
  readonly timeoutMs: number;
  /** Who decides the calls that need approval, as every write catalog records it. */
  readonly decidedBy: ApprovalDecider;
  readonly servers: readonly ServerState[];
}

/** A connection once set up: its toolkit, and what changes over its life. */
export interface ConnectionState extends SetupState {
  readonly toolkit: Toolkit;
  /** Set by `close()`; every later step sees it and stops. */
  closing?: Promise<void>;
  /** How many revisions were staged (each revision's id counts on it). */
  revisionCount: number;
  /** Stops the operator gauges over the store (telemetry), at close. */
  stopObserving?: () => void;
}

/** Who decides a write under this configuration: the inline callback, the store, or nobody. */
export function deciderOf(config: ConnectAllConfig): ApprovalDecider {
  return config.approve !== undefined ? "inline" : config.store !== undefined ? "store" : "none";
}

/** A server's session over its own hardened fetch, held for the connection's lifetime. */
export function openServer(
  setup: Pick<SetupState, "config" | "timeoutMs">,
  server: ResolvedServer,
): Pick<ServerState, "session" | "monitor" | "fetch" | "release"> {
  const { config, timeoutMs } = setup;
  const transport = config.transport ?? {};
  const fetch = secureFetch({
    ...transport,
    ...(server.token !== undefined ? { token: server.token, tokenOrigin: server.url.origin } : {}),
  });
  const legacy = config.legacyProtocolVersions;
  const monitor = new CatalogMonitor({ protocolVersions: acceptedProtocolVersions(legacy) });
  const hooks = sessionHooks(config, server, monitor);
  if (server.stdio !== undefined) {
    return { session: stdioSession(setup, server.stdio, hooks), monitor, fetch, release: () => {} };
  }
  const sessionFetch = server.auth !== undefined
    ? server.auth.fetchFor(server.url, transport, {
      legacyDiscovery: legacy?.includes("2025-03-26") === true,
    })
    : fetch;
  const session = new ServerSession({
    url: server.url,
    fetch: sessionFetch,
    timeoutMs,
    ...(config.changeDetection === true ? { changeDetection: true } : {}),
    ...(config.eraCache ? { eraCache: config.eraCache } : {}),
    ...(legacy ? { legacyProtocolVersions: [...legacy] } : {}),
    ...hooks,
  });
  return { session, monitor, fetch, release: sessionFetch.hold() };
}

/** What a server's session is given alike over Streamable HTTP and stdio. */
type SessionHooks = Pick<ServerSessionOptions, "observer" | "offer" | "wrapSession">;

/**
 * The observer, the client offer (elicitation, log messages) and the telemetry of a server's
 * session, the same for either transport (stdio is traced as `network.transport` `pipe`).
 */
function sessionHooks(
  config: ConnectAllConfig,
  server: ResolvedServer,
  monitor: CatalogMonitor,
): SessionHooks {
  const offer = offerOf(config, server.id);
  if (config.telemetry !== undefined) {
    const counters = catalogCountersOf(config.telemetry);
    monitor.onChange((reason) => counters.stale(server.id, reason));
  }
  const tracing = config.telemetry === undefined ? undefined : sessionTracing(
    config.telemetry,
    server.stdio !== undefined
      ? { serverId: server.id, transport: "pipe" }
      : { serverId: server.id, ...serverAddressOf(server.url), transport: "tcp" },
    monitor,
  );
  return {
    observer: tracing?.observer ?? monitor,
    ...(offer !== undefined ? { offer } : {}),
    ...(tracing !== undefined ? { wrapSession: tracing.wrapSession } : {}),
  };
}

/** A stdio server's session, bounded as HTTP is: the same deadline and message cap. */
function stdioSession(
  { config, timeoutMs }: Pick<SetupState, "config" | "timeoutMs">,
  stdio: ResolvedStdio,
  hooks: SessionHooks,
): ConnectSession {
  const legacy = config.legacyProtocolVersions;
  return openStdioSession({
    spec: stdio.spec,
    inheritEnv: stdio.inheritEnv,
    bounds: {
      maxFrameBytes: stdio.maxFrameBytes,
      maxMessageBytes: config.transport?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxStderrBytes: stdio.maxStderrBytes,
      closeTimeoutMs: stdio.closeTimeoutMs,
    },
    timeoutMs,
    ...(legacy ? { legacyProtocolVersions: [...legacy] } : {}),
    ...(config.changeDetection === true ? { changeDetection: true } : {}),
    ...hooks,
  });
}

/** Lists and checks one server (at set-up, or again on reconnect); one discovery event. */
export async function discoverInto(
  setup: SetupState,
  item: ServerState,
  signal: AbortSignal | undefined,
): Promise<void> {
  const start = performance.now();
  const { config } = setup;
  item.catalog = await discoverServer(
    item.server,
    item,
    setup.limits,
    signal,
    setup.decidedBy,
    expectationsOf(config.lock, item.server.id),
  );
  if (config.telemetry !== undefined) {
    const counters = catalogCountersOf(config.telemetry);
    for (const skipped of item.catalog.skipped) {
      if (skipped.code === "catalog_lock_mismatch") {
        counters.lockMismatch(skipped.server, skipped.tool);
      }
    }
  }
  emitEvent(config.onEvent, {
    kind: "discovery",
    server: item.server.id,
    ok: item.catalog.errorCode === undefined,
    ...(item.catalog.errorCode !== undefined ? { errorCode: item.catalog.errorCode } : {}),
    durationMs: elapsed(start),
    catalogDigest: item.catalog.snapshot?.revisionDigest ?? null,
  });
}

/** The screen's and the lock's verdicts on a ready tool, for its spans. */
function verdictsOf(tool: ConnectedTool, locked: boolean): TracedVerdicts {
  const findings = tool.screen?.length;
  return {
    screen: findings === undefined ? "not_screened" : findings === 0 ? "clean" : "findings",
    ...(findings ? { findings } : {}),
    // A ready tool under a lock passed it; an owner spec is never listed, so never locked.
    lock: tool.source === "owner_spec" ? "not_listed" : locked ? "matched" : "unlocked",
  };
}

/** The one gate of the toolkit's servers of now, under the connection's governance. */
export function gateFor(config: ConnectAllConfig, servers: readonly ToolkitServer[]): Gate {
  const approve = config.approve;
  const handlers = callHandlersOf(
    config,
    config.transport?.dangerouslyAllowLoopback === true,
    config.onEvent,
  );
  const telemetry = config.telemetry;
  return new Gate({
    catalogs: telemetry === undefined
      ? servers.map((server) => ({ calls: server.tools.map((tool) => tool.plan) }))
      // Traces name each tool's server and catalog digest.
      : servers.flatMap((server) =>
        server.tools.map((tool) => ({
          calls: [tool.plan],
          snapshot: {
            serverId: server.id,
            revisionDigest: tool.catalogDigest,
            verdicts: verdictsOf(tool, config.lock !== undefined),
          },
        }))
      ),
    ...(telemetry !== undefined
      ? {
        telemetry: {
          ...telemetry,
          servers: {
            ...Object.fromEntries(
              config.servers.flatMap((s) =>
                s.url === undefined ? [] : [[s.id, serverAddressOf(s.url)]]
              ),
            ),
            ...telemetry.servers,
          },
        },
      }
      : {}),
    ...(config.store !== undefined ? { store: config.store } : {}),
    ...(approve !== undefined
      ? {
        approve: (request: InlineApprovalRequest) =>
          approve(request.server, request.remoteName, request.arguments),
      }
      : {}),
    ...(config.approvalTtlMs !== undefined ? { approvalTtlMs: config.approvalTtlMs } : {}),
    ...(config.onPending !== undefined ? { onPending: config.onPending } : {}),
    ...(handlers !== undefined ? { handlers } : {}),
    ...(config.allowNonDurableStoreForTests === true ? { allowNonDurableStoreForTests: true } : {}),
  });
}

/** The toolkit's servers of now. */
export function toolkitServers(setup: SetupState): ToolkitServer[] {
  return setup.servers.map(toolkitServerOf);
}

/** Rebuilds the toolkit and its gate from the servers' catalogs of now. */
export function reloadServers(state: ConnectionState): void {
  const servers = toolkitServers(state);
  reloadToolkit(state.toolkit, servers, gateFor(state.config, servers));
}

/** Closes the connection once: a reconnect in flight first, then timers, listings, sessions. */
export function closeConnection(state: ConnectionState): Promise<void> {
  return state.closing ??= (async () => {
    const { servers } = state;
    // A reconnect in flight ends first: its new session is then closed with the others.
    await Promise.all(servers.map((item) => item.reconnecting?.catch(() => undefined)));
    state.stopObserving?.();
    for (const item of servers) {
      clearTimeout(item.ttlTimer);
      item.relister?.close();
    }
    await closeSessions(servers);
    await Promise.all(servers.map((item) => item.relister?.idle().catch(() => undefined)));
  })();
}
