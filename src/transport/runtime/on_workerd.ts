/**
 * The npm package's runtime module under the `workerd`, `worker` and `browser` export conditions
 * and the `default`: no resolver and no pinning (Workers have no DNS API; `fetch` connects on
 * its own), which `describe()` reports as `unavailable`. Imports nothing.
 *
 * @module
 */
import type { RuntimePinning } from "../pinning.ts";
import type { RuntimeResolver } from "./selection.ts";

/**
 * No resolver.
 *
 * @category Transport
 */
export function runtimeResolver(): RuntimeResolver | undefined {
  return undefined;
}

/**
 * No pinning.
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return undefined;
}
