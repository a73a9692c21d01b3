/**
 * The keyword table of `sluice.schema/v1`: every keyword the profile knows, how its value is
 * shaped, and whether it is admitted. Anything not listed is unsupported, `x-*` included.
 *
 * @module
 */

/** How a keyword's value is read. */
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

/** What the profile does with one keyword. */
export interface KeywordRule {
  /** How its value is read, and which subschemas it holds. */
  readonly kind: KeywordKind;
  /** Whether the profile admits it. */
  readonly admitted: boolean;
}

const admitted = (kind: KeywordKind): KeywordRule => ({ kind, admitted: true });
const rejected = (kind: KeywordKind): KeywordRule => ({ kind, admitted: false });

/**
 * Every keyword the profile knows. Keywords that validate (applicators and assertions) are
 * admitted on evidence: found in a captured real server's schemas, emitted by zod 4's
 * `toJSONSchema` (the generator behind the TypeScript MCP SDK and fastmcp), or the mirror of an
 * admitted bound (`exclusiveMaximum` beside `exclusiveMinimum`). Annotations of the 2020-12
 * meta-data and content vocabularies are admitted as a group: they are kept and never applied.
 * Everything else is rejected: identifiers and dynamic references, conditionals, keywords that
 * depend on other keywords' evaluation (`unevaluated*`, `contains` counts), and keywords no
 * captured server or zod emits.
 */
export const KEYWORDS: Readonly<Record<string, KeywordRule>> = Object.freeze({
  // Core.
  $schema: admitted("core"),
  $ref: admitted("core"),
  $defs: admitted("schemaMap"),
  definitions: admitted("schemaMap"),
  $comment: admitted("annotation"),
  $id: rejected("core"),
  $anchor: rejected("core"),
  $dynamicRef: rejected("core"),
  $dynamicAnchor: rejected("core"),
  $recursiveRef: rejected("core"),
  $recursiveAnchor: rejected("core"),
  $vocabulary: rejected("core"),
  id: rejected("core"),
  // Applicators.
  properties: admitted("schemaMap"),
  additionalProperties: admitted("schema"),
  propertyNames: admitted("schema"),
  items: admitted("schema"),
  anyOf: admitted("schemaArray"),
  oneOf: admitted("schemaArray"),
  allOf: admitted("schemaArray"),
  not: admitted("schema"),
  patternProperties: rejected("schemaMap"),
  prefixItems: admitted("schemaArray"),
  additionalItems: rejected("schema"),
  contains: rejected("schema"),
  if: rejected("schema"),
  then: rejected("schema"),
  else: rejected("schema"),
  dependentSchemas: rejected("schemaMap"),
  dependencies: rejected("schemaMap"),
  unevaluatedProperties: rejected("schema"),
  unevaluatedItems: rejected("schema"),
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
  uniqueItems: rejected("value"),
  minProperties: rejected("value"),
  maxProperties: rejected("value"),
  minContains: rejected("value"),
  maxContains: rejected("value"),
  dependentRequired: rejected("value"),
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
  contentSchema: rejected("schema"),
});

/** The rule for `keyword`, or `undefined` when the profile does not know it. */
export function keywordRule(keyword: string): KeywordRule | undefined {
  return Object.hasOwn(KEYWORDS, keyword) ? KEYWORDS[keyword] : undefined;
}
