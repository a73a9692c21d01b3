/**
 * One handshake of a server session: the official v2 client over the session's fetch,
 * 2026-07-28 first with the 2025 `initialize` as fallback restricted to the accepted versions,
 * under one deadline of sluice's own, its failure given the code that says why (nothing of the
 * caller's request was sent).
 *
 * @module
 */
import {
  Client,
  type JSONRPCMessage,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { isRecord } from "../identity/mod.ts";
import { LONGEST_TIMER_MS, startDeadline, within } from "../deadline.ts";
import { authErrorCode } from "../auth/errors.ts";
import { transportErrorCode } from "../transport/errors.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import type { EraCache, EraVerdict } from "./era.ts";
import type { SessionObserver } from "./observer.ts";
import { type SessionErrorCode, SessionRequestError } from "./session.ts";
import { ReplyStreams } from "./stream_failure.ts";
import { type ClientOffer, declaredCapabilities, registerOffer } from "./client_capabilities.ts";

/**
 * Most times one request's reply stream is resumed (2025 eras, `Last-Event-ID`).
 *
 * @category Agent developers: connect()
 */
export const MAX_STREAM_RESUMPTIONS = 3;

/** Longest wait before resuming, whatever `retry` the server asked for. */
const MAX_RESUME_DELAY_MS = 5_000;

/** How sluice names itself to servers. */
export const CLIENT_INFO = { name: "sluice-connect", version: "0.1.0" };

/** What one handshake is made with. */
export interface HandshakeOptions {
  readonly url: URL;
  /** The session's fetch (GET requests already limited to resumptions). */
  readonly fetch: FetchFunction;
  /** The deadline over the whole handshake, in milliseconds. */
  readonly timeoutMs: number;
  /** The versions the session accepts. */
  readonly accepted: readonly string[];
  /** The era found before (this session's first handshake, or the cache's), if any. */
  readonly prior: EraVerdict | undefined;
  /** The cache the prior verdict came from: a failed handshake forgets it. */
  readonly eraCache: EraCache | undefined;
  /** Whether a reply stream may be resumed now (a 2025 era). */
  readonly resumes: () => boolean;
  readonly observer: SessionObserver;
  /** The client capabilities declared and the server messages passed on. */
  readonly offer?: ClientOffer;
}

/** Whether an SDK rejection is the 404 a server sends for an unknown (expired) session. */
export function isSessionExpired(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && isRecord(current); depth++) {
    if (current instanceof SdkHttpError && current.status === 404) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * GET requests: the SDK's own standalone server-to-client SSE stream is declined, answered
 * locally with 405, which the SDK treats as "no stream offered" (with `changeDetection` the
 * session opens its own, which reads notifications only: `get_stream.ts`). A GET
 * that resumes a request's reply stream (`Last-Event-ID`, after the server closed it past a
 * priming event: SEP-1699 polling) goes through on 2025 eras, where the server replays the
 * rest of the same request's reply. On 2026-07-28 resumption does not exist: the local 405
 * ends the call with its code (sluice never re-sends a request by itself).
 */
export function onlyResumptions(fetch: FetchFunction, resumes: () => boolean): FetchFunction {
  return (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (method.toUpperCase() !== "GET") return fetch(input, init);
    const headers = new Headers(init?.headers);
    if (headers.has("last-event-id") && resumes()) return fetch(input, init);
    return Promise.resolve(new Response(null, { status: 405, statusText: "Not Allowed" }));
  };
}

/**
 * The Streamable HTTP transport of one handshake, and its reply streams (watched once the
 * transport's `onmessage` is set), which fail a request as soon as its SSE reply does, instead
 * of at the SDK's timer.
 */
function newTransport(
  options: HandshakeOptions,
): { transport: StreamableHTTPClientTransport; replies: ReplyStreams } {
  const replies = new ReplyStreams();
  const transport = new StreamableHTTPClientTransport(options.url, {
    fetch: replies.fetch(options.fetch),
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
      if (!options.resumes()) {
        reconnect();
        return undefined;
      }
      const timer = setTimeout(reconnect, Math.min(delay, MAX_RESUME_DELAY_MS));
      return () => clearTimeout(timer);
    },
  });
  return { transport, replies };
}

/** The part of a client transport {@link tapSends} wraps. */
interface Sending {
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
}

/**
 * Hands every outbound message to the observer's `onSend`, when it has one.
 *
 * @param transport the session's client transport (Streamable HTTP or stdio)
 * @param observer the session's observer
 */
export function tapSends(transport: Sending, observer: SessionObserver): void {
  const { onSend, onSendSettled, settles } = observer;
  if (onSend === undefined) return;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sent = onSend(message) as typeof message;
    if (onSendSettled === undefined || settles?.(sent) === false) return send(sent, options);
    return send(sent, options).then(() => onSendSettled?.(sent), (error: unknown) => {
      onSendSettled?.(sent, error);
      throw error;
    });
  };
}

/**
 * The official v2 client of one session: 2026-07-28 first, the accepted 2025 revisions as
 * fallback, the Worker-safe validator, and the capabilities `offer` declares.
 *
 * @param accepted the versions the session accepts
 * @param offer what the session offers
 */
export function sessionClient(accepted: readonly string[], offer: ClientOffer | undefined): Client {
  return new Client(CLIENT_INFO, {
    capabilities: declaredCapabilities(offer),
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
    // The legacy handshake offers the first 2025 entry and rejects any other answer.
    supportedProtocolVersions: [...accepted],
  });
}

/**
 * Connects a new client, within the deadline, and returns it with the version it negotiated
 * (one of the accepted). Rejects with the `SessionRequestError` of a failed set-up.
 *
 * @param options endpoint, fetch, deadline, versions and the era known before
 * @param signal aborts the handshake
 */
export async function handshake(
  options: HandshakeOptions,
  signal: AbortSignal | undefined,
): Promise<{ readonly client: Client; readonly version: string }> {
  if (signal?.aborted) throw setupFailed("mcp_aborted");
  const { url, prior, eraCache, accepted } = options;
  const client = sessionClient(accepted, options.offer);
  const { transport, replies } = newTransport(options);
  const observeOffer = registerOffer(client, replies, options.offer);
  // Observe the initialize answer: the SDK reports a refused version only in its message.
  let answered: unknown;
  transport.onmessage = (message: unknown) => {
    completeByDefault(message);
    observeOffer?.(message);
    options.observer.onMessage(message);
    if (isRecord(message) && isRecord(message.result) && "serverInfo" in message.result) {
      answered = message.result.protocolVersion;
    }
  };
  replies.watch(transport);
  tapSends(transport, options.observer);
  // One deadline over the whole handshake (probe, initialize, initialized), sluice's own: the
  // SDK gets its signal and a timer that never fires first. The SDK's probe does not take a
  // signal, so the wait ends at the deadline and the client is closed.
  const deadline = startDeadline(signal, options.timeoutMs);
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
    throw setupError(error, answered, accepted);
  }
  const version = client.getNegotiatedProtocolVersion();
  if (typeof version !== "string" || !accepted.includes(version)) {
    await client.close().catch(() => {});
    throw setupFailed("mcp_protocol_version_unsupported");
  }
  return { client, version };
}

/**
 * A result without `resultType` is complete (the spec's rule for 2026-07-28 results; the
 * v2 SDK refuses such a result instead). Runs before the SDK reads the message, which it
 * passes through this hook by reference; 2025 results drop the field again in the SDK.
 */
export function completeByDefault(message: unknown): void {
  if (isRecord(message) && "id" in message && isRecord(message.result)) {
    if (!("resultType" in message.result)) message.result.resultType = "complete";
  }
}

/** A set-up failure: nothing of the caller's request was sent. */
export function setupFailed(code: SessionErrorCode, cause?: unknown): SessionRequestError {
  return new SessionRequestError(code, false, cause);
}

/** The code of a handshake the SDK rejected. */
export function setupError(
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
