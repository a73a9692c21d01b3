/**
 * The runtime's resolver and pinning, as the sources choose them (JSR, `deno run`, and the
 * sources run in place by Bun or Node): by feature detection on `globalThis`, with no import of
 * `node:*`, `undici` or the `Deno` namespace types, so a Workers bundle of the sources pulls in
 * nothing runtime-specific and reports that DNS checks are unavailable. Pinning here is Deno's
 * or Bun's; Node's needs `undici`: the npm package selects it by condition, and Node running the
 * sources through `scripts/node/register_deps.mjs` is given `on_node.ts` in place of this file.
 *
 * The npm package does not ship this choice: `scripts/build_npm.ts` writes this module as a
 * re-export of the package's `#transport-runtime` import, whose export conditions select
 * `on_workerd.ts` (`workerd`, `worker`, `browser`, and the `default`), `on_deno.ts`,
 * `on_bun.ts` or `on_node.ts` (see `RUNTIME_CONDITIONS` in `fixtures/package/package_graph.ts`).
 * Every one of them exports the same two functions ({@link RuntimeSelection}).
 *
 * @module
 */
import type { RuntimePinning } from "../pinning.ts";
import { denoResolver } from "./deno.ts";
import { bunPinning } from "./bun_pinning.ts";
import { denoPinning } from "./deno_pinning.ts";
import { nodeResolver } from "./node.ts";
import type { RuntimeResolver, RuntimeSelection } from "./selection.ts";

export type { RuntimeResolver, RuntimeSelection };

/**
 * The resolver of the current runtime (Deno, then Node/Bun), or `undefined` on Workers.
 *
 * @category Transport
 */
export function runtimeResolver(): RuntimeResolver | undefined {
  const deno = denoResolver();
  if (deno !== undefined) return { resolve: deno, source: "deno" };
  const node = nodeResolver();
  if (node !== undefined) return { resolve: node, source: "node" };
  return undefined;
}

/**
 * How the current runtime pins connections to checked addresses (Deno, Bun), or `undefined`
 * where the sources cannot (Workers; Node, which pins through `on_node.ts` and `undici`).
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return denoPinning() ?? bunPinning();
}
