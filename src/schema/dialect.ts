/**
 * Which root `$schema` dialects the profile admits. Validation always runs as 2020-12, so a
 * dialect is admitted only when every admitted keyword means the same in it.
 *
 * @module
 */

/**
 * A dialect the profile admits.
 *
 * @category Schema profile
 */
export type Dialect = "2020-12" | "draft-07";

const DIALECTS: Readonly<Record<string, Dialect>> = Object.freeze({
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2020-12/schema#": "2020-12",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "http://json-schema.org/draft-07/schema#": "draft-07",
});

/**
 * The dialect a root `$schema` URI names, or `undefined` for any other URI (draft-04, draft-06,
 * 2019-09, unknown). A schema without `$schema` is 2020-12, the MCP default.
 *
 * @category Schema profile
 */
export function dialectOf(uri: string): Dialect | undefined {
  return Object.hasOwn(DIALECTS, uri) ? DIALECTS[uri] : undefined;
}

/**
 * Keywords that may sit beside `$ref` in a draft-07 schema. Draft-07 ignores every sibling of
 * `$ref` while 2020-12 applies them; annotations change no validation outcome either way, so
 * only they (and the definition containers) are admitted there.
 *
 * @category Schema profile
 */
export const DRAFT07_REF_SIBLINGS: ReadonlySet<string> = new Set([
  "$ref",
  // Locations, not assertions: references resolve by pointer whatever sits beside them.
  "$schema",
  "$defs",
  "definitions",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "format",
]);
