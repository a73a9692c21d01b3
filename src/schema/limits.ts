import type { JsonErrorCode } from "../identity/errors.ts";
import type { JsonLimits } from "../identity/json.ts";
import type { SchemaLimits } from "./types.ts";

/**
 * Default cost budgets for one schema. The largest real schema seen (89 tools across ten public
 * servers) is 5.4 KiB, 264 nodes and JSON depth 11, so each default leaves a wide margin while
 * keeping the worst case cheap to check.
 *
 * @category Schema profile
 */
export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = Object.freeze({
  maxBytes: 64 * 1024,
  maxDepth: 64,
  maxNodes: 10_000,
  maxEnumLength: 1_024,
  maxPatternLength: 256,
});

/**
 * Default bounds on one validated value (a tool's arguments or structured result), applied
 * before the validator walks it: 64 KiB of canonical JSON, depth 64, 10,000 nodes.
 *
 * @category Schema profile
 */
export const DEFAULT_VALUE_LIMITS: JsonLimits = Object.freeze({
  maxBytes: 64 * 1024,
  maxDepth: 64,
  maxNodes: 10_000,
});

/**
 * Default for `maxEvaluations`: most units of work in one validation, a unit being about one
 * subschema evaluation (the charges are `COSTS` in `costs.ts`). Ordinary values need far
 * fewer: 1,000 paragraph blocks for notion's `API-patch-block-children` (137 KB of JSON, twice
 * the default value budget) take 78,008. A schema whose in-place references fan out (`a` →
 * `anyOf` [`b`, `b`] → ...) would otherwise take time exponential in its length.
 *
 * @category Schema profile
 */
export const DEFAULT_MAX_EVALUATIONS = 100_000;

/** The budget each `canonicalize` bound refusal stands for. */
const BUDGET_KEYWORDS: Partial<Record<JsonErrorCode, "maxBytes" | "maxDepth" | "maxNodes">> = {
  json_too_large: "maxBytes",
  json_too_deep: "maxDepth",
  json_too_many_nodes: "maxNodes",
};

/**
 * What a `canonicalize` refusal of a schema or value says: the budget it exceeded (or, for a
 * value that is not JSON at all, the refusal's own code as the keyword) and where. Byte and
 * node budgets bound the whole value, so they point at the root; depth and non-JSON members
 * have a place.
 *
 * @category Schema profile
 */
export function budgetRefusal(
  error: { readonly code: JsonErrorCode; readonly path: string },
): { budget: boolean; keyword: string; path: string } {
  const budget = BUDGET_KEYWORDS[error.code];
  const whole = budget === "maxBytes" || budget === "maxNodes";
  return {
    budget: budget !== undefined,
    keyword: budget ?? error.code,
    path: whole ? "" : error.path,
  };
}
