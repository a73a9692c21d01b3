/**
 * The npm package's runtime module under the `node` export condition: `node:dns` lookups and an
 * `undici` `Agent` that connects only to the checked addresses. Node-only code, imported
 * statically: no other runtime's bundle selects this file.
 *
 * @module
 */
import { promises as dns } from "node:dns";
import type { RuntimePinning } from "../pinning.ts";
import { lookupResolver } from "./node.ts";
import { nodePinning } from "./node_pinning.ts";
import type { RuntimeResolver } from "./selection.ts";

/**
 * Node's resolver (`node:dns`).
 *
 * @category Transport
 */
export function runtimeResolver(): RuntimeResolver | undefined {
  return { resolve: lookupResolver(dns), source: "node" };
}

/**
 * Node's pinning (`undici`), where Node's own undici is major 6.
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return nodePinning();
}
