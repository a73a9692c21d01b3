/**
 * The reference the schema validator is compared with: `@cfworker/json-schema` 4.1.6 run the way
 * sluice ran it before it walked its own compiled tree (draft 2020-12, every error collected,
 * `format` left out since the profile treats it as an annotation), its errors shaped as sluice
 * shapes them (instance pointer decoded, deduplicated, sorted by pointer then keyword). It has no
 * work budget and runs patterns on the runtime's `RegExp`, so compare it on patterns both
 * engines read alike and on values the budget admits.
 */
import { Validator } from "@cfworker/json-schema";
import type { ValidationError, ValidationResult } from "../../mod.ts";

/** A deep copy of `schema` without `format` wherever it is a keyword. */
function withoutFormat(schema: unknown, keywordPlace = true): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutFormat(item, keywordPlace));
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keywordPlace && key === "format") continue;
    // Member names of these are data; their values are schemas again.
    const container = [
      "properties",
      "patternProperties",
      "dependentSchemas",
      "$defs",
      "definitions",
    ]
      .includes(key);
    const data = ["const", "enum", "default", "examples", "required", "dependentRequired"]
      .includes(key);
    copy[key] = data ? value : container ? mapValues(value) : withoutFormat(value);
  }
  return copy;
}

function mapValues(members: unknown): unknown {
  if (typeof members !== "object" || members === null) return members;
  return Object.fromEntries(
    Object.entries(members).map(([name, schema]) => [name, withoutFormat(schema)]),
  );
}

/** The reference validator for `schema` (already admitted by `checkSchema`). */
export function referenceValidator(schema: unknown): (value: unknown) => ValidationResult {
  const validator = new Validator(
    withoutFormat(structuredClone(schema)) as Record<string, unknown>,
    "2020-12",
    false,
  );
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return { valid: true };
    const seen = new Set<string>();
    const errors: ValidationError[] = [];
    for (const { instanceLocation, keyword } of result.errors) {
      const path = decodeURIComponent(instanceLocation.slice(1));
      if (seen.has(`${keyword}\u0000${path}`)) continue;
      seen.add(`${keyword}\u0000${path}`);
      errors.push({ code: "value_invalid", path, keyword });
    }
    errors.sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : a.keyword < b.keyword ? -1 : 1
    );
    return { valid: false, errors };
  };
}
