import { SluiceError } from "../errors.ts";

/**
 * Stable codes for everything the hardened fetch refuses or fails on.
 *
 * @category Transport
 */
export type TransportErrorCode =
  /** The options given to `secureFetch` are inconsistent (for example a token without origin). */
  | "transport_config_invalid"
  /** The request URL does not parse. */
  | "transport_url_invalid"
  /** Not https, or plain http without the loopback option, or http to a non-loopback host. */
  | "transport_scheme_refused"
  /** The URL carries a user name or password. */
  | "transport_userinfo_refused"
  /** The host is an IP address (any spelling) that is not an allowed loopback address. */
  | "transport_ip_literal_refused"
  /** The host name itself is refused (cloud metadata names, `localhost` without the option). */
  | "transport_host_refused"
  /** The name resolved to at least one address that is not public. */
  | "transport_address_refused"
  /** The name could not be resolved, or resolved to nothing. */
  | "transport_dns_failed"
  /** The server answered with a redirect (any 3xx). */
  | "transport_redirect_refused"
  /** The server sent a compressed body (a `Content-Encoding` other than identity). */
  | "transport_encoding_refused"
  /** The response body is, or declared it would be, larger than `maxResponseBytes`. */
  | "transport_response_too_large"
  /** The one deadline over resolution, connection, headers and body passed. */
  | "transport_timeout"
  /** The caller's `AbortSignal` aborted the request. */
  | "transport_aborted"
  /**
   * The runtime refused network access: Deno without `--allow-net` for the host (or, to check a
   * host name, for the DNS server `Deno.resolveDns` asks). The message names the host and port.
   */
  | "transport_permission_denied"
  /** TLS failed: certificate not trusted, not valid for the host name, or handshake error. */
  | "transport_tls_failed"
  /** Any other network failure (connection refused, reset, malformed response). */
  | "transport_failed";

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
