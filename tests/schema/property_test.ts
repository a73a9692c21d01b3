/**
 * Properties of the profile over generated schemas and values (fast-check): the checker and the
 * validator never throw, a checked schema always compiles, and no validation result carries a
 * string from the value.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkSchema, compileSchema, type ValidationResult } from "../../mod.ts";

const MARK = "\u2603mark";

/** Keyword values: mostly well shaped, sometimes not, so both verdicts are exercised. */
const scalar = fc.oneof(
  fc.constantFrom("string", "number", "integer", "object", "array", "boolean", "null"),
  fc.integer({ min: -3, max: 5 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("^[a-z]+$", "^(a+)+$", "a|b", "(", "^\\d{2,}$"),
);

const schemaArb = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.dictionary(
      fc.constantFrom(
        "type",
        "properties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "required",
        "enum",
        "const",
        "minimum",
        "maxLength",
        "pattern",
        "additionalProperties",
        "propertyNames",
        "prefixItems",
        "description",
        "default",
        "format",
        "$ref",
        "x-extra",
        "if",
      ),
      fc.oneof(
        scalar,
        tie("schema"),
        fc.array(tie("schema"), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom("a", "b", "x-c", "$ref"), tie("schema"), { maxKeys: 3 }),
        fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 3 }),
        fc.constantFrom("#/$defs/d", "#/$defs/missing", "#"),
      ),
      { maxKeys: 5 },
    ),
  ),
}));

const rootArb = fc.tuple(schemaArb.schema, fc.option(schemaArb.schema, { nil: undefined })).map((
  [schema, definition],
) => {
  const root = typeof schema === "object" ? { ...schema } : { type: "object" };
  if (definition !== undefined) (root as Record<string, unknown>).$defs = { d: definition };
  return root;
});

/** Values whose every string carries MARK. */
const valueArb = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 6 }).map((text) => MARK + text),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "x-c"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

function wellFormed(result: ValidationResult): void {
  if (result.valid) return;
  assert.ok(result.errors.length > 0);
  for (const error of result.errors) {
    assert.ok(error.code === "value_invalid" || error.code === "value_over_budget");
    assert.equal(typeof error.keyword, "string");
    assert.ok(error.path === "" || error.path.startsWith("/"));
  }
}

Deno.test("checkSchema never throws; a checked schema compiles; validation never throws or leaks", () => {
  let accepted = 0;
  fc.assert(
    fc.property(rootArb, fc.array(valueArb, { minLength: 1, maxLength: 3 }), (schema, values) => {
      const result = checkSchema(schema);
      if (!result.ok) {
        assert.ok(result.problems.length > 0);
        for (const problem of result.problems) assert.ok(problem.path.startsWith("/"));
        assert.throws(() => compileSchema(schema));
        return;
      }
      accepted++;
      const validate = compileSchema(schema);
      for (const value of values) {
        const outcome = validate(value);
        wellFormed(outcome);
        assert.equal(JSON.stringify(outcome).includes(MARK), false);
      }
    }),
    { numRuns: 1_000 },
  );
  // The generator must exercise both verdicts, or the property proves little.
  assert.ok(accepted > 50, `only ${accepted} generated schemas were accepted`);
});

const patternChars = fc.constantFrom(
  ..."ab-.,()[]{}|*+?^$\\dwsSuxpk<>=!:0123".split(""),
  "(?:",
  "(?<n>",
  "[^",
  "\\u{1F600}",
  "\\p{L}",
  "{2}",
  "{1,}",
);
const patternArb = fc.array(patternChars, { maxLength: 14 }).map((parts) => parts.join(""));

Deno.test("the pattern check never throws, whatever the pattern", () => {
  fc.assert(
    fc.property(fc.oneof(patternArb, fc.string({ maxLength: 20 })), (pattern) => {
      const result = checkSchema({ type: "string", pattern });
      if (!result.ok) assert.equal(result.problems[0].path, "/pattern");
    }),
    { numRuns: 3_000 },
  );
});

Deno.test("an admitted pattern matches exactly as the raw expression on short strings", () => {
  let admitted = 0;
  fc.assert(
    fc.property(
      patternArb,
      fc.array(fc.string({ unit: fc.constantFrom(...Array.from("ab-.,=1 😀\n")), maxLength: 12 }), {
        minLength: 1,
        maxLength: 4,
      }),
      (pattern, texts) => {
        if (!checkSchema({ type: "string", pattern }).ok) return;
        admitted++;
        const raw = new RegExp(pattern, "u");
        const validate = compileSchema({ type: "string", pattern });
        for (const text of texts) assert.equal(validate(text).valid, raw.test(text), pattern);
      },
    ),
    { numRuns: 3_000 },
  );
  assert.ok(admitted > 300, `only ${admitted} generated patterns were admitted`);
});
