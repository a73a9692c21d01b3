/**
 * One server's MCP session for connect(): the handshake (`handshake.ts`) on first use, one
 * re-initialize when a legacy server forgot the session, and the change stream
 * (`change_stream.ts`), with what it hears told to its observer (`observer.ts`).
 *
 * @module
 */
import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { JsonObject } from "../identity/mod.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import { ChangeStream, type ChangeStreamKind } from "./change_stream.ts";
import type { Era, EraCache, EraVerdict } from "./era.ts";
import { sessionFromClient } from "./from_client.ts";
import { handshake, isSessionExpired, onlyResumptions, setupFailed } from "./handshake.ts";
import type { SessionObserver } from "./observer.ts";
import { type ClientOffer, withLogLevel } from "./client_capabilities.ts";
import { acceptedProtocolVersions, MODERN_PROTOCOL_VERSION } from "./protocol.ts";
import { type McpSession, SessionRequestError, type SessionRequestOptions } from "./session.ts";

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
  /**
   * Hears every inbound message, the negotiated version, each change stream and the end (the
   * catalog's monitor, made with the same accepted versions: `acceptedProtocolVersions`).
   */
  readonly observer: SessionObserver;
  /**
   * The client capabilities declared (elicitation only when the host answers it) and the
   * server messages passed to the host (log messages).
   */
  readonly offer?: ClientOffer;
  /** Wraps the session of each client (telemetry traces every request through it). */
  readonly wrapSession?: (session: McpSession, client: Client) => McpSession;
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

/** The client of now and the session contract over it. */
interface Connected {
  readonly sdk: Client;
  readonly session: McpSession;
}

/** Hands a message read off the standalone stream to the SDK client, as its transport would. */
function deliver(sdk: Client, message: Record<string, unknown>): void {
  const transport = sdk.transport as { onmessage?: (message: unknown) => void } | undefined;
  try {
    transport?.onmessage?.(message);
  } catch {
    // The SDK reports its own failures to onerror; nothing here may stop the stream.
  }
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
  readonly #options: ServerSessionOptions;
  /** The versions this session accepts: 2026-07-28 and the allowed 2025 revisions. */
  readonly #accepted: readonly string[];
  readonly #fetch: FetchFunction;
  readonly #changes: ChangeStream;
  #client: Connected | undefined;
  #connecting: Promise<Connected> | undefined;
  #closed = false;
  #era: Era | undefined;
  /** The verdict of this connection's first handshake: a re-initialize skips the probe. */
  #verdict: EraVerdict | undefined;
  #protocolVersion: string | undefined;
  #handshakes = 0;
  #expiredRecoveries = 0;

  /**
   * Creates a session that connects on first use.
   *
   * @param options endpoint, hardened fetch, deadline, observer and optional era cache
   */
  constructor(options: ServerSessionOptions) {
    this.#options = options;
    this.#accepted = acceptedProtocolVersions(options.legacyProtocolVersions);
    this.#fetch = onlyResumptions(options.fetch, () => this.#era === "legacy");
    this.#changes = new ChangeStream({
      url: options.url,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      observer: options.observer,
      current: (sdk) => !this.#closed && this.#client?.sdk === sdk,
      modern: () => this.#era === MODERN_PROTOCOL_VERSION,
      protocolVersion: () => this.#protocolVersion,
      changes: options.changeDetection === true,
      // A 2025 server may send its elicitation on the standalone stream: the SDK client answers
      // it as if its transport had read it (its handler finds the call it belongs to).
      ...(options.offer?.elicitation !== undefined
        ? { onRequest: (sdk: Client, message: Record<string, unknown>) => deliver(sdk, message) }
        : {}),
    });
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
    params = withLogLevel(params, this.#options.offer, this.#era);
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
        this.#changes.drop(client.sdk);
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
    return this.#changes.kind === "subscription";
  }

  /** The change stream open now, if any. */
  get changeStream(): ChangeStreamKind | undefined {
    // A stream open only for server requests (elicitation on 2025) is no change stream.
    return this.#options.changeDetection ? this.#changes.kind : undefined;
  }

  /**
   * Calls `listener` each time a change stream opens again after one ended (or after the
   * session was re-initialized): a change the server made in between was heard by no stream,
   * so the listener lists again. Returns the unsubscribe function.
   *
   * @param listener called after each re-opening
   */
  onStreamReopened(listener: () => void): () => void {
    return this.#changes.onReopened(listener);
  }

  /** Closes the session (best-effort DELETE of a legacy session). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.observer.close();
    await this.#changes.close();
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
    await this.#changes.settled();
  }

  #ensure(signal: AbortSignal | undefined): Promise<Connected> {
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

  async #connect(signal: AbortSignal | undefined): Promise<Connected> {
    const { url, timeoutMs, eraCache, observer } = this.#options;
    const { client, version } = await handshake({
      url,
      fetch: this.#fetch,
      timeoutMs,
      accepted: this.#accepted,
      prior: this.#verdict ?? eraCache?.get(url),
      eraCache,
      resumes: () => this.#era === "legacy",
      observer,
      ...(this.#options.offer !== undefined ? { offer: this.#options.offer } : {}),
    }, signal);
    if (this.#closed) {
      await client.close().catch(() => {});
      throw setupFailed("mcp_connection_closed");
    }
    this.#era = version === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : "legacy";
    this.#protocolVersion = version;
    observer.acceptProtocolVersion(version);
    this.#handshakes++;
    this.#verdict = this.#era === "legacy"
      ? { era: "legacy" }
      : { era: MODERN_PROTOCOL_VERSION, discover: client.getDiscoverResult() };
    eraCache?.set(url, this.#verdict);
    const session = sessionFromClient(client);
    const wrap = this.#options.wrapSession;
    const connected = { sdk: client, session: wrap ? wrap(session, client) : session };
    const requestsStream = this.#options.offer?.elicitation !== undefined && this.#era === "legacy";
    if (this.#options.changeDetection || requestsStream) {
      // Open before anything is listed, so a change during discovery is heard.
      this.#client = connected;
      await this.#changes.open(client);
    }
    return connected;
  }
}
