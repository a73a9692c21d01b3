/**
 * The resolver contract of the hardened fetch and the choice of the runtime's own resolver.
 *
 * The runtime resolvers are found by feature detection on `globalThis` (no static import of
 * `node:*` or use of the `Deno` namespace types), so a Workers bundle that includes this file
 * pulls in nothing runtime-specific and simply reports that DNS checks are unavailable.
 *
 * @module
 */
import { denoResolver } from "./resolve_deno.ts";
import { nodeResolver } from "./resolve_node.ts";

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
 */
export type Resolver = (
  hostname: string,
  options?: { readonly signal?: AbortSignal },
) => Promise<readonly string[]>;

/** Where the resolver used by a `secureFetch` function comes from. */
export type ResolverSource = "injected" | "deno" | "node" | "none";

/** The resolver of the current runtime (Deno, then Node/Bun), or `undefined` on Workers. */
export function runtimeResolver(): { resolve: Resolver; source: "deno" | "node" } | undefined {
  const deno = denoResolver();
  if (deno !== undefined) return { resolve: deno, source: "deno" };
  const node = nodeResolver();
  if (node !== undefined) return { resolve: node, source: "node" };
  return undefined;
}
