/**
 * The resolver contract of the hardened fetch. The runtimes' own resolvers implement it in
 * `runtime/`, which imports nothing but this file.
 *
 * @module
 */

/**
 * Resolves a host name to the IP addresses a connection could use (A and AAAA, as text).
 * Rejecting, or answering with an empty list, makes the request fail with `transport_dns_failed`.
 *
 * @example
 * ```ts
 * import type { Resolver } from "@sluice/mcp";
 * // A test resolver that maps one name to a private address.
 * const resolve: Resolver = (hostname) =>
 *   Promise.resolve(hostname === "internal.example" ? ["10.0.0.7"] : ["93.184.216.34"]);
 * ```
 *
 * @category Transport
 */
export type Resolver = (
  hostname: string,
  options?: { readonly signal?: AbortSignal },
) => Promise<readonly string[]>;

/**
 * Where the resolver used by a `secureFetch` function comes from.
 *
 * @category Transport
 */
export type ResolverSource = "injected" | "deno" | "node" | "none";
