/**
 * The npm package's runtime module under the `deno` export condition: `Deno.resolveDns` and the
 * in-process CONNECT proxy (the same shims the sources use).
 *
 * @module
 */
import type { RuntimePinning } from "../pinning.ts";
import { denoResolver } from "./deno.ts";
import { denoPinning } from "./deno_pinning.ts";
import type { RuntimeResolver } from "./selection.ts";

/**
 * Deno's resolver.
 *
 * @category Transport
 */
export function runtimeResolver(): RuntimeResolver | undefined {
  const resolve = denoResolver();
  return resolve === undefined ? undefined : { resolve, source: "deno" };
}

/**
 * Deno's pinning.
 *
 * @category Transport
 */
export function runtimePinning(): RuntimePinning | undefined {
  return denoPinning();
}
