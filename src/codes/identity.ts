/**
 * The `identity` stage of the code catalog (canonical JSON and identity hashes);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `identity` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const IDENTITY_CODES = {
  json_bigint: { stage: "identity", meaning: "A value is a bigint." },
  json_cycle: { stage: "identity", meaning: "A value contains itself." },
  json_function: { stage: "identity", meaning: "A value is a function." },
  json_lone_surrogate: { stage: "identity", meaning: "A string holds a lone UTF-16 surrogate." },
  json_non_finite_number: { stage: "identity", meaning: "A number is NaN or infinite." },
  json_non_plain_object: {
    stage: "identity",
    meaning: "An object is not a plain object or array (a Date, a Map, a class instance).",
  },
  json_symbol: { stage: "identity", meaning: "A value is a symbol." },
  json_too_deep: { stage: "identity", meaning: "The value nests deeper than `maxDepth`." },
  json_too_large: { stage: "identity", meaning: "The canonical text is over `maxBytes`." },
  json_too_many_nodes: {
    stage: "identity",
    meaning: "The value has more nodes than `maxNodes`.",
  },
  json_undefined: {
    stage: "identity",
    meaning: "A value is `undefined` where JSON needs a value.",
  },
} as const satisfies StageCodes<"identity">;
