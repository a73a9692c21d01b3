/**
 * Host-owned SDK clients as sluice sessions.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { DeadlineQueue, LONGEST_TIMER_MS } from "../deadline.ts";
import { authErrorCode } from "../auth/errors.ts";
import { failedBeforeSending, transportErrorCode } from "../transport/errors.ts";
import {
  isMcpSession,
  type McpSession,
  type SessionErrorCode,
  SessionRequestError,
  type SessionRequestOptions,
} from "./session.ts";
import { progressListener } from "./progress.ts";
import { requestTag } from "./related_requests.ts";

/**
 * A connected official SDK client, v1 (`@modelcontextprotocol/sdk` `Client`) or v2
 * (`@modelcontextprotocol/client` `Client`). Both expose
 * `request(request, resultSchema, { signal, timeout })` and a `transport` that becomes
 * `undefined` once the connection closes; that is all sluice relies on.
 *
 * @category Discovery and calls
 */
export interface SdkClientLike {
  /** The SDK's request method; its exact typing differs between SDK lines. */
  request(...args: never[]): Promise<unknown>;
  /** The SDK's transport; `undefined` after close. */
  readonly transport?: unknown;
}

type RawRequest = (
  request: { method: string; params: JsonObject },
  resultSchema: unknown,
  options: {
    signal?: AbortSignal;
    timeout: number;
    allowInputRequired?: boolean;
    headers?: Record<string, string>;
    onprogress?: (progress: unknown) => void;
    onresumptiontoken?: (token: string) => void;
  },
) => Promise<unknown>;

/**
 * A result "schema" accepted by both SDK lines that passes the raw result through untouched:
 * v1 duck-types Zod 3 (`safeParse`), v2 accepts any Standard Schema (`~standard.validate`).
 * sluice validates results itself with the profile's compiled validators.
 */
const PASS_THROUGH = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
  "~standard": Object.freeze({
    version: 1,
    vendor: "sluice",
    validate: (value: unknown) => ({ value }),
  }),
});

function isClosed(client: SdkClientLike): boolean {
  return "transport" in client && client.transport === undefined;
}

/**
 * Whether an SDK rejection means a reply could not be decoded: not JSON, or not JSON-RPC.
 *
 * @param error an SDK rejection
 *
 * @category Discovery and calls
 */
export function isUndecodable(error: unknown): boolean {
  return error instanceof SyntaxError ||
    (error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError"));
}

/**
 * Maps an SDK rejection that is not the session's deadline nor the caller's abort to a code;
 * remote messages are dropped here.
 */
function classify(client: SdkClientLike, error: unknown): SessionErrorCode {
  // Both SDKs clear `transport` before failing pending requests on close.
  if (isClosed(client)) return "mcp_connection_closed";
  // A host that gave its transport sluice's hardened fetch gets that fetch's own code.
  const transportCode = transportErrorCode(error);
  if (transportCode !== undefined) return transportCode;
  const authCode = authErrorCode(error);
  if (authCode !== undefined) return authCode;
  const code = typeof error === "object" && error !== null
    ? (error as { code?: unknown }).code
    : undefined;
  // A reply that is not JSON-RPC is the server breaking the protocol, not the network.
  if (isUndecodable(error)) return "mcp_protocol_error";
  switch (code) {
    case "CONNECTION_CLOSED":
    case "NOT_CONNECTED":
      return "mcp_connection_closed";
    case "REQUEST_TIMEOUT":
      return "mcp_timeout";
    case "INPUT_REQUIRED_ROUNDS_EXCEEDED":
      return "mcp_input_required_unsupported";
    case "INVALID_RESULT":
    case "UNSUPPORTED_RESULT_TYPE":
    case "METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION":
      return "mcp_protocol_error";
  }
  // A numeric code is a JSON-RPC error response (v1 McpError, v2 ProtocolError).
  if (typeof code === "number" && Number.isInteger(code)) return "mcp_protocol_error";
  return "mcp_transport_error";
}

/**
 * Adapts a connected SDK client (v1 or v2) to {@link McpSession}. The SDK's result validation
 * is bypassed. The session owns each request's deadline (`timeoutMs`, on one shared timer per
 * session; the SDK's own timer never fires first) and hands the SDK one signal for it and the
 * caller's. Errors are classified by code and class shape, never by message: the deadline →
 * `mcp_timeout` (a -32001 error response is the server's, never a timeout), the caller's
 * abort → `mcp_aborted`, a sluice transport code found on the error's
 * cause chain → that code, closed → `mcp_connection_closed`, a JSON-RPC error response or an
 * undecodable result → `mcp_protocol_error`, anything else → `mcp_transport_error`.
 *
 * @example
 * ```ts
 * import { sessionFromClient } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * declare const client: Client; // connected, v1 or v2 SDK
 *
 * const session = sessionFromClient(client);
 * const raw = await session.request("tools/list", {}, { timeoutMs: 30_000 });
 * ```
 *
 * @category Discovery and calls
 */
export function sessionFromClient(client: SdkClientLike): McpSession {
  const send = client.request.bind(client) as unknown as RawRequest;
  // Every request's deadline, on one timer: each lane holds the requests of one duration.
  const deadlines = new DeadlineQueue();
  return {
    kind: "mcp_session",
    get closed() {
      return isClosed(client);
    },
    request(method, params, options) {
      if (isClosed(client)) {
        return Promise.reject(new SessionRequestError("mcp_connection_closed", false));
      }
      const signal = options.signal;
      if (signal?.aborted) {
        return Promise.reject(new SessionRequestError("mcp_aborted", false));
      }
      // The request's one deadline, and the SDK's signal: a fresh one per request that follows
      // the caller's (the v1 SDK never removes the listener it adds, so a long-lived caller
      // signal would grow by one listener per request), stopped when the request settles. On
      // either the SDK rejects at once, sends notifications/cancelled and drops a late response.
      const deadline = deadlines.start(signal, options.timeoutMs);
      const progress = progressListener(options, deadline.signal);
      let pending: Promise<unknown>;
      try {
        pending = send({ method, params }, PASS_THROUGH, {
          signal: progress?.signal ?? deadline.signal,
          // The SDK insists on a timer per request: the longest a timer waits, so it never
          // decides (the deadline aborts first, which the SDK answers as its own timeout).
          timeout: LONGEST_TIMER_MS,
          // v2: an input_required result comes back as it is (sluice reports it), instead of
          // the SDK trying to answer it; v1 ignores the option.
          allowInputRequired: true,
          ...(options.headers ? { headers: { ...options.headers } } : {}),
          ...extraOptions(options, progress?.listener),
        });
      } catch (error) {
        deadline.stop();
        progress?.stop();
        // A synchronous throw happens before anything reaches the transport.
        return Promise.reject(new SessionRequestError(classify(client, error), false, error));
      }
      return pending.then((result) => {
        deadline.stop();
        progress?.stop();
        return result;
      }, (error: unknown) => {
        deadline.stop();
        const idleExpired = progress?.stop() === true;
        // A session sluice built already classified its failure: keep it whole.
        if (
          error instanceof SessionRequestError && !signal?.aborted && !deadline.expired &&
          !idleExpired
        ) {
          throw error;
        }
        const code = deadline.expired || idleExpired
          ? "mcp_timeout"
          : signal?.aborted
          ? "mcp_aborted"
          : classify(client, error);
        const transportCode = transportErrorCode(error);
        const sent = transportCode === undefined || !failedBeforeSending(transportCode);
        throw new SessionRequestError(code, sent, error);
      });
    },
  };
}

/** The SDK options for progress and for server requests tied to this request. */
function extraOptions(
  options: SessionRequestOptions,
  onprogress: ((progress: unknown) => void) | undefined,
): { onprogress?: (progress: unknown) => void; onresumptiontoken?: (token: string) => void } {
  return {
    ...(onprogress !== undefined ? { onprogress } : {}),
    ...(options.onServerRequest !== undefined
      ? { onresumptiontoken: requestTag(options.onServerRequest) }
      : {}),
  };
}

/**
 * The session for `source`: a session as it is, an SDK client through {@link sessionFromClient}.
 *
 * @param source a session or a connected SDK client
 *
 * @category Discovery and calls
 */
export function asSession(source: SdkClientLike | McpSession): McpSession {
  return isMcpSession(source) ? source : sessionFromClient(source);
}
