/**
 * The keyword table of `sluice.schema/v1`: every keyword the profile knows, how its value is
 * shaped, and whether it is admitted. Anything not listed is unsupported, `x-*` included.
 *
 * @module
 */

/**
 * How a keyword's value is read.
 *
 * @category Schema profile
 */
export type KeywordKind =
  /** One subschema (object or boolean). */
  | "schema"
  /** An object whose members are subschemas; member names are data, not keywords. */
  | "schemaMap"
  /** A non-empty array of subschemas. */
  | "schemaArray"
  /** A value the validator compares against or counts with. */
  | "value"
  /** An annotation: kept, never applied, never asserted. */
  | "annotation"
  /** Reference machinery (`$schema`, `$ref`). */
  | "core";

/**
 * What the profile does with one keyword.
 *
 * @category Schema profile
 */
export type KeywordRule =
  | {
    /** How its value is read, and which subschemas it holds. */
    readonly kind: KeywordKind;
    /** The profile admits it. */
    readonly admitted: true;
    /**
     * Its subschemas apply to the same instance as the schema holding it (`allOf`, `if`,
     * `dependentSchemas`), rather than to a member of it.
     */
    readonly inPlace: boolean;
    /** New in 2019-09 or 2020-12: a draft-07 validator does not know it and ignores it. */
    readonly newInDraft2019: boolean;
  }
  | {
    /** How its value is read. */
    readonly kind: KeywordKind;
    /** The profile refuses it. */
    readonly admitted: false;
    /** Why, in sluice's words. */
    readonly reason: string;
  };

const admitted = (
  kind: KeywordKind,
  { inPlace = false, newInDraft2019 = false } = {},
): KeywordRule => ({ kind, admitted: true, inPlace, newInDraft2019 });
const rejected = (kind: KeywordKind, reason: string): KeywordRule => ({
  kind,
  admitted: false,
  reason,
});
const NEW = { newInDraft2019: true };
const IN_PLACE = { inPlace: true };

/**
 * Every keyword the profile knows. An applicator or assertion is admitted when the validator
 * (`tree.ts` and `walk.ts`) passes every case of the official JSON-Schema-Test-Suite (draft 2020-12) for
 * it that the profile admits, run through `compileSchema`
 * (`tests/schema/suite_test.ts`, counts in `docs/schema-profile.md`), and its cost is bounded
 * by the value and evaluation budgets. Annotations of the 2020-12 meta-data and content
 * vocabularies are kept and never applied. The refused ones carry their reason.
 *
 * @category Schema profile
 */
export const KEYWORDS: Readonly<Record<string, KeywordRule>> = Object.freeze({
  // Core.
  $schema: admitted("core"),
  $ref: admitted("core", IN_PLACE),
  $defs: admitted("schemaMap"),
  definitions: admitted("schemaMap"),
  $anchor: admitted("core", NEW),
  $comment: admitted("annotation"),
  $id: rejected("core", "changes the base URI every reference below it resolves against"),
  $dynamicRef: rejected("core", "resolved through the dynamic scope, not where it stands"),
  $dynamicAnchor: rejected("core", "only meaningful with $dynamicRef"),
  $recursiveRef: rejected("core", "2019-09's dynamic reference, not a 2020-12 keyword"),
  $recursiveAnchor: rejected("core", "2019-09's dynamic reference, not a 2020-12 keyword"),
  $vocabulary: rejected("core", "declares a meta-schema's vocabularies; tools send none"),
  id: rejected("core", "draft-04's $id"),
  // Applicators.
  properties: admitted("schemaMap"),
  patternProperties: admitted("schemaMap"),
  additionalProperties: admitted("schema"),
  propertyNames: admitted("schema"),
  items: admitted("schema"),
  prefixItems: admitted("schemaArray", NEW),
  contains: admitted("schema"),
  anyOf: admitted("schemaArray", IN_PLACE),
  oneOf: admitted("schemaArray", IN_PLACE),
  allOf: admitted("schemaArray", IN_PLACE),
  not: admitted("schema", IN_PLACE),
  if: admitted("schema", IN_PLACE),
  then: admitted("schema", IN_PLACE),
  else: admitted("schema", IN_PLACE),
  dependentSchemas: admitted("schemaMap", { inPlace: true, newInDraft2019: true }),
  unevaluatedProperties: admitted("schema", NEW),
  unevaluatedItems: admitted("schema", NEW),
  additionalItems: rejected("schema", "draft-07's tuple keyword, not a 2020-12 keyword"),
  dependencies: rejected("schemaMap", "draft-07's combined form, not a 2020-12 keyword"),
  // Validation.
  type: admitted("value"),
  enum: admitted("value"),
  const: admitted("value"),
  required: admitted("value"),
  minimum: admitted("value"),
  maximum: admitted("value"),
  exclusiveMinimum: admitted("value"),
  exclusiveMaximum: admitted("value"),
  multipleOf: admitted("value"),
  minLength: admitted("value"),
  maxLength: admitted("value"),
  pattern: admitted("value"),
  minItems: admitted("value"),
  maxItems: admitted("value"),
  minProperties: admitted("value"),
  maxProperties: admitted("value"),
  minContains: admitted("value", NEW),
  maxContains: admitted("value", NEW),
  dependentRequired: admitted("value", NEW),
  uniqueItems: rejected(
    "value",
    "the validator compares every pair of items and records every duplicate pair: quadratic " +
      "time and memory in the array's length, outside the evaluation budget",
  ),
  // Annotations (never applied). `format` is an annotation, as in 2020-12's default vocabulary.
  title: admitted("annotation"),
  description: admitted("annotation"),
  default: admitted("annotation"),
  examples: admitted("annotation"),
  deprecated: admitted("annotation"),
  readOnly: admitted("annotation"),
  writeOnly: admitted("annotation"),
  format: admitted("annotation"),
  contentEncoding: admitted("annotation"),
  contentMediaType: admitted("annotation"),
  contentSchema: rejected(
    "schema",
    "an annotation holding a schema that no validator applies or resolves references in",
  ),
});

/**
 * The rule for `keyword`, or `undefined` when the profile does not know it.
 *
 * @category Schema profile
 */
export function keywordRule(keyword: string): KeywordRule | undefined {
  return Object.hasOwn(KEYWORDS, keyword) ? KEYWORDS[keyword] : undefined;
}
