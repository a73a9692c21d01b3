import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Stable codes for everything the hardened fetch refuses or fails on.
 *
 * @category Transport
 */
export type TransportErrorCode = CodeOf<"transport">;

/**
 * Thrown (or used to error a response body stream) by the function `secureFetch` returns.
 * The message is sluice text: it never contains remote text, the token, or the URL's path and
 * query. Only `transport_permission_denied` names a host and port (the caller's own), because
 * that is what the missing `--allow-net` needs.
 *
 * @example
 * ```ts
 * import { secureFetch, TransportError } from "@sluice/mcp";
 * const fetchSafely = secureFetch({});
 * try {
 *   await fetchSafely("http://169.254.169.254/latest/meta-data/");
 * } catch (error) {
 *   if (error instanceof TransportError) console.log(error.code); // "transport_scheme_refused"
 * }
 * ```
 *
 * @category Transport
 */
export class TransportError extends SluiceError<TransportErrorCode> {
  /**
   * Creates a transport error.
   *
   * @param code stable error code
   * @param message fixed explanation written by sluice
   */
  constructor(code: TransportErrorCode, message: string) {
    super(code, message);
    this.name = "TransportError";
  }

  /** A plain representation without stack or cause, safe to log and serialize. */
  toJSON(): { name: string; code: TransportErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/**
 * Finds a transport error code on an error or anywhere along its `cause` chain, for callers that
 * receive errors wrapped by another library (for example the MCP SDK's transport errors).
 *
 * @example
 * ```ts
 * import { transportErrorCode } from "@sluice/mcp";
 * const wrapped = new Error("send failed", { cause: new Error("inner") });
 * transportErrorCode(wrapped); // undefined: no transport error in the chain
 * ```
 *
 * @param error any thrown value
 * @returns the code, or `undefined` when no {@link TransportError} is in the chain
 *
 * @category Transport
 */
export function transportErrorCode(error: unknown): TransportErrorCode | undefined {
  let current: unknown = error;
  // Bounded walk: a cause chain can be cyclic.
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof TransportError) return current.code;
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}

/** Codes the hardened fetch gives only before any byte of the request left this process. */
const BEFORE_SENDING: ReadonlySet<TransportErrorCode> = new Set<TransportErrorCode>([
  "transport_config_invalid",
  "transport_url_invalid",
  "transport_scheme_refused",
  "transport_userinfo_refused",
  "transport_ip_literal_refused",
  "transport_host_refused",
  "transport_address_refused",
  "transport_dns_failed",
  "transport_tls_failed",
]);

/**
 * Whether a transport code proves the request was never sent (refused destination, failed
 * resolution or TLS handshake): a write that failed so is `not_started`, not `unknown`.
 *
 * @param code a transport code
 *
 * @category Transport
 */
export function failedBeforeSending(code: TransportErrorCode): boolean {
  return BEFORE_SENDING.has(code);
}
