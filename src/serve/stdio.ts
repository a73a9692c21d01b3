/**
 * `sluice serve` over stdio, for a desktop client that launches it: the one client on the other
 * end of the pipe is named by the host (no token: whoever can start the process is that client),
 * with its own allowlist, and gets the same governed server as over HTTP.
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/server";
import type { Toolkit } from "../connect/mod.ts";
import { loadOptional } from "../optional_packages.ts";
import { ServeClients } from "./clients.ts";
import type { ServeEvent } from "./events.ts";
import { GovernedTools } from "./governed.ts";
import type { InputRelay } from "./relay.ts";
import { type ServeLimits, serveLimits } from "./limits.ts";
import type { ServedToolNames } from "./names.ts";

const stdioSdk = await loadOptional(
  "@modelcontextprotocol/server",
  () => import("@modelcontextprotocol/server/stdio"),
);

/**
 * Options of {@link serveToolkitStdio}.
 *
 * @category sluice serve
 */
export interface ServeStdioOptions {
  /** The client on the other end: its name (in events and run ids) and allowlist. */
  readonly client: { readonly name: string; readonly allow?: readonly string[] };
  /** Concurrency and the shutdown wait (`maxBodyBytes` is the SDK's line cap over stdio). */
  readonly limits?: Partial<ServeLimits>;
  /** The server's name and version in the MCP handshake. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Told of every tool list and call. */
  readonly onEvent?: (event: ServeEvent) => void;
  /** Local names (default) or the upstreams' own (see `ServeToolkitOptions.toolNames`). */
  readonly toolNames?: ServedToolNames;
  /**
   * Relays the upstreams' requests for input to the client (`elicitation/create` on the call's
   * stream, when it declared elicitation): give the relay's `elicit` to the toolkit's connection.
   */
  readonly inputRelay?: InputRelay;
}

/**
 * A toolkit served over one stdio connection.
 *
 * @category sluice serve
 */
export interface StdioServed {
  /**
   * Sends `notifications/tools/list_changed` when the toolkit's tools changed since the client
   * was last served (an accepted revision, a reconnected server); returns whether they had.
   */
  toolsChanged(): boolean;
  /** Settles when the connection has ended (the client closed it, or `close()`), calls drained. */
  readonly closed: Promise<void>;
  /** Ends the connection after the calls in flight end with their outcome. */
  close(): Promise<void>;
}

/**
 * Serves `toolkit` over stdio to one client. Throws `serve_config_invalid` for a bad client
 * name, allowlist or limits.
 *
 * @example
 * ```ts ignore
 * // Runs end to end in tests/serve/stdio_test.ts.
 * import { serveToolkitStdio } from "@sluice/mcp/serve";
 * const served = await serveToolkitStdio(connection.toolkit, { client: { name: "desktop" } });
 * await served.closed;
 * await connection.close();
 * ```
 *
 * @param toolkit the connection's toolkit
 * @param options the client, limits and events
 *
 * @category sluice serve
 */
export function serveToolkitStdio(
  toolkit: Toolkit,
  options: ServeStdioOptions,
): Promise<StdioServed> {
  return serveOnTransport(toolkit, options, new stdioSdk.StdioServerTransport());
}

/**
 * {@link serveToolkitStdio} on another transport of the server SDK (tests link a client in
 * memory). Not part of the public API.
 *
 * @param toolkit the connection's toolkit
 * @param options the client, limits and events
 * @param carrier the transport to serve on
 *
 * @category sluice serve
 */
export async function serveOnTransport(
  toolkit: Toolkit,
  options: ServeStdioOptions,
  carrier: Transport,
): Promise<StdioServed> {
  // The client is checked like an HTTP one; its token is a placeholder nobody presents.
  const [client] = (await ServeClients.of([{
    ...options.client,
    token: crypto.randomUUID() + crypto.randomUUID(),
  }])).list;
  const governed = new GovernedTools(toolkit, {
    limits: serveLimits(options.limits),
    ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    ...(options.inputRelay ? { relay: options.inputRelay } : {}),
  });
  const { promise: ended, resolve: end } = Promise.withResolvers<void>();
  const transport = watched(carrier, end);
  const stops: (() => void)[] = [];
  const handle = stdioSdk.serveStdio(() => {
    const server = governed.server(client, true);
    // Over stdio the one connection's server announces an accepted change itself.
    stops.push(governed.onToolsChanged(() => void server.sendToolListChanged().catch(() => {})));
    return server;
  }, { transport, onerror: () => {} });
  const closed = ended.then(() => {
    for (const stop of stops) stop();
    return governed.drain();
  });
  let closing: Promise<void> | undefined;
  return {
    closed,
    toolsChanged: () => governed.sync(),
    close: () =>
      closing ??= governed.drain().then(() => handle.close()).then(() => {
        end();
        return closed;
      }),
  };
}

/** `inner`, telling `ended` when it closes (whoever set its `onclose`). */
function watched(inner: Transport, ended: () => void): Transport {
  let onclose: (() => void) | undefined;
  inner.onclose = () => {
    onclose?.();
    ended();
  };
  return {
    start: () => inner.start(),
    send: (message, sendOptions) => inner.send(message, sendOptions),
    close: () => inner.close(),
    get onclose() {
      return onclose;
    },
    set onclose(handler) {
      onclose = handler;
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(handler) {
      inner.onerror = handler;
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onmessage(handler) {
      inner.onmessage = handler;
    },
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
  };
}
