import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { isRecord, type JsonObject } from "../identity/mod.ts";
import { CatalogMonitor } from "../catalog/monitor.ts";
import { sessionFromClient } from "../session/from_client.ts";
import { ACCEPTED_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "../session/protocol.ts";
import {
  type McpSession,
  type SessionErrorCode,
  SessionRequestError,
  type SessionRequestOptions,
} from "../session/session.ts";
import { type Deadline, LONGEST_TIMER_MS, startDeadline, within } from "../deadline.ts";
import { authErrorCode } from "../auth/errors.ts";
import { transportErrorCode } from "../transport/errors.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import type { Era, EraCache, EraVerdict } from "./era.ts";
import { ReplyStreams } from "./stream_failure.ts";
import { type GetStream, openGetStream } from "./get_stream.ts";

/**
 * How one server session is built.
 *
 * @category Agent developers: connect()
 */
export interface ServerSessionOptions {
  readonly url: URL;
  /** The hardened fetch (secureFetch) used for every HTTP request. */
  readonly fetch: FetchFunction;
  /** Deadline of the handshake, in milliseconds. */
  readonly timeoutMs: number;
  readonly eraCache?: EraCache;
  /** The 2025 revisions accepted from `initialize` (default `LEGACY_PROTOCOL_VERSIONS`). */
  readonly legacyProtocolVersions?: readonly string[];
  /**
   * Open a change stream: on 2026-07-28 a `subscriptions/listen` stream for tool list
   * changes; on 2025 revisions the standalone GET stream where the server offers one. Either
   * is re-opened with bounded backoff when it ends.
   */
  readonly changeDetection?: boolean;
}

/**
 * The change stream a session has open:
 * `"subscription"` (2026-07-28 `subscriptions/listen`) or `"get_stream"` (2025 standalone GET).
 *
 * @category Agent developers: connect()
 */
export type ChangeStreamKind = "subscription" | "get_stream";

/** The first wait before re-opening a lost change stream; it doubles per failure. */
const FIRST_STREAM_BACKOFF_MS = 1_000;
/** The longest wait before re-opening a lost change stream. */
const MAX_STREAM_BACKOFF_MS = 30_000;
/** Failed openings in a row after which the session stops asking. */
const MAX_STREAM_FAILURES = 8;

/** The part of the v2 client's listen handle the session uses. */
interface ListenHandle {
  readonly honoredFilter?: { readonly toolsListChanged?: boolean };
  readonly closed: Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Counters a session keeps for the report (and tests).
 *
 * @category Agent developers: connect()
 */
export interface SessionStats {
  /** Handshakes completed (a 404 recovery adds one). */
  readonly handshakes: number;
  /** Sessions replaced after the server answered 404 for an expired session. */
  readonly expiredRecoveries: number;
}

const CLIENT_INFO = { name: "sluice-connect", version: "0.1.0" };

/** Whether an SDK rejection is the 404 a server sends for an unknown (expired) session. */
function isSessionExpired(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && isRecord(current); depth++) {
    if (current instanceof SdkHttpError && current.status === 404) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Most times one request's reply stream is resumed (2025 eras, `Last-Event-ID`).
 *
 * @category Agent developers: connect()
 */
export const MAX_STREAM_RESUMPTIONS = 3;

/** Longest wait before resuming, whatever `retry` the server asked for. */
const MAX_RESUME_DELAY_MS = 5_000;

/**
 * GET requests: the SDK's own standalone server-to-client SSE stream is declined, answered
 * locally with 405, which the SDK treats as "no stream offered" (with `changeDetection` the
 * session opens its own, which reads notifications only: `get_stream.ts`). A GET
 * that resumes a request's reply stream (`Last-Event-ID`, after the server closed it past a
 * priming event: SEP-1699 polling) goes through on 2025 eras, where the server replays the
 * rest of the same request's reply. On 2026-07-28 resumption does not exist: the local 405
 * ends the call with its code (sluice never re-sends a request by itself).
 */
function onlyResumptions(fetch: FetchFunction, resumes: () => boolean): FetchFunction {
  return (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (method.toUpperCase() !== "GET") return fetch(input, init);
    const headers = new Headers(init?.headers);
    if (headers.has("last-event-id") && resumes()) return fetch(input, init);
    return Promise.resolve(new Response(null, { status: 405, statusText: "Not Allowed" }));
  };
}

/**
 * One server's MCP session for connect(): the official v2 client over the hardened fetch,
 * 2026-07-28 first with the 2025 `initialize` as fallback restricted to an explicit version
 * allowlist. Implements the one session contract ({@link McpSession}): it connects on first
 * use, re-initializes ONCE when a legacy server answers 404 for an expired session, and
 * rejects only with a `SessionRequestError` whose code says why (a failed set-up with
 * `sent: false`, a transport failure with the hardened fetch's own code).
 *
 * @category Agent developers: connect()
 */
export class ServerSession implements McpSession {
  /** Always `"mcp_session"`. */
  readonly kind = "mcp_session" as const;
  /** Watches the session; discovery and registrations read it. */
  readonly monitor: CatalogMonitor;
  readonly #options: ServerSessionOptions;
  /** The versions this session accepts: 2026-07-28 and the allowed 2025 revisions. */
  readonly #accepted: readonly string[];
  readonly #fetch: FetchFunction;
  #client: { sdk: Client; session: McpSession } | undefined;
  #connecting: Promise<{ sdk: Client; session: McpSession }> | undefined;
  #closed = false;
  #era: Era | undefined;
  /** The verdict of this connection's first handshake: a re-initialize skips the probe. */
  #verdict: EraVerdict | undefined;
  #protocolVersion: string | undefined;
  #handshakes = 0;
  #expiredRecoveries = 0;
  /** The open change stream, the client it belongs to, and its kind. */
  #stream: { sdk: Client; kind: ChangeStreamKind; handle: ListenHandle } | undefined;
  #streamTimer: ReturnType<typeof setTimeout> | undefined;
  #streamFailures = 0;
  /** Whether the server said it offers no change stream (no retries then). */
  #streamRefused = false;
  /** Aborts stream openings in flight and open GET streams when the session closes. */
  readonly #streamStop = new AbortController();
  /** The opening in flight, awaited by close(). */
  #streamOpening: Promise<void> | undefined;
  /** Change streams opened so far; every one after the first follows a gap. */
  #streamsOpened = 0;
  readonly #reopenListeners = new Set<() => void>();

  /**
   * Creates a session that connects on first use.
   *
   * @param options endpoint, hardened fetch, deadline and optional era cache
   */
  constructor(options: ServerSessionOptions) {
    this.#options = options;
    this.#accepted = options.legacyProtocolVersions === undefined
      ? ACCEPTED_PROTOCOL_VERSIONS
      : [MODERN_PROTOCOL_VERSION, ...options.legacyProtocolVersions];
    this.monitor = new CatalogMonitor({ protocolVersions: this.#accepted });
    this.#fetch = onlyResumptions(options.fetch, () => this.#era === "legacy");
  }

  /** The era found by the handshake, once connected. */
  get era(): Era | undefined {
    return this.#era;
  }

  /** The negotiated protocol version, once connected. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** Handshake counters. */
  get stats(): SessionStats {
    return { handshakes: this.#handshakes, expiredRecoveries: this.#expiredRecoveries };
  }

  /** Whether the session is closed for good. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sends one request, connecting first if needed; re-initializes once when a legacy server
   * no longer knows the session (it did not run the request, so sending it again is safe).
   *
   * @param method the JSON-RPC method
   * @param params its params
   * @param options deadline and signal
   */
  request(
    method: string,
    params: JsonObject,
    options: SessionRequestOptions,
  ): Promise<unknown> {
    const client = this.#client;
    // Connected on 2026-07-28 (no sessions to expire): the request as it is, without a wait.
    if (client !== undefined && this.#era === MODERN_PROTOCOL_VERSION && !this.#closed) {
      return client.session.request(method, params, options);
    }
    return this.#requestRecovering(method, params, options);
  }

  async #requestRecovering(
    method: string,
    params: JsonObject,
    options: SessionRequestOptions,
  ): Promise<unknown> {
    const client = await this.#ensure(options.signal);
    try {
      return await client.session.request(method, params, options);
    } catch (error) {
      const cause = error instanceof SessionRequestError ? error.cause : error;
      if (this.#era !== "legacy" || !isSessionExpired(cause) || this.#closed) throw error;
      // The server no longer knows the session, so it did not run this request: start one
      // fresh session (shared by concurrent callers) and send the request once more.
      if (client === this.#client) {
        this.#expiredRecoveries++;
        this.#client = undefined;
        this.#dropStream(client.sdk);
        client.sdk.close().catch(() => {});
      }
      const fresh = await this.#ensure(options.signal);
      return await fresh.session.request(method, params, options);
    }
  }

  /**
   * Connects now if not yet connected (a call does this by itself). Rejects with the
   * `SessionRequestError` of a failed set-up.
   *
   * @param signal aborts the handshake
   */
  async ready(signal?: AbortSignal): Promise<void> {
    await this.#ensure(signal);
  }

  /** Whether a `subscriptions/listen` stream for tool list changes is open now. */
  get listening(): boolean {
    return this.#stream?.kind === "subscription";
  }

  /** The change stream open now, if any. */
  get changeStream(): ChangeStreamKind | undefined {
    return this.#stream?.kind;
  }

  /**
   * Calls `listener` each time a change stream opens again after one ended (or after the
   * session was re-initialized): a change the server made in between was heard by no stream,
   * so the listener lists again. Returns the unsubscribe function.
   *
   * @param listener called after each re-opening
   */
  onStreamReopened(listener: () => void): () => void {
    this.#reopenListeners.add(listener);
    return () => this.#reopenListeners.delete(listener);
  }

  /**
   * Opens the era's change stream and hands it to the monitor: on 2026-07-28
   * `subscriptions/listen` for tool list changes, on 2025 the standalone GET stream. Each
   * opening runs under the session's deadline (the hardened fetch's deadline and byte cap
   * bound each stream too). When the stream ends while the session is open, it is re-opened
   * after a backoff (1 s doubling, at most {@link MAX_STREAM_BACKOFF_MS}; after
   * {@link MAX_STREAM_FAILURES} failed openings in a row the session stops asking). A server
   * that refuses (no tool list changes honored, a 405 on GET) is not asked again.
   */
  #openStream(sdk: Client): Promise<void> {
    const opening = this.#openStreamOnce(sdk).finally(() => {
      if (this.#streamOpening === opening) this.#streamOpening = undefined;
    });
    this.#streamOpening = opening;
    return opening;
  }

  async #openStreamOnce(sdk: Client): Promise<void> {
    if (this.#closed || this.#client?.sdk !== sdk) return;
    const kind: ChangeStreamKind = this.#era === MODERN_PROTOCOL_VERSION
      ? "subscription"
      : "get_stream";
    let handle: ListenHandle | "refused";
    try {
      handle = await openedWithin(
        kind === "subscription" ? this.#openListen(sdk) : this.#openGet(sdk),
        startDeadline(undefined, this.#options.timeoutMs),
      );
    } catch {
      this.#scheduleStream(sdk);
      return;
    }
    if (handle === "refused") {
      this.#streamRefused = true;
      return;
    }
    if (this.#closed || this.#client?.sdk !== sdk) {
      await handle.close().catch(() => {});
      return;
    }
    const stream = { sdk, kind, handle };
    this.#stream = stream;
    this.#streamFailures = 0;
    this.monitor.watchSubscription(handle);
    // A change made while no stream was open went unheard: tell whoever lists again.
    if (this.#streamsOpened++ > 0) {
      for (const listener of [...this.#reopenListeners]) {
        try {
          listener();
        } catch {
          // The host's listener; its failure must not stop the session.
        }
      }
    }
    handle.closed.finally(() => {
      if (this.#stream !== stream) return;
      this.#stream = undefined;
      this.#scheduleStream(sdk);
    }).catch(() => {});
  }

  /** `subscriptions/listen` for tool list changes; `"refused"` when the server honors none. */
  async #openListen(sdk: Client): Promise<ListenHandle | "refused"> {
    let handle: ListenHandle;
    try {
      handle = await (sdk as unknown as {
        listen(filter: { toolsListChanged: boolean }): Promise<ListenHandle>;
      }).listen({ toolsListChanged: true });
    } catch (error) {
      // A JSON-RPC error (a numeric code) is the server's answer: it has no listen to offer.
      if (isRecord(error) && typeof error.code === "number") return "refused";
      throw error;
    }
    if (handle.honoredFilter?.toolsListChanged === true) return handle;
    await handle.close().catch(() => {});
    return "refused";
  }

  /** The standalone GET stream of the legacy session; `"refused"` for a 405. */
  async #openGet(sdk: Client): Promise<ListenHandle | "refused"> {
    const transport = sdk.transport as StreamableHTTPClientTransport | undefined;
    const headers: Record<string, string> = {};
    if (transport?.sessionId !== undefined) headers["mcp-session-id"] = transport.sessionId;
    if (this.#protocolVersion !== undefined) {
      headers["mcp-protocol-version"] = this.#protocolVersion;
    }
    const stream: GetStream | "not_offered" = await openGetStream({
      url: this.#options.url,
      fetch: this.#options.fetch,
      headers,
      onNotification: this.monitor.onMessage,
      signal: this.#streamStop.signal,
    });
    return stream === "not_offered" ? "refused" : stream;
  }

  #scheduleStream(sdk: Client): void {
    if (this.#closed || this.#client?.sdk !== sdk || this.#streamRefused) return;
    if (this.#streamFailures >= MAX_STREAM_FAILURES) return; // it keeps failing: stop asking
    const delay = Math.min(
      FIRST_STREAM_BACKOFF_MS * 2 ** this.#streamFailures++,
      MAX_STREAM_BACKOFF_MS,
    );
    clearTimeout(this.#streamTimer);
    this.#streamTimer = setTimeout(() => {
      this.#streamTimer = undefined;
      void this.#openStream(sdk);
    }, delay);
  }

  /** Closes the change stream of `sdk` (a client being replaced), if it has one. */
  #dropStream(sdk: Client): void {
    const stream = this.#stream;
    if (stream?.sdk !== sdk) return;
    this.#stream = undefined;
    clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
    stream.handle.close().catch(() => {});
  }

  /** Closes the session (best-effort DELETE of a legacy session). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.monitor.close();
    clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
    this.#streamStop.abort();
    this.#reopenListeners.clear();
    const stream = this.#stream;
    this.#stream = undefined;
    await stream?.handle.close().catch(() => {});
    const client = this.#client ?? await this.#connecting?.catch(() => undefined);
    this.#client = undefined;
    if (client !== undefined) {
      const transport = client.sdk.transport as StreamableHTTPClientTransport | undefined;
      if (this.#era === "legacy" && transport?.sessionId !== undefined) {
        await transport.terminateSession().catch(() => {});
      }
      await client.sdk.close().catch(() => {});
    }
    // An opening in flight ends with the client (listen) or the abort (GET).
    await this.#streamOpening?.catch(() => {});
  }

  #ensure(signal: AbortSignal | undefined): Promise<{ sdk: Client; session: McpSession }> {
    if (this.#closed) return Promise.reject(setupFailed("mcp_connection_closed"));
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    if (this.#connecting === undefined) {
      const connecting = this.#connect(signal);
      this.#connecting = connecting;
      connecting.then((client) => {
        this.#client = client;
      }, () => {}).finally(() => {
        if (this.#connecting === connecting) this.#connecting = undefined;
      });
    }
    return this.#connecting;
  }

  async #connect(signal: AbortSignal | undefined): Promise<{ sdk: Client; session: McpSession }> {
    if (signal?.aborted) throw setupFailed("mcp_aborted");
    const { url, timeoutMs, eraCache } = this.#options;
    const client = new Client(CLIENT_INFO, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: "auto" },
      // The legacy handshake offers the first 2025 entry and rejects any other answer.
      supportedProtocolVersions: [...this.#accepted],
    });
    // Fails a request as soon as its SSE reply does, instead of at the SDK's timer.
    const replies = new ReplyStreams();
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: replies.fetch(this.#fetch),
      // Resuming a reply stream is the same request, not a retry: bounded attempts, each
      // within the request's one deadline (the SDK's request timer keeps running).
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: MAX_RESUME_DELAY_MS,
        reconnectionDelayGrowFactor: 2,
        maxRetries: MAX_STREAM_RESUMPTIONS,
      },
      reconnectionScheduler: (reconnect: () => void, delay: number) => {
        // Where resumption is refused anyway, ask at once so the call ends at once.
        if (this.#era !== "legacy") {
          reconnect();
          return undefined;
        }
        const timer = setTimeout(reconnect, Math.min(delay, MAX_RESUME_DELAY_MS));
        return () => clearTimeout(timer);
      },
    });
    // Observe the initialize answer: the SDK reports a refused version only in its message.
    let answered: unknown;
    transport.onmessage = (message: unknown) => {
      completeByDefault(message);
      this.monitor.onMessage(message);
      if (isRecord(message) && isRecord(message.result) && "serverInfo" in message.result) {
        answered = message.result.protocolVersion;
      }
    };
    replies.watch(transport);
    const prior = this.#verdict ?? eraCache?.get(url);
    // One deadline over the whole handshake (probe, initialize, initialized), sluice's own: the
    // SDK gets its signal and a timer that never fires first. The SDK's probe does not take a
    // signal, so the wait ends at the deadline and the client is closed.
    const deadline = startDeadline(signal, timeoutMs);
    try {
      await within((stop) =>
        client.connect(transport, {
          timeout: LONGEST_TIMER_MS,
          signal: stop,
          ...(prior === undefined ? {} : {
            prior: prior.era === "legacy"
              ? { kind: "legacy" as const }
              : { kind: "modern" as const, discover: prior.discover as never },
          }),
        }), deadline);
    } catch (error) {
      await client.close().catch(() => {});
      if (prior !== undefined) eraCache?.delete(url);
      if (deadline.signal.aborted) {
        throw setupFailed(deadline.expired ? "mcp_timeout" : "mcp_aborted");
      }
      throw setupError(error, answered, this.#accepted);
    }
    const version = client.getNegotiatedProtocolVersion();
    if (typeof version !== "string" || !this.#accepted.includes(version)) {
      await client.close().catch(() => {});
      throw setupFailed("mcp_protocol_version_unsupported");
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      throw setupFailed("mcp_connection_closed");
    }
    this.#era = version === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : "legacy";
    this.#protocolVersion = version;
    this.monitor.acceptProtocolVersion(version);
    this.#handshakes++;
    this.#verdict = this.#era === "legacy"
      ? { era: "legacy" }
      : { era: MODERN_PROTOCOL_VERSION, discover: client.getDiscoverResult() };
    eraCache?.set(url, this.#verdict);
    const connected = { sdk: client, session: sessionFromClient(client) };
    if (this.#options.changeDetection) {
      // Open before anything is listed, so a change during discovery is heard.
      this.#client = connected;
      await this.#openStream(client);
    }
    return connected;
  }
}

/**
 * `opening` within `deadline`: rejects when the deadline passes first; a value that arrives
 * late is closed.
 */
function openedWithin<T extends ListenHandle | "refused">(
  opening: Promise<T>,
  deadline: Deadline,
): Promise<T> {
  opening.then((value) => {
    if (deadline.expired && value !== "refused") value.close().catch(() => {});
  }, () => {});
  return within(() => opening, deadline);
}

/**
 * A result without `resultType` is complete (the spec's rule for 2026-07-28 results; the
 * v2 SDK refuses such a result instead). Runs before the SDK reads the message, which it
 * passes through this hook by reference; 2025 results drop the field again in the SDK.
 */
function completeByDefault(message: unknown): void {
  if (isRecord(message) && "id" in message && isRecord(message.result)) {
    if (!("resultType" in message.result)) message.result.resultType = "complete";
  }
}

/** A set-up failure: nothing of the caller's request was sent. */
function setupFailed(code: SessionErrorCode, cause?: unknown): SessionRequestError {
  return new SessionRequestError(code, false, cause);
}

/** The code of a handshake the SDK rejected. */
function setupError(
  error: unknown,
  answered: unknown,
  accepted: readonly string[],
): SessionRequestError {
  const transportCode = transportErrorCode(error);
  if (transportCode !== undefined) return setupFailed(transportCode, error);
  const authCode = authErrorCode(error);
  if (authCode !== undefined) return setupFailed(authCode, error);
  if (typeof answered === "string" && !accepted.includes(answered)) {
    return setupFailed("mcp_protocol_version_unsupported", error);
  }
  const code = isRecord(error) ? error.code : undefined;
  if (code === "REQUEST_TIMEOUT") return setupFailed("mcp_timeout", error);
  if (code === "UNSUPPORTED_PROTOCOL_VERSION" || code === -32022) {
    return setupFailed("mcp_protocol_version_unsupported", error);
  }
  return setupFailed("mcp_handshake_failed", error);
}
