/**
 * The npm package's runtime module under the `bun` export condition: `node:dns` lookups and the
 * CONNECT proxy Bun's `fetch` is pointed at.
 *
 * @module
 */
import { promises as dns } from "node:dns";
import type { RuntimePinning } from "../pinning.ts";
import { bunPinning } from "./bun_pinning.ts";
import { lookupResolver } from "./node.ts";
import type { RuntimeResolver } from "./selection.ts";

/**
 * Bun's resolver (`node:dns`).
 *
 * @category Transport
 */
export function runtimeResolver(): RuntimeResolver | undefined {
  return { resolve: lookupResolver(dns), source: "node" };
}

/**
 * Bun's pinning.
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return bunPinning();
}
