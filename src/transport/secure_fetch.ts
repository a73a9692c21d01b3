/**
 * `secureFetch`: a `fetch` for talking to untrusted servers. Everything is decided by explicit
 * options; nothing is read from the environment.
 *
 * @module
 */
import { DeadlineQueue, LONGEST_TIMER_MS, untilAborted } from "../deadline.ts";
import { CappedResponse } from "./capped_response.ts";
import { TransportError } from "./errors.ts";
import { limitBody, readDeclaredBody } from "./limited_body.ts";
import {
  type CheckedDestination,
  checkResolvedAddresses,
  checkUrl,
  type DestinationPolicy,
} from "./policy.ts";
import { PinnedFetch } from "./pinned_fetch.ts";
import { pinnedTarget } from "./pinning.ts";
import type { Resolver, ResolverSource } from "./resolver.ts";
import { runtimePinning, runtimeResolver } from "./runtime/mod.ts";

/**
 * Default byte cap on every response body: 1 MiB.
 *
 * @category Transport
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * The most `maxResponseBytes` may be raised to: 32 MiB, what the largest tool list a host may
 * allow (`TOOL_LIMIT_CEILINGS.maxCatalogBytes`) needs.
 *
 * @category Transport
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * Default deadline over resolution, connection, headers and body: 30 seconds.
 *
 * @category Transport
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The signature of `fetch`, which the underlying fetch and the returned function share.
 *
 * @category Transport
 */
export type FetchFunction = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link secureFetch}. Every field is optional; the defaults are the strict ones.
 *
 * @example
 * ```ts
 * import type { SecureFetchOptions } from "@sluice/mcp";
 * const options: SecureFetchOptions = {
 *   token: "secret",
 *   tokenOrigin: "https://mcp.example.com",
 *   maxResponseBytes: 2 * 1024 * 1024,
 *   timeoutMs: 10_000,
 * };
 * ```
 *
 * @category Transport
 */
export interface SecureFetchOptions {
  /**
   * Allow loopback destinations: `127.0.0.0/8` and `::1` literals, `localhost` names, names
   * resolving to loopback, and plain `http` to any of them. Local development and tests only:
   * anything listening on this machine becomes reachable. Default `false`.
   */
  readonly dangerouslyAllowLoopback?: boolean;
  /** Byte cap on every response body, counted while it streams. Default 1 MiB. */
  readonly maxResponseBytes?: number;
  /**
   * One wall-clock deadline in milliseconds over resolution, connection, TLS, headers and the
   * whole body; data arriving does not extend it. Default 30 000.
   */
  readonly timeoutMs?: number;
  /** Bearer token, sent as `Authorization: Bearer <token>` only to `tokenOrigin`. */
  readonly token?: string;
  /** The only origin (`https://host[:port]`) the token is sent to. Required with `token`. */
  readonly tokenOrigin?: string;
  /**
   * The `Authorization` scheme of `token`. Default `"Bearer"`; `"Basic"` is how the OAuth client
   * sends `client_secret_basic` credentials, to the token endpoint only; `"DPoP"` a DPoP-bound
   * token (RFC 9449), its proof in the caller's `DPoP` header.
   */
  readonly tokenScheme?: "Bearer" | "Basic" | "DPoP";
  /**
   * Resolver used to check that every address of a host name is public. Default: the runtime's
   * own (Deno `resolveDns`, Node/Bun `dns.lookup`); on runtimes without one (Workers) names are
   * not checked and {@link SecureFetch.describe} reports `dnsCheck: "unavailable"`.
   */
  readonly resolve?: Resolver;
  /**
   * The underlying fetch, called once per allowed request with a prepared `Request`. Default:
   * the global `fetch`. A fetch passed here makes its own connections, so it turns DNS pinning
   * off ({@link TransportReport.dnsPinning} `"unavailable"`); to trust a private CA and keep
   * pinning, pass `caCerts` instead.
   */
  readonly fetch?: FetchFunction;
  /**
   * PEM certificates trusted besides the system roots, on the connections sluice makes itself
   * (Deno, Bun and Node, where it pins). Refused with `fetch` or on a runtime without pinning.
   */
  readonly caCerts?: readonly string[];
  /**
   * DNS pinning: connect only to an address the check approved, where the runtime allows it
   * (Deno, Bun, Node). Default `true`. `false` lets the runtime's `fetch` resolve the name again
   * itself, which a rebinding DNS server can answer differently; on Deno it is what keeps a
   * `--allow-net=<host>:<port>` set sufficient (docs/permissions.md).
   */
  readonly dnsPinning?: boolean;
}

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
   * a Node whose bundled undici is not major 6, an injected `fetch`, or no DNS check), which a rebinding DNS server can answer differently,
   * or `"disabled"` by the `dnsPinning: false` option.
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

interface ResolvedOptions {
  readonly policy: DestinationPolicy;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  readonly authorization: { readonly header: string; readonly origin: string } | undefined;
  readonly resolve: Resolver | undefined;
  readonly resolverSource: ResolverSource;
  readonly fetch: FetchFunction;
  /** True when `fetch` is the runtime's own, which honours its signal at every step. */
  readonly nativeFetch: boolean;
  readonly pinned: PinnedFetch | undefined;
}

const configError = (message: string): TransportError =>
  new TransportError("transport_config_invalid", message);

function resolveOptions(options: SecureFetchOptions): ResolvedOptions {
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 0) {
    throw configError("maxResponseBytes must be a non-negative integer.");
  }
  if (maxResponseBytes > MAX_RESPONSE_BYTES) {
    throw configError(`maxResponseBytes may be at most ${MAX_RESPONSE_BYTES}.`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > LONGEST_TIMER_MS) {
    throw configError(`timeoutMs must be a positive number up to ${LONGEST_TIMER_MS}.`);
  }
  const authorization = resolveToken(options);
  const runtime = options.resolve === undefined ? runtimeResolver() : undefined;
  const resolve = options.resolve ?? runtime?.resolve;
  const pinning =
    options.fetch === undefined && resolve !== undefined && options.dnsPinning !== false
      ? runtimePinning()
      : undefined;
  if (options.caCerts !== undefined && pinning === undefined) {
    throw configError("caCerts needs sluice's own connections: no fetch, Deno, Bun or Node.");
  }
  return {
    policy: { allowLoopback: options.dangerouslyAllowLoopback === true },
    maxResponseBytes,
    timeoutMs,
    authorization,
    resolve,
    resolverSource: options.resolve !== undefined ? "injected" : runtime?.source ?? "none",
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    nativeFetch: options.fetch === undefined,
    pinned: pinning === undefined ? undefined : new PinnedFetch(pinning, options.caCerts),
  };
}

function resolveToken(options: SecureFetchOptions): ResolvedOptions["authorization"] {
  if (options.token === undefined) {
    if (options.tokenOrigin !== undefined) throw configError("tokenOrigin is set without token.");
    return undefined;
  }
  // Visible ASCII only: a token with CR/LF or other controls could inject headers.
  if (!/^[\x21-\x7e]+$/.test(options.token)) {
    throw configError("token must be non-empty printable ASCII without spaces.");
  }
  if (options.tokenOrigin === undefined) {
    throw configError("token needs tokenOrigin, the only origin it may be sent to.");
  }
  let origin: string;
  try {
    origin = new URL(options.tokenOrigin).origin;
  } catch {
    throw configError("tokenOrigin is not a valid URL.");
  }
  if (origin === "null") throw configError("tokenOrigin has no origin (use https://host).");
  const scheme = options.tokenScheme ?? "Bearer";
  if (scheme !== "Bearer" && scheme !== "Basic" && scheme !== "DPoP") {
    throw configError("tokenScheme is not known.");
  }
  return { header: `${scheme} ${options.token}`, origin };
}

function requestUrl(input: RequestInfo | URL): string {
  if (input instanceof Request) return input.url;
  if (input instanceof URL) return input.href;
  return String(input);
}

// Only the local runtime's own error text is inspected, to pick a code; it is never copied.
// URLs and quoted names are removed first so a host called "tls.example" is not a TLS error.
// Besides certificates, the TLS library's own words for a peer that speaks no TLS at all (junk
// or plain HTTP where a handshake belongs): rustls (Deno) says "received corrupt message" or
// "received fatal alert"; OpenSSL (Node) says "wrong version number" under an SSL code.
const TLS_PATTERN =
  /certificate|tls|ssl|handshake|CERT_|ALTNAME|corrupt message|fatal alert|peer is incompatible|peer misbehaved|wrong version number/i;
const NAMES_IN_MESSAGE = /[a-z][a-z0-9+.-]*:\/\/[^\s)]*|"[^"]*"|'[^']*'/gi;
function looksLikeTls(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    const message = current.message.replace(NAMES_IN_MESSAGE, "");
    if (TLS_PATTERN.test(message) || (typeof code === "string" && TLS_PATTERN.test(code))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

/** Whether the runtime itself refused the operation for want of a permission (Deno). */
function isPermissionRefusal(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    // Deno 2 throws `Deno.errors.NotCapable` when a permission flag is missing.
    if (current.name === "NotCapable") return true;
    current = current.cause;
  }
  return false;
}

/** `host:port` as `--allow-net` takes it, from the caller's own URL. */
function netTarget(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
  return `${url.hostname}:${port}`;
}

function permissionDenied(destination: URL): TransportError {
  const target = netTarget(destination);
  return new TransportError(
    "transport_permission_denied",
    `Deno refused network access to ${target}: run with --allow-net=${target} ` +
      "(see docs/permissions.md).",
  );
}

function resolverPermissionDenied(destination: URL): TransportError {
  const target = netTarget(destination);
  return new TransportError(
    "transport_permission_denied",
    `Deno refused network access while checking the addresses of ${destination.hostname}: ` +
      `Deno.resolveDns asks the system's DNS servers, so run with --allow-net=${target} and ` +
      "each DNS server (its address, port 53), or pass transport.resolve " +
      "(see docs/permissions.md).",
  );
}

/**
 * Why the request's deadline signal (the caller's signal and the timeout, one signal) aborted:
 * its reason is the caller's own when the caller aborted first.
 */
function stopFailure(
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
): TransportError | undefined {
  if (!signal.aborted) return undefined;
  if (callerSignal?.aborted && signal.reason === callerSignal.reason) {
    return new TransportError("transport_aborted", "The caller aborted the request.");
  }
  return new TransportError("transport_timeout", "The request did not complete in time.");
}

function toTransportError(
  error: unknown,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
  destination: URL | undefined,
): TransportError {
  if (error instanceof TransportError) return error;
  const stopped = stopFailure(signal, callerSignal);
  if (stopped !== undefined) return stopped;
  if (destination !== undefined && isPermissionRefusal(error)) return permissionDenied(destination);
  // Only an https request has a TLS layer that could have failed.
  if (destination?.protocol === "https:" && looksLikeTls(error)) {
    return new TransportError(
      "transport_tls_failed",
      "The TLS connection failed: the certificate is not trusted or not valid for the host.",
    );
  }
  return new TransportError(
    "transport_failed",
    "The request failed before a complete response arrived.",
  );
}

function prepareRequest(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  url: URL,
  options: ResolvedOptions,
  signal: AbortSignal,
): Request {
  let request: Request;
  try {
    request = new Request(input instanceof Request ? input : url, preparedInit(init, signal));
  } catch {
    throw new TransportError("transport_url_invalid", "The request could not be built.");
  }
  // The request's own copy of the headers is edited in place: one copy per request.
  governHeaders(request.headers, url, options);
  return request;
}

/**
 * The caller's init with sluice's signal and rules. A streamed request body must be declared
 * half-duplex; declaring it always spares reading the body, whose getter turns a string body
 * into a stream. Deno's fetch pumps a stream body through a resource that it never closes when
 * it refuses the request (a missing --allow-net), and that resource kept the process alive for
 * minutes.
 */
function preparedInit(
  init: RequestInit | undefined,
  signal: AbortSignal,
): RequestInit & { duplex: "half" } {
  return { ...init, signal, redirect: "manual", duplex: "half" };
}

/** Request headers no caller (nor library) sends: credentials travel only from the token option. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
]);

/** The headers sluice sets on every request: identity encoding, the token to its origin only. */
function ownHeaders(url: URL, options: ResolvedOptions): [string, string][] {
  const own: [string, string][] = [["accept-encoding", "identity"]];
  if (options.authorization !== undefined && url.origin === options.authorization.origin) {
    own.push(["authorization", options.authorization.header]);
  }
  return own;
}

/**
 * The token option is the only way credentials leave; a header set by the caller (or a
 * library) never travels, and the token never goes to another origin. Applied in place to a
 * request's own copy of the headers.
 */
function governHeaders(headers: Headers, url: URL, options: ResolvedOptions): void {
  for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  for (const [name, value] of ownHeaders(url, options)) headers.set(name, value);
}

/**
 * The same rules as {@link governHeaders}, on the caller's `Headers` (valid already, being
 * the runtime's own) read into a list: the runtime's fetch copies a list once, where a
 * governed copy of the `Headers` was built and then copied again (about 20 µs per request).
 */
function governedList(
  headers: Headers | undefined,
  url: URL,
  options: ResolvedOptions,
): [string, string][] {
  const own = ownHeaders(url, options);
  const list: [string, string][] = [];
  headers?.forEach((value, name) => {
    if (!CREDENTIAL_HEADERS.has(name) && !own.some(([set]) => set === name)) {
      list.push([name, value]);
    }
  });
  list.push(...own);
  return list;
}

/**
 * Sends the request. The common case (the runtime's own fetch, a URL and an init, no pinned
 * tunnel) hands fetch the init with its own copy of the headers instead of building a
 * `Request` first, which fetch would only build again; the runtime's fetch honours the signal,
 * so it needs no race. An injected fetch gets a `Request` and is raced against the signal.
 */
function send(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  url: URL,
  options: ResolvedOptions,
  signal: AbortSignal,
  pinned: readonly string[] | undefined,
): Promise<Response> {
  if (pinned !== undefined) {
    const request = prepareRequest(input, init, url, options, signal);
    return untilAborted(options.pinned!.fetch(request, pinnedTarget(url, pinned)), signal);
  }
  if (options.nativeFetch && !(input instanceof Request)) {
    const prepared = preparedInit(init, signal);
    const given = init?.headers;
    if (given === undefined || given instanceof Headers) {
      prepared.headers = governedList(given, url, options);
      return fetch(url, prepared);
    }
    // Headers as a record or a list are checked here, so that an invalid one is refused with
    // sluice's code before anything is sent.
    let headers: Headers;
    try {
      headers = new Headers(given);
    } catch {
      throw new TransportError("transport_url_invalid", "The request could not be built.");
    }
    governHeaders(headers, url, options);
    prepared.headers = headers;
    return fetch(url, prepared);
  }
  return untilAborted(options.fetch(prepareRequest(input, init, url, options, signal)), signal);
}

const discard = (response: Response): void => {
  response.body?.cancel().catch(() => {});
};

/**
 * Refuses redirects, compressed bodies and a declared length over the cap; returns the declared
 * length, if any.
 */
function checkResponse(response: Response, maxResponseBytes: number): number | undefined {
  if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
    throw new TransportError("transport_redirect_refused", "The server answered with a redirect.");
  }
  const encoding = response.headers.get("content-encoding");
  if (encoding !== null) {
    const codings = encoding.split(",").map((coding) => coding.trim().toLowerCase());
    if (codings.some((coding) => coding !== "" && coding !== "identity")) {
      throw new TransportError(
        "transport_encoding_refused",
        "The server sent a compressed body; only identity encoding is accepted.",
      );
    }
  }
  const length = response.headers.get("content-length");
  if (length === null || !/^\d+$/.test(length.trim())) return undefined;
  const declared = Number(length);
  if (declared > maxResponseBytes) {
    throw new TransportError(
      "transport_response_too_large",
      `The response declares more than ${maxResponseBytes} bytes: raise maxResponseBytes.`,
    );
  }
  return declared;
}

/** Whether the body is an event stream, which is always handed on as a (counted) stream. */
function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type");
  return type !== null && /^\s*text\/event-stream\s*(;|$)/i.test(type);
}

// Statuses whose Response may not carry a body.
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

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
  const report: TransportReport = Object.freeze({
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

  // The checks that need no network are a pure function of the URL text and the policy, so the
  // verdict for the last URL is reused (an MCP session posts to one endpoint). The DNS check is
  // never cached: every request resolves its host again and checks every address.
  let last: { readonly href: string; readonly destination: CheckedDestination } | undefined;
  const checkedUrl = (href: string): CheckedDestination => {
    if (last?.href === href) return last.destination;
    const destination = checkUrl(href, resolved.policy);
    last = { href, destination };
    return destination;
  };

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
    let addresses: readonly string[] = [];
    try {
      if (signal.aborted) throw signal.reason;
      const destination = checkedUrl(requestUrl(input));
      url = destination.url;
      if (destination.kind === "name" && resolved.resolve !== undefined) {
        try {
          addresses = await untilAborted(
            resolved.resolve(destination.hostname, { signal }),
            signal,
          );
        } catch (error) {
          if (signal.aborted) throw error;
          if (isPermissionRefusal(error)) throw resolverPermissionDenied(destination.url);
          throw new TransportError("transport_dns_failed", "The host name could not be resolved.");
        }
        checkResolvedAddresses(
          addresses,
          resolved.policy,
          destination.url.protocol === "http:",
        );
      }
      const response = await send(
        input,
        init,
        destination.url,
        resolved,
        signal,
        resolved.pinned?.applies(destination.kind === "name") ? addresses : undefined,
      );
      let declared: number | undefined;
      try {
        declared = checkResponse(response, resolved.maxResponseBytes);
      } catch (error) {
        discard(response);
        throw error;
      }
      const status = response.status;
      let body: BodyInit | null;
      if (response.body === null || NULL_BODY_STATUS.has(status)) {
        discard(response);
        body = null;
      } else if (declared !== undefined && !isEventStream(response)) {
        // The common reply (JSON with its length, within the cap): one native read.
        body = await readDeclaredBody(
          response,
          resolved.maxResponseBytes,
          resolved.nativeFetch ? undefined : signal,
        );
      } else {
        body = limitBody(response.body, resolved.maxResponseBytes, deadline, toError);
        streaming = true;
      }
      return new CappedResponse(body, response);
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
