/**
 * The `schema` stage of the code catalog (the schema profile); `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `schema` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const SCHEMA_CODES = {
  schema_dialect_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A root `$schema` naming a dialect whose semantics differ, or any nested `$schema`.",
  },
  schema_enum_too_long: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "An `enum` with more members than `maxEnumLength`.",
  },
  schema_keyword_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A keyword's value has the wrong JSON type or shape.",
  },
  schema_keyword_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A keyword outside the profile, `x-*` extensions included.",
  },
  schema_not_object: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The schema (or a subschema) is not a JSON object or boolean where one is required.",
  },
  schema_pattern_too_long: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A `pattern` longer than `maxPatternLength`.",
  },
  schema_pattern_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A `pattern` (or `patternProperties` name) that is not ECMA-262 with the `u` flag.",
  },
  schema_pattern_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "A valid pattern the linear-time engine (RE2) cannot run: backreferences, lookaround, modifier groups.",
  },
  schema_pattern_too_complex: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A pattern whose RE2 program is over 256 instructions (large counted repetitions).",
  },
  schema_mcp_header_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "An `x-mcp-header` declaration that breaks 2026-07-28's rules: that tool only is refused.",
  },
  schema_ref_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "`$ref` that is not a local reference into the root's definitions, or one that cannot resolve.",
  },
  schema_too_deep: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The schema's JSON nests deeper than `maxDepth`.",
  },
  schema_too_large: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The serialized schema is over `maxBytes`.",
  },
  schema_too_many_nodes: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "More JSON nodes than `maxNodes`.",
  },
  schema_unsupported: {
    stage: "schema",
    meaning: "`compileSchema` refused a schema; its `problems` say why.",
  },
  value_invalid: {
    stage: "schema",
    in: ["ValidationErrorCode"],
    meaning: "The value breaks a schema keyword.",
  },
  value_over_budget: {
    stage: "schema",
    in: ["ValidationErrorCode"],
    meaning: "The value is not plain JSON or is over its depth, node or byte budget.",
  },
} as const satisfies StageCodes<"schema">;
