/**
 * The one session contract: what sluice needs from an MCP session, whoever owns it. Host-owned
 * SDK clients get it from `sessionFromClient`; connect() builds its own.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";
import type { RemoteText } from "./remote_text.ts";

/**
 * Why a request to the server produced no result: a session code, or the hardened fetch's or
 * the OAuth client's own code (meanings: `docs/errors.md`).
 *
 * @category Discovery and calls
 */
export type SessionErrorCode = CodeOf<"session" | "transport" | "auth">;

/**
 * Options of one request.
 *
 * @category Discovery and calls
 */
export interface SessionRequestOptions {
  /** Aborts local waiting (the SDK also sends `notifications/cancelled`). */
  readonly signal?: AbortSignal;
  /** Deadline in milliseconds. */
  readonly timeoutMs: number;
  /** Extra HTTP headers of this request (2026-07-28 `Mcp-Param-*`), where the transport has any. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Hears the server's `notifications/progress` for this request; only when it is given is a
   * `progressToken` sent.
   */
  readonly onProgress?: (progress: SessionProgress) => void;
  /**
   * With `onProgress`: an idle deadline in milliseconds that each progress notification
   * restarts. `timeoutMs` stays the request's total deadline, which progress never extends.
   */
  readonly idleTimeoutMs?: number;
  /**
   * Answers a request the server sends in the course of this one (2025 eras: an
   * `elicitation/create` on this request's reply stream), where the session can tell which
   * request it belongs to.
   */
  readonly onServerRequest?: ServerRequestHandler;
  /** The gate's trace of the call this request makes (telemetry); sessions pass it on as is. */
  readonly trace?: object;
}

/**
 * One `notifications/progress` of a request, checked: `progress` and `total` finite numbers,
 * the message bounded and escaped remote text.
 *
 * @category Discovery and calls
 */
export interface SessionProgress {
  /** The progress so far (increases with each notification). */
  readonly progress: number;
  /** The total, when the server knows it. */
  readonly total?: number;
  /** The server's message, when it sent one. */
  readonly message?: RemoteText;
}

/**
 * How a server request was tied to its client request: it came on that request's own reply
 * stream (`"reply_stream"`), or on the session's standalone stream while that request was the
 * only one in flight that answers server requests (`"session_stream"`: inferred).
 *
 * @category Discovery and calls
 */
export type ServerRequestDelivery = "reply_stream" | "session_stream";

/**
 * Answers one server request tied to a client request: resolves with the result to send back
 * (never rejects: a refusal is a result such as `{ action: "decline" }`).
 *
 * @category Discovery and calls
 */
export type ServerRequestHandler = (
  method: string,
  params: unknown,
  signal: AbortSignal,
  delivery: ServerRequestDelivery,
) => Promise<JsonObject>;

/**
 * The one thing sluice needs from an MCP session: send a JSON-RPC request and get its raw,
 * unvalidated `result` back. Rejects only with a {@link SessionRequestError}.
 *
 * @category Discovery and calls
 */
export interface McpSession {
  /** Tells a session apart from an SDK client where either is accepted. */
  readonly kind: "mcp_session";
  /** Whether the session is closed for good. */
  readonly closed: boolean;
  /** Sends `method` with `params` and resolves with the raw result object. */
  request(method: string, params: JsonObject, options: SessionRequestOptions): Promise<unknown>;
}

const MESSAGES: Partial<Record<SessionErrorCode, string>> = {
  mcp_timeout: "the request passed its deadline",
  mcp_aborted: "the caller aborted the request",
  mcp_connection_closed: "the MCP session is closed",
  mcp_protocol_error: "the server answered with a protocol error",
  mcp_handshake_failed: "the MCP session could not be set up",
  mcp_protocol_version_unsupported: "the server speaks no protocol version sluice accepts",
};

/**
 * A request that produced no result. `sent` is `false` only when sluice knows the request
 * never left (closed session, aborted signal, a refused destination, a failed handshake);
 * otherwise the server may have received and acted on it. The underlying error, if any, is
 * `cause` (for the host's logs; never shown to a model).
 *
 * @category Discovery and calls
 */
export class SessionRequestError extends SluiceError<SessionErrorCode> {
  /** Whether the request may have reached the server. */
  readonly sent: boolean;
  /** Set when the reply stream ended before the answer arrived (the request was sent). */
  readonly replyStreamEnded: boolean = false;

  /**
   * Creates the error for one failed request.
   *
   * @param code classified cause
   * @param sent whether the request may have reached the server
   * @param cause the underlying error
   */
  constructor(code: SessionErrorCode, sent: boolean, cause?: unknown) {
    super(
      code,
      MESSAGES[code] ?? `the transport failed (${code})`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "SessionRequestError";
    this.sent = sent;
  }
}

/**
 * Whether `value` is an {@link McpSession} (and not, for example, an SDK client).
 *
 * @param value a session or an SDK client
 *
 * @category Discovery and calls
 */
export function isMcpSession(value: unknown): value is McpSession {
  return typeof value === "object" && value !== null &&
    (value as { kind?: unknown }).kind === "mcp_session";
}
