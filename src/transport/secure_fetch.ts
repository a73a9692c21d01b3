/**
 * `secureFetch`: a `fetch` for talking to untrusted servers. Everything is decided by explicit
 * options (`fetch_options.ts`); nothing is read from the environment. Each request: the URL
 * checked (`policy.ts`), the name resolved and every address checked, the request governed and
 * sent (`request.ts`), the response let through (`response.ts`), a failure given its code
 * (`fetch_failure.ts`), all under one deadline.
 *
 * @module
 */
import { DeadlineQueue, untilAborted } from "../deadline.ts";
import { CappedResponse } from "./capped_response.ts";
import { TransportError } from "./errors.ts";
import {
  isPermissionRefusal,
  resolverPermissionDenied,
  toTransportError,
} from "./fetch_failure.ts";
import {
  type FetchFunction,
  type ResolvedOptions,
  resolveOptions,
  type SecureFetchOptions,
} from "./fetch_options.ts";
import {
  type CheckedDestination,
  checkResolvedAddresses,
  checkUrl,
  type DestinationPolicy,
} from "./policy.ts";
import { send } from "./request.ts";
import { governedBody } from "./response.ts";
import type { ResolverSource } from "./resolver.ts";

export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type FetchFunction,
  MAX_RESPONSE_BYTES,
  type SecureFetchOptions,
} from "./fetch_options.ts";

/**
 * What a `secureFetch` function enforces, safe to show (it never contains the token).
 *
 * @category Transport
 */
export interface TransportReport {
  /** Whether resolved addresses are checked to be public on this runtime. */
  readonly dnsCheck: "enforced" | "unavailable";
  /**
   * Whether each connection goes to an address the check approved (`"enforced"`: Deno, Bun and
   * Node), or the runtime's `fetch` resolves the name again on its own (`"unavailable"`: Workers,
   * a Node whose bundled undici is not major 6, an injected `fetch`, or no DNS check), which a
   * rebinding DNS server can answer differently, or `"disabled"` by the `dnsPinning: false`
   * option.
   */
  readonly dnsPinning: "enforced" | "unavailable" | "disabled";
  /** Where the resolver comes from. */
  readonly resolver: ResolverSource;
  /** Whether loopback destinations (and plain http to them) are allowed. */
  readonly loopbackAllowed: boolean;
  /** The byte cap on every response body. */
  readonly maxResponseBytes: number;
  /** The deadline over each whole request, in milliseconds. */
  readonly timeoutMs: number;
  /** The origin a token is sent to, or `null` when no token is configured. */
  readonly tokenOrigin: string | null;
}

/**
 * The function {@link secureFetch} returns: `fetch`'s signature plus a report.
 *
 * @category Transport
 */
export interface SecureFetch extends FetchFunction {
  /** Says what this function enforces, including whether DNS checks run on this runtime. */
  describe(): TransportReport;
  /**
   * Keeps the pinned connections open until the returned function is called, so that requests
   * in a row reuse one connection (and one TLS handshake). Without a hold they are closed
   * whenever no request or body is in flight. Does nothing where nothing is pinned.
   */
  hold(): () => void;
}

function requestUrl(input: RequestInfo | URL): string {
  if (input instanceof Request) return input.url;
  if (input instanceof URL) return input.href;
  return String(input);
}

function transportReport(resolved: ResolvedOptions, options: SecureFetchOptions): TransportReport {
  return Object.freeze({
    dnsCheck: resolved.resolve === undefined ? "unavailable" : "enforced",
    dnsPinning: resolved.pinned !== undefined
      ? "enforced"
      : options.dnsPinning === false
      ? "disabled"
      : "unavailable",
    resolver: resolved.resolverSource,
    loopbackAllowed: resolved.policy.allowLoopback,
    maxResponseBytes: resolved.maxResponseBytes,
    timeoutMs: resolved.timeoutMs,
    tokenOrigin: resolved.authorization?.origin ?? null,
  });
}

/**
 * The checks that need no network are a pure function of the URL text and the policy, so the
 * verdict for the last URL is reused (an MCP session posts to one endpoint). The DNS check is
 * never cached: every request resolves its host again and checks every address.
 */
function lastUrlCheck(policy: DestinationPolicy): (href: string) => CheckedDestination {
  let last: { readonly href: string; readonly destination: CheckedDestination } | undefined;
  return (href) => {
    if (last?.href === href) return last.destination;
    const destination = checkUrl(href, policy);
    last = { href, destination };
    return destination;
  };
}

/** The addresses a host name resolves to, every one checked (none for a literal or no resolver). */
async function checkedAddresses(
  destination: CheckedDestination,
  resolved: ResolvedOptions,
  signal: AbortSignal,
): Promise<readonly string[]> {
  if (destination.kind !== "name" || resolved.resolve === undefined) return [];
  let addresses: readonly string[];
  try {
    addresses = await untilAborted(resolved.resolve(destination.hostname, { signal }), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    if (isPermissionRefusal(error)) throw resolverPermissionDenied(destination.url);
    throw new TransportError("transport_dns_failed", "The host name could not be resolved.");
  }
  checkResolvedAddresses(addresses, resolved.policy, destination.url.protocol === "http:");
  return addresses;
}

/**
 * Creates a hardened `fetch` for untrusted servers. The returned function has `fetch`'s
 * signature, so it can be handed to the MCP SDK's Streamable HTTP transport or used directly.
 *
 * It refuses, before any socket is opened: schemes other than https (plain http only to loopback
 * with `dangerouslyAllowLoopback`), user info in the URL, IP-literal hosts in any spelling, cloud
 * metadata names, and names that resolve to any non-public address. It sends
 * `Accept-Encoding: identity` and follows no redirect; it refuses 3xx answers, compressed bodies
 * and bodies over `maxResponseBytes`; one deadline covers the whole request including the body.
 * The token is sent only to `tokenOrigin`. A body whose `Content-Length` is declared (within
 * the cap) is read whole before the call resolves, in one native read; any other body (chunked,
 * and every event stream) streams, counted. Failures are {@link TransportError}s: thrown by the
 * call, or raised by a streamed body for the byte cap and the deadline.
 *
 * @example
 * ```ts
 * import { secureFetch } from "@sluice/mcp";
 * const fetchSafely = secureFetch({
 *   token: "secret",
 *   tokenOrigin: "https://mcp.example.com",
 *   timeoutMs: 10_000,
 * });
 * console.log(fetchSafely.describe().dnsCheck); // "enforced" on Deno, Node and Bun
 * ```
 *
 * @param options the rules; defaults are the strict ones
 * @returns a function with `fetch`'s signature and a `describe()` report
 * @throws {TransportError} `transport_config_invalid` when the options are inconsistent
 *
 * @category Transport
 */
export function secureFetch(options: SecureFetchOptions = {}): SecureFetch {
  const resolved = resolveOptions(options);
  const report = transportReport(resolved, options);
  const checkedUrl = lastUrlCheck(resolved.policy);
  // Every request's deadline lasts timeoutMs: one shared timer serves them all.
  const deadlines = new DeadlineQueue(resolved.timeoutMs);

  const call = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const callerSignal = (init?.signal ?? (input instanceof Request ? input.signal : undefined)) ??
      undefined;
    // One deadline over the whole request, body included: the caller's signal and the timer
    // as one signal, raced wherever the underlying work might ignore it. It is stopped when
    // the request is done: here, or when a streamed body ends.
    const deadline = deadlines.start(callerSignal);
    const signal = deadline.signal;
    let streaming = false;
    let url: URL | undefined;
    const toError = (error: unknown) => toTransportError(error, signal, callerSignal, url);
    try {
      if (signal.aborted) throw signal.reason;
      const destination = checkedUrl(requestUrl(input));
      url = destination.url;
      const addresses = await checkedAddresses(destination, resolved, signal);
      const pinned = resolved.pinned?.applies(destination.kind === "name") ? addresses : undefined;
      const response = await send(input, init, destination.url, resolved, signal, pinned);
      const governed = await governedBody(response, resolved, deadline, toError);
      streaming = governed.streaming;
      return new CappedResponse(governed.body, response);
    } catch (error) {
      throw toError(error);
    } finally {
      if (!streaming) deadline.stop();
    }
  };
  return Object.assign(call, {
    describe: (): TransportReport => report,
    hold: (): () => void => resolved.pinned?.hold() ?? (() => {}),
  });
}

/**
 * Reports what {@link secureFetch} would enforce with `options` on this runtime, without
 * creating the function: most usefully, whether DNS answers are checked here.
 *
 * @example
 * ```ts
 * import { describeTransport } from "@sluice/mcp";
 * if (describeTransport().dnsCheck === "unavailable") {
 *   console.warn("host names are not checked against private addresses on this runtime");
 * }
 * ```
 *
 * @param options the same options as {@link secureFetch}
 * @returns the report
 *
 * @category Transport
 */
export function describeTransport(options: SecureFetchOptions = {}): TransportReport {
  return secureFetch(options).describe();
}
