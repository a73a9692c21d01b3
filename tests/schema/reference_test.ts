/**
 * The compiled validator against the reference (`@cfworker/json-schema` run as sluice ran it
 * before, tests/support/reference_validator.ts): over generated schemas that use every
 * applicator and assertion the profile admits, and generated values, both answer the same
 * verdict and the same errors (code, pointer, keyword); then the same on the large inputs of
 * the validation benchmark, whose timings `deno task bench validation` reports.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkSchema, compileSchema } from "../../mod.ts";
import { referenceValidator } from "../support/reference_validator.ts";
import {
  attendeesArgument,
  createEventSchema,
  manyPatternsArgument,
  manyPatternsSchema,
} from "../../fixtures/validation_inputs.ts";

/** Member names, some needing pointer escapes, one that is a prototype's name. */
const NAMES = ["a", "b", "c", "d/e", "f~g", "__proto__", "sp ace%#"] as const;
/** Patterns RE2 and the runtime's backtracking `RegExp` read alike (and answer fast). */
const PATTERNS = ["^a", "b$", "^[a-c]*$", "a|b", "\\d", "^.{2}$", "é", "^(?:ab)+$", "[^a]"];

const count = fc.integer({ min: 0, max: 3 });
const number = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom(0.5, 1.5, -0.25));

/** Generated values: small, over the names the schemas use, with multi-unit characters. */
const valueArb = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("", "a", "ab", "b", "abc", "1", "é", "😀", "😀a", "ba", "😀😀😀"),
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Generated schemas using every admitted applicator and assertion, and `$ref` into `$defs`. */
const schemaArb = fc.letrec((tie) => {
  const sub = tie("schema");
  const keyword = fc.oneof(
    fc.record({ type: fc.constantFrom("string", "number", "integer", "object", "array", "null") }),
    fc.record({ type: fc.constantFrom(["string", "null"], ["integer", "boolean"]) }),
    fc.record({ const: valueArb }),
    fc.record({ enum: fc.array(valueArb, { minLength: 1, maxLength: 3 }) }),
    fc.record({ required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 }) }),
    fc.record({ properties: fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 3 }) }),
    fc.record({
      patternProperties: fc.dictionary(fc.constantFrom(...PATTERNS), sub, { maxKeys: 2 }),
    }),
    fc.record({ additionalProperties: sub }),
    fc.record({ unevaluatedProperties: sub }),
    fc.record({ propertyNames: sub }),
    fc.record({ minProperties: count }),
    fc.record({ maxProperties: count }),
    fc.record({
      dependentRequired: fc.dictionary(
        fc.constantFrom(...NAMES),
        fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 }),
        { maxKeys: 2 },
      ),
    }),
    fc.record({ dependentSchemas: fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 2 }) }),
    fc.record({ items: sub }),
    fc.record({ prefixItems: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
    fc.record({ unevaluatedItems: sub }),
    fc.record(
      { contains: sub, minContains: count, maxContains: count },
      { requiredKeys: ["contains"] },
    ),
    fc.record({ minItems: count }),
    fc.record({ maxItems: count }),
    fc.record({ minimum: number }),
    fc.record({ maximum: number }),
    fc.record({ exclusiveMinimum: number }),
    fc.record({ exclusiveMaximum: number }),
    fc.record({ multipleOf: fc.constantFrom(1, 2, 0.5, 0.1) }),
    fc.record({ minLength: count }),
    fc.record({ maxLength: count }),
    fc.record({ pattern: fc.constantFrom(...PATTERNS) }),
    fc.record({ anyOf: fc.array(sub, { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(sub, { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(sub, { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: sub }),
    fc.record({ if: sub, then: sub, else: sub }, { requiredKeys: ["if"] }),
    fc.record({ $ref: fc.constantFrom("#/$defs/d", "#/$defs/e") }),
  );
  // An in-place applicator beside an `unevaluated*` keyword: what reads annotations.
  const annotated = fc.record({
    inPlace: fc.oneof(
      fc.record({ allOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ anyOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ oneOf: fc.array(sub, { minLength: 1, maxLength: 2 }) }),
      fc.record({ $ref: fc.constantFrom("#/$defs/d", "#/$defs/e") }),
      fc.record({ if: sub, then: sub }),
      fc.record({
        dependentSchemas: fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 1 }),
      }),
    ),
    more: fc.array(keyword, { maxLength: 2 }),
    reader: fc.oneof(
      fc.record({ unevaluatedProperties: sub }),
      fc.record({ unevaluatedItems: sub }),
    ),
  }).map(({ inPlace, more, reader }) => Object.assign({}, ...more, inPlace, reader));
  return {
    schema: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.boolean(),
      fc.array(keyword, { maxLength: 3 }).map((parts) => Object.assign({}, ...parts)),
      annotated,
    ),
  };
});

const rootArb = fc.record({
  root: fc.array(schemaArb.schema, { minLength: 1, maxLength: 3 }),
  d: schemaArb.schema,
  e: schemaArb.schema,
}).map(({ root, d, e }) => {
  const schema: Record<string, unknown> = Object.assign(
    {},
    ...root.map((part) => typeof part === "object" ? part : { not: { const: part } }),
  );
  schema.$defs = { d, e };
  return schema;
});

Deno.test("the compiled validator answers what the reference answers, errors included", () => {
  let compared = 0;
  let invalid = 0;
  let tracked = 0;
  fc.assert(
    fc.property(rootArb, fc.array(valueArb, { minLength: 1, maxLength: 4 }), (schema, values) => {
      if (!checkSchema(schema).ok) return;
      const validate = compileSchema(schema, { maxEvaluations: 10_000_000 });
      const reference = referenceValidator(schema);
      const text = JSON.stringify(schema);
      if (text.includes("unevaluated")) tracked++;
      for (const value of values) {
        const expected = reference(value);
        assert.deepEqual(validate(value), expected, `${text}\n${JSON.stringify(value)}`);
        compared++;
        if (!expected.valid) invalid++;
      }
    }),
    { numRuns: 6_000 },
  );
  // Both verdicts, and the annotation keywords, must be exercised or this proves little.
  assert.ok(
    compared > 3_000 && invalid > 500 && compared - invalid > 500,
    `${compared}/${invalid}`,
  );
  assert.ok(tracked > 300, `${tracked} schemas with unevaluated*`);
});

Deno.test("the benchmark's 64 KiB arguments: the same verdicts and errors as the reference", () => {
  const schema = createEventSchema();
  const validate = compileSchema(schema);
  const reference = referenceValidator(schema);
  const valid = attendeesArgument();
  assert.deepEqual(validate(valid), { valid: true });
  assert.deepEqual(reference(valid), { valid: true });
  // Broken emails, a wrong type and an unexpected member, spread over the array.
  const broken = structuredClone(valid) as { attendees: Record<string, unknown>[] };
  for (const index of [0, 17, 640, broken.attendees.length - 1]) {
    broken.attendees[index].email = "not an email";
  }
  broken.attendees[900].optional = "yes";
  broken.attendees[901].extra = 1;
  delete broken.attendees[902].email;
  const result = validate(broken);
  assert.equal(result.valid, false);
  assert.deepEqual(result, reference(broken));
  assert.ok(!result.valid && result.errors.some((error) => error.path === "/attendees/640/email"));

  const patterned = manyPatternsSchema();
  assert.equal(checkSchema(patterned).ok, true);
  const argument = manyPatternsArgument(12);
  // Within a budget large enough for the reference's work, and on the default one.
  const generous = compileSchema(patterned, { maxEvaluations: 10_000_000 });
  const expected = referenceValidator(patterned)(argument);
  assert.deepEqual(generous(argument), expected);
  const withBad = { ...argument, p0_zz: 1 };
  assert.deepEqual(generous(withBad), referenceValidator(patterned)(withBad));
  assert.equal(generous(withBad).valid, false);
});
