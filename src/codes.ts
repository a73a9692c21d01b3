/**
 * Every code sluice returns in an envelope or throws, grouped by pipeline stage, each with a
 * one-line meaning. The code unions of the modules are checked against this catalog.
 *
 * @module
 */
import { SluiceError } from "./errors.ts";

/**
 * The stable code of a thrown value sluice made (any `SluiceError`, the deadline's stop),
 * or `undefined` for anything else.
 *
 * @example
 * ```ts
 * import { codeOf, SluiceError } from "@sluice/mcp";
 * codeOf(new SluiceError("json_cycle", "a cycle")); // "json_cycle"
 * codeOf(new Error("other")); // undefined
 * ```
 *
 * @param error any thrown value
 */
export function codeOf(error: unknown): string | undefined {
  return error instanceof SluiceError ? error.code : undefined;
}
