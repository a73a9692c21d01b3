/**
 * The options of `secureFetch` and what they resolve to: the caps, the deadline, the token and
 * the origin it goes to, the resolver, the underlying fetch and DNS pinning. Checked once, when
 * the function is made.
 *
 * @module
 */
import { LONGEST_TIMER_MS } from "../deadline.ts";
import { TransportError } from "./errors.ts";
import type { DestinationPolicy } from "./policy.ts";
import { PinnedFetch } from "./pinned_fetch.ts";
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
 * Options of `secureFetch`. Every field is optional; the defaults are the strict ones.
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

/** The options checked, with the runtime's resolver and pinning chosen. */
export interface ResolvedOptions {
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

/** Checks the options and picks the runtime's resolver and pinning. */
export function resolveOptions(options: SecureFetchOptions): ResolvedOptions {
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
