/**
 * One stdio server's MCP session for connect(): the official v2 client over sluice's own stdio
 * transport (`transport/stdio/`), started on first use, under the same deadlines as an HTTP
 * session, its failures given the transport's codes.
 *
 * @module
 */
import { type Client, ProtocolError } from "@modelcontextprotocol/client";
import type { JsonObject } from "../identity/mod.ts";
import { LONGEST_TIMER_MS, startDeadline, within } from "../deadline.ts";
import { spawnerOf } from "../transport/stdio/process.ts";
import { StdioError } from "../transport/stdio/stdio_error.ts";
import { OVERSIZED_RESPONSE_CODE, StdioTransport } from "../transport/stdio/stdio_transport.ts";
import { ChangeStream, type ChangeStreamKind } from "./change_stream.ts";
import type { ConnectSession } from "./connect_session.ts";
import type { Era } from "./era.ts";
import { sessionFromClient } from "./from_client.ts";
import { registerOffer, type ServerRequestRoutes, withLogLevel } from "./client_capabilities.ts";
import {
  completeByDefault,
  sessionClient,
  setupError,
  setupFailed,
  tapSends,
} from "./handshake.ts";
import { acceptedProtocolVersions, MODERN_PROTOCOL_VERSION } from "./protocol.ts";
import type { SessionStats } from "./server_session.ts";
import type { StdioDiagnostics, StdioSessionOptions } from "./stdio_types.ts";
import {
  type McpSession,
  type ServerRequestHandler,
  SessionRequestError,
  type SessionRequestOptions,
} from "./session.ts";

/**
 * A stdio server's session: implements the session contract ({@link McpSession}); connects on
 * first use (spawn, then the 2026-07-28 discovery or the 2025 `initialize` within one deadline)
 * and rejects only with a `SessionRequestError`: a broken or exited server with the transport's
 * `stdio_*` code, a response over the message cap with `transport_response_too_large`.
 *
 * @category Agent developers: connect()
 */
export class StdioSession implements ConnectSession {
  /** Always `"mcp_session"`. */
  readonly kind = "mcp_session" as const;
  /** The server of now, once started (set before the handshake: its diagnostics). */
  #transport: StdioTransport | undefined;
  #client: Connected | undefined;
  #connecting: Promise<Connected> | undefined;
  readonly #accepted: readonly string[];
  readonly #options: StdioSessionOptions;
  #closed = false;
  readonly #changes: ChangeStream;
  /**
   * The server-request handlers of the calls in flight that have one. stdio carries no reply
   * stream per call, so a server request is tied to a call only when that call is the only one
   * in flight that answers server requests (as on HTTP's standalone stream).
   */
  readonly #handlers = new Set<{ readonly handler: ServerRequestHandler }>();
  readonly #routes: ServerRequestRoutes = {
    handlerFor: () => undefined,
    soleHandler: () =>
      this.#handlers.size === 1 ? this.#handlers.values().next().value?.handler : undefined,
  };

  /**
   * Creates a session that starts the server on first use.
   *
   * @param options command, bounds, deadline and observer
   */
  constructor(options: StdioSessionOptions) {
    this.#options = options;
    this.#accepted = acceptedProtocolVersions(options.legacyProtocolVersions);
    this.#changes = new ChangeStream({
      // Only a `subscriptions/listen` stream is opened here: the 2025 GET stream is HTTP's.
      url: new URL("stdio:session"),
      fetch: () => Promise.reject(new TypeError("a stdio session has no HTTP")),
      timeoutMs: options.timeoutMs,
      observer: options.observer,
      current: (sdk) => !this.#closed && this.#client?.sdk === sdk,
      modern: () => true,
      protocolVersion: () => this.#client?.protocolVersion,
      changes: options.changeDetection === true,
    });
  }

  /** The era found by the handshake, once connected. */
  get era(): Era | undefined {
    return this.#client?.era;
  }

  /** The negotiated protocol version, once connected. */
  get protocolVersion(): string | undefined {
    return this.#client?.protocolVersion;
  }

  /** Handshake counters (a stdio session never recovers an expired session). */
  get stats(): SessionStats {
    return { handshakes: this.#client === undefined ? 0 : 1, expiredRecoveries: 0 };
  }

  /** Whether the session is closed for good (closed, or its server ended). */
  get closed(): boolean {
    return this.#closed || this.#client?.session.closed === true;
  }

  /**
   * The change stream open now: on 2026-07-28 with `changeDetection`, a `subscriptions/listen`
   * request; on 2025 revisions notifications arrive on stdout itself, without one.
   */
  get changeStream(): ChangeStreamKind | undefined {
    return this.#changes.kind;
  }

  /** The server's process id, exit status and stderr tail, once started. */
  get diagnostics(): StdioDiagnostics | undefined {
    const transport = this.#transport;
    if (transport === undefined) return undefined;
    return {
      ...(transport.pid !== undefined ? { pid: transport.pid } : {}),
      ...(transport.exitStatus !== undefined ? { exit: transport.exitStatus } : {}),
      stderr: transport.stderrTail(),
      stderrBytes: transport.stderrBytes,
    };
  }

  /**
   * Calls `listener` each time the `subscriptions/listen` stream opens again after it ended.
   * Returns the unsubscribe function.
   *
   * @param listener called after each re-opening
   */
  onStreamReopened(listener: () => void): () => void {
    return this.#changes.onReopened(listener);
  }

  /**
   * Starts the server and connects now if not yet connected.
   *
   * @param signal aborts the handshake
   */
  async ready(signal?: AbortSignal): Promise<void> {
    await this.#ensure(signal);
  }

  /**
   * Sends one request, starting the server first if needed.
   *
   * @param method the JSON-RPC method
   * @param params its params
   * @param options deadline and signal
   */
  request(method: string, params: JsonObject, options: SessionRequestOptions): Promise<unknown> {
    const handler = options.onServerRequest;
    const entry = handler === undefined ? undefined : { handler };
    if (entry !== undefined) this.#handlers.add(entry);
    const sent = this.#ensure(options.signal).then((client) =>
      client.session.request(method, withLogLevel(params, this.#options.offer, client.era), options)
    );
    if (entry === undefined) return sent;
    return sent.finally(() => this.#handlers.delete(entry));
  }

  /** Ends the server (stdin closed, then SIGTERM, then SIGKILL to its group). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.observer.close();
    await this.#changes.close();
    const client = this.#client ?? await this.#connecting?.catch(() => undefined);
    await client?.sdk.close().catch(() => {});
    await this.#transport?.close();
    await this.#changes.settled();
  }

  #ensure(signal: AbortSignal | undefined): Promise<Connected> {
    if (this.#closed) return Promise.reject(setupFailed("mcp_connection_closed"));
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    if (this.#transport !== undefined && this.#connecting === undefined) {
      // A failed set-up: the server is not started twice by one session.
      return Promise.reject(setupFailed("mcp_connection_closed"));
    }
    this.#connecting ??= this.#connect(signal).then((client) => {
      this.#client = client;
      return client;
    }).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /**
   * The session over a connected client: failures given the transport's codes, then wrapped
   * (telemetry) as the host asked, so a trace records the code the caller gets.
   */
  #wrapped(sdk: Client, transport: StdioTransport): McpSession {
    const base = sessionFromClient(sdk);
    const session: McpSession = {
      kind: "mcp_session",
      get closed() {
        return base.closed;
      },
      request: (method, params, options) =>
        base.request(method, params, options).catch((error: unknown) => {
          throw classified(error, transport);
        }),
    };
    const wrap = this.#options.wrapSession;
    return wrap === undefined ? session : wrap(session, sdk);
  }

  async #connect(signal: AbortSignal | undefined): Promise<Connected> {
    if (signal?.aborted) throw setupFailed("mcp_aborted");
    const spawner = spawnerOf();
    if (spawner === undefined) {
      throw setupFailed(
        "stdio_unsupported_runtime",
        new StdioError("stdio_unsupported_runtime", "this runtime cannot start processes"),
      );
    }
    const { spec, inheritEnv, bounds, observer, timeoutMs, offer } = this.#options;
    const env: Record<string, string> = {};
    for (const name of inheritEnv) {
      const value = spawner.hostEnv(name);
      if (value !== undefined) env[name] = value;
    }
    const transport = new StdioTransport({
      ...bounds,
      spawner,
      spec: { ...spec, env: { ...env, ...spec.env } },
    });
    this.#transport = transport;
    const sdk = sessionClient(this.#accepted, offer);
    const observeOffer = registerOffer(sdk, this.#routes, offer);
    let answered: unknown;
    transport.onmessage = (message: unknown) => {
      completeByDefault(message);
      observeOffer?.(message);
      observer.onMessage(message);
      const result = (message as { result?: { serverInfo?: unknown; protocolVersion?: unknown } })
        .result;
      if (result?.serverInfo !== undefined) answered = result.protocolVersion;
    };
    tapSends(transport, observer);
    const deadline = startDeadline(signal, timeoutMs);
    try {
      await within(
        (stop) => sdk.connect(transport, { timeout: LONGEST_TIMER_MS, signal: stop }),
        deadline,
      );
    } catch (error) {
      await sdk.close().catch(() => {});
      await transport.close();
      if (transport.failure !== undefined) {
        throw setupFailed(transport.failure.code, transport.failure);
      }
      if (deadline.signal.aborted) {
        throw setupFailed(deadline.expired ? "mcp_timeout" : "mcp_aborted");
      }
      throw setupError(error, answered, this.#accepted);
    }
    const version = sdk.getNegotiatedProtocolVersion();
    if (this.#closed || typeof version !== "string" || !this.#accepted.includes(version)) {
      await sdk.close().catch(() => {});
      await transport.close();
      throw setupFailed(
        this.#closed ? "mcp_connection_closed" : "mcp_protocol_version_unsupported",
      );
    }
    observer.acceptProtocolVersion(version);
    const connected: Connected = {
      sdk,
      transport,
      era: version === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : "legacy",
      protocolVersion: version,
      session: this.#wrapped(sdk, transport),
    };
    if (this.#options.changeDetection === true && connected.era === MODERN_PROTOCOL_VERSION) {
      // Open before anything is listed, so a change during discovery is heard.
      this.#client = connected;
      await this.#changes.open(sdk);
    }
    return connected;
  }
}

/**
 * A failed request's error with the stdio transport's code where it knows better: the nonce'd
 * error response that stands for a response over the message cap, or the way the server ended.
 */
function classified(error: unknown, transport: StdioTransport): unknown {
  if (!(error instanceof SessionRequestError)) return error;
  const cause = error.cause;
  if (
    cause instanceof ProtocolError && cause.code === OVERSIZED_RESPONSE_CODE &&
    (cause.data as { sluiceStdio?: unknown } | undefined)?.sluiceStdio === transport.nonce
  ) {
    return new SessionRequestError("transport_response_too_large", true, cause);
  }
  const failure = transport.failure;
  if (
    failure !== undefined &&
    (error.code === "mcp_connection_closed" || error.code === "mcp_transport_error")
  ) {
    return new SessionRequestError(failure.code, error.sent, failure);
  }
  return error;
}

/** The client of a started server, what its handshake found, and the session over it. */
interface Connected {
  readonly sdk: Client;
  readonly transport: StdioTransport;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly session: McpSession;
}
