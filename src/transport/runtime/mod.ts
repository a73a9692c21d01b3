/**
 * The choice of the runtime's own resolver. The resolvers are found by feature detection on
 * `globalThis` (no static import of `node:*` or use of the `Deno` namespace types), so a
 * Workers bundle that includes this file pulls in nothing runtime-specific and simply reports
 * that DNS checks are unavailable.
 *
 * @module
 */
import type { RuntimePinning } from "../pinning.ts";
import type { Resolver } from "../resolver.ts";
import { denoResolver } from "./deno.ts";
import { bunPinning } from "./bun_pinning.ts";
import { denoPinning } from "./deno_pinning.ts";
import { nodeResolver } from "./node.ts";
import { nodePinning } from "./node_pinning.ts";

/**
 * The resolver of the current runtime (Deno, then Node/Bun), or `undefined` on Workers.
 *
 * @category Transport
 */
export function runtimeResolver(): { resolve: Resolver; source: "deno" | "node" } | undefined {
  const deno = denoResolver();
  if (deno !== undefined) return { resolve: deno, source: "deno" };
  const node = nodeResolver();
  if (node !== undefined) return { resolve: node, source: "node" };
  return undefined;
}

/**
 * How the current runtime pins connections to checked addresses (Deno, Bun, Node), or
 * `undefined` where it cannot (Workers, or a Node whose bundled undici is not major 6).
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return denoPinning() ?? bunPinning() ?? nodePinning();
}
