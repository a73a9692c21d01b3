import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { SluiceError } from "../errors.ts";
import { isRecord } from "../identity/mod.ts";
import { CatalogMonitor } from "../catalog/monitor.ts";
import type { SdkClientLike } from "../calls/session.ts";
import { type TransportErrorCode, transportErrorCode } from "../transport/errors.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import {
  type Era,
  type EraCache,
  type EraVerdict,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
} from "./era.ts";
import { ReplyStreams, UnansweredReplyError } from "./stream_failure.ts";

/** Why a server session could not be set up. */
export type SessionSetupErrorCode =
  | TransportErrorCode
  /** The handshake passed its deadline or was aborted. */
  | "mcp_timeout"
  /** The server answered a protocol version outside connect()'s allowlist. */
  | "mcp_protocol_version_unsupported"
  /** The handshake failed otherwise (unusable reply, HTTP error, broken JSON-RPC). */
  | "mcp_handshake_failed"
  /** The connection was closed. */
  | "mcp_connection_closed";

/** A session that could not be set up; the message is sluice's own text. */
export class SessionSetupError extends SluiceError<SessionSetupErrorCode> {
  /**
   * Creates a setup failure.
   *
   * @param code stable code
   */
  constructor(code: SessionSetupErrorCode) {
    super(code, `the MCP session could not be set up (${code})`);
    this.name = "SessionSetupError";
  }
}

/** How one server session is built. */
export interface ServerSessionOptions {
  readonly url: URL;
  /** The hardened fetch (secureFetch) used for every HTTP request. */
  readonly fetch: FetchFunction;
  /** Deadline of the handshake, in milliseconds. */
  readonly timeoutMs: number;
  readonly eraCache?: EraCache;
}

/** Counters a session keeps for the report (and tests). */
export interface SessionStats {
  /** Handshakes completed (a 404 recovery adds one). */
  readonly handshakes: number;
  /** Sessions replaced after the server answered 404 for an expired session. */
  readonly expiredRecoveries: number;
}

const CLIENT_INFO = { name: "sluice-connect", version: "0.1.0" };

const ACCEPTED = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

/** Extra time the SDK's own timers get, so sluice's deadline always fires first. */
const SDK_TIMEOUT_MARGIN_MS = 1_000;

const HANDSHAKE_STOPPED: unique symbol = Symbol("handshake stopped");

/** JSON-RPC "parse error": how an undecodable reply reaches the read path's classifier. */
const PARSE_ERROR = -32700;

/** Whether an SDK rejection means the reply could not be decoded (bad JSON or shape). */
function isUndecodable(error: unknown): boolean {
  return error instanceof SyntaxError ||
    (error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError"));
}

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
 * The declined standalone GET stream. sluice never opens the server-to-client SSE stream: it
 * needs none for tool calls, and under one deadline per request such a stream could only be
 * cut and re-opened. Answered locally with 405, which the SDK treats as "no stream offered".
 */
function withoutStandaloneStream(fetch: FetchFunction): FetchFunction {
  return (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (method.toUpperCase() === "GET") {
      return Promise.resolve(new Response(null, { status: 405, statusText: "Not Allowed" }));
    }
    return fetch(input, init);
  };
}

/**
 * One server's MCP session for connect(): the official v2 client over the hardened fetch,
 * 2026-07-28 first with the 2025 `initialize` as fallback restricted to an explicit version
 * allowlist. Connects lazily on first use, re-initializes ONCE when a legacy server answers
 * 404 for an expired session, and presents itself as an SDK client to the read path.
 */
export class ServerSession implements SdkClientLike {
  /** Watches the session; discovery and registrations read it. */
  readonly monitor: CatalogMonitor = new CatalogMonitor();
  readonly #options: ServerSessionOptions;
  readonly #fetch: FetchFunction;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #closed = false;
  #era: Era | undefined;
  /** The verdict of this connection's first handshake: a re-initialize skips the probe. */
  #verdict: EraVerdict | undefined;
  #protocolVersion: string | undefined;
  #handshakes = 0;
  #transportFailure: TransportErrorCode | undefined;
  #expiredRecoveries = 0;

  /**
   * Creates a session that connects on first use.
   *
   * @param options endpoint, hardened fetch, deadline and optional era cache
   */
  constructor(options: ServerSessionOptions) {
    this.#options = options;
    this.#fetch = withoutStandaloneStream(options.fetch);
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

  /** `undefined` once closed, like an SDK client (the read path reads it that way). */
  get transport(): unknown {
    return this.#closed ? undefined : this;
  }

  /**
   * Connects if not yet connected. Rejects with {@link SessionSetupError}.
   *
   * @param signal aborts the handshake
   */
  async ready(signal?: AbortSignal): Promise<void> {
    await this.#ensure(signal);
  }

  /**
   * The SDK client's `request`, with lazy connect and one re-initialize on an expired session.
   *
   * @param args the SDK's request arguments
   */
  async request(...args: never[]): Promise<unknown> {
    const options = (args as unknown[])[2] as { signal?: AbortSignal } | undefined;
    const client = await this.#ensure(options?.signal);
    try {
      return await (client.request as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      this.#transportFailure = transportErrorCode(error) ?? this.#transportFailure;
      if (isUndecodable(error) || error instanceof UnansweredReplyError) {
        // A reply that is not JSON-RPC is the server breaking the protocol, not the network.
        throw Object.assign(new Error("undecodable reply"), { code: PARSE_ERROR });
      }
      if (this.#era !== "legacy" || !isSessionExpired(error) || this.#closed) throw error;
      // The server no longer knows the session, so it did not run this request: start one
      // fresh session (shared by concurrent callers) and send the request once more.
      if (client === this.#client) {
        this.#expiredRecoveries++;
        this.#client = undefined;
        client.close().catch(() => {});
      }
      const fresh = await this.#ensure(options?.signal);
      return await (fresh.request as (...a: unknown[]) => Promise<unknown>)(...args);
    }
  }

  /**
   * Returns and clears the transport code of the latest failed request, if any: the read
   * path reports every transport failure as `mcp_transport_error`, and setup wants the cause.
   */
  takeTransportFailure(): TransportErrorCode | undefined {
    const code = this.#transportFailure;
    this.#transportFailure = undefined;
    return code;
  }

  /** Closes the session (best-effort DELETE of a legacy session). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.monitor.close();
    const client = this.#client ?? await this.#connecting?.catch(() => undefined);
    this.#client = undefined;
    if (client === undefined) return;
    const transport = client.transport as StreamableHTTPClientTransport | undefined;
    if (this.#era === "legacy" && transport?.sessionId !== undefined) {
      await transport.terminateSession().catch(() => {});
    }
    await client.close().catch(() => {});
  }

  #ensure(signal: AbortSignal | undefined): Promise<Client> {
    if (this.#closed) return Promise.reject(new SessionSetupError("mcp_connection_closed"));
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

  async #connect(signal: AbortSignal | undefined): Promise<Client> {
    // An abort listener added below would never fire for a signal that has already aborted.
    if (signal?.aborted) throw new SessionSetupError("mcp_timeout");
    const { url, timeoutMs, eraCache } = this.#options;
    const client = new Client(CLIENT_INFO, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: "auto" },
      // The legacy handshake offers the first 2025 entry and rejects any other answer.
      supportedProtocolVersions: [...ACCEPTED],
    });
    // Fails a request as soon as its SSE reply does, instead of at the SDK's timer.
    const replies = new ReplyStreams();
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: replies.fetch(this.#fetch),
      reconnectionOptions: {
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 0,
      },
    });
    // Observe the initialize answer: the SDK reports a refused version only in its message.
    let answered: unknown;
    transport.onmessage = (message: unknown) => {
      this.monitor.onMessage(message);
      if (isRecord(message) && isRecord(message.result) && "serverInfo" in message.result) {
        answered = message.result.protocolVersion;
      }
    };
    replies.watch(transport);
    const prior = this.#verdict ?? eraCache?.get(url);
    // One deadline over the whole handshake (probe, initialize, initialized), started before
    // any request so it fires before the per-request deadlines; the SDK's own timer gets a
    // margin. The SDK's probe does not take a signal, so the race closes the client instead.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), timeoutMs);
    const onAbort = () => stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const stopped = new Promise<never>((_, reject) => {
      stop.signal.addEventListener("abort", () => reject(HANDSHAKE_STOPPED), { once: true });
    });
    const connecting = client.connect(transport, {
      timeout: timeoutMs + SDK_TIMEOUT_MARGIN_MS,
      signal: stop.signal,
      ...(prior === undefined ? {} : {
        prior: prior.era === "legacy"
          ? { kind: "legacy" as const }
          : { kind: "modern" as const, discover: prior.discover as never },
      }),
    });
    connecting.catch(() => {});
    try {
      await Promise.race([connecting, stopped]);
    } catch (error) {
      await client.close().catch(() => {});
      if (prior !== undefined) eraCache?.delete(url);
      throw this.#setupError(
        error === HANDSHAKE_STOPPED ? undefined : error,
        answered,
        stop.signal,
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    const version = client.getNegotiatedProtocolVersion();
    if (typeof version !== "string" || !ACCEPTED.includes(version)) {
      await client.close().catch(() => {});
      throw new SessionSetupError("mcp_protocol_version_unsupported");
    }
    if (this.#closed) {
      await client.close().catch(() => {});
      throw new SessionSetupError("mcp_connection_closed");
    }
    this.#era = version === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : "legacy";
    this.#protocolVersion = version;
    this.monitor.acceptProtocolVersion(version);
    this.#handshakes++;
    this.#verdict = this.#era === "legacy"
      ? { era: "legacy" }
      : { era: MODERN_PROTOCOL_VERSION, discover: client.getDiscoverResult() };
    eraCache?.set(url, this.#verdict);
    return client;
  }

  #setupError(
    error: unknown,
    answered: unknown,
    signal: AbortSignal | undefined,
  ): SessionSetupError {
    const transportCode = transportErrorCode(error);
    if (transportCode !== undefined) return new SessionSetupError(transportCode);
    if (typeof answered === "string" && !ACCEPTED.includes(answered)) {
      return new SessionSetupError("mcp_protocol_version_unsupported");
    }
    const code = isRecord(error) ? error.code : undefined;
    if (code === "REQUEST_TIMEOUT" || signal?.aborted) return new SessionSetupError("mcp_timeout");
    if (code === "UNSUPPORTED_PROTOCOL_VERSION" || code === -32022) {
      return new SessionSetupError("mcp_protocol_version_unsupported");
    }
    return new SessionSetupError("mcp_handshake_failed");
  }
}
