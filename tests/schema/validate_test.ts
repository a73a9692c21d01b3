import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkSchema,
  compileSchema,
  SchemaUnsupportedError,
  type SchemaValidator,
  SluiceError,
  type ValidationResult,
} from "../../mod.ts";
import { canonicalForm } from "../../src/identity/canonicalize.ts";
import { validateCanonical } from "../../src/schema/compile.ts";

const SENTINEL = "SENTINEL-7f3a9c";

function errorsOf(result: ValidationResult) {
  return result.valid ? [] : result.errors;
}

/** What a validation past its work budget answers. */
const OUT_OF_WORK = [{ code: "value_over_budget", path: "", keyword: "maxEvaluations" }];

/** An object of `count` members `k0`, `k1`, ..., each 0. */
function members(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 0]));
}

const tool = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, pattern: "^/" },
    mode: { enum: ["text", "binary"], default: "text" },
    count: { type: "integer", minimum: 1, maximum: 10, default: 3 },
    "a/b~c": { type: "boolean" },
    tags: { type: "array", items: { type: "string", maxLength: 3 }, maxItems: 2 },
  },
  required: ["path"],
  additionalProperties: false,
};

Deno.test("valid values pass; nothing is coerced and defaults are never applied", () => {
  const validate = compileSchema(tool);
  const args = { path: "/tmp" };
  assert.deepEqual(validate(args), { valid: true });
  // cfworker does not fill defaults: the value is untouched and still has no `mode`/`count`.
  assert.deepEqual(args, { path: "/tmp" });
  assert.deepEqual(validate({ path: "/tmp", count: 2, tags: ["a", "b"] }), { valid: true });
  // "3" is not coerced into the integer 3.
  assert.deepEqual(errorsOf(validate({ path: "/tmp", count: "3" })), [
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "/count", keyword: "type" },
  ]);
});

Deno.test("errors carry pointer and keyword, never the value or validator text", () => {
  const validate = compileSchema(tool);
  const result = validate({
    path: SENTINEL,
    mode: SENTINEL,
    count: 11,
    "a/b~c": SENTINEL,
    tags: [SENTINEL, "ok", "ok"],
    extra: SENTINEL,
  });
  const text = JSON.stringify(result);
  assert.equal(text.includes(SENTINEL), false);
  assert.equal(text.includes("Instance"), false);
  assert.equal(text.includes("match"), false);
  // Sorted by pointer, then keyword; parents' summary errors included.
  assert.deepEqual(errorsOf(result).map(({ path, keyword }) => `${path} ${keyword}`), [
    " additionalProperties",
    " properties",
    "/a~1b~0c type",
    "/count maximum",
    "/extra false",
    "/mode enum",
    "/path pattern",
    "/tags items",
    "/tags maxItems",
    "/tags/0 maxLength",
  ]);
  for (const error of errorsOf(result)) assert.equal(error.code, "value_invalid");
});

Deno.test("errors are deduplicated and pointers are decoded", () => {
  const validate = compileSchema({
    type: "object",
    properties: { "sp ace%#é": { type: "string" } },
    allOf: [{ required: ["x"] }, { required: ["x"] }],
  });
  const errors = errorsOf(validate({ "sp ace%#é": 1 }));
  // `required` fails twice (once per allOf branch) at the same place: reported once.
  assert.deepEqual(errors, [
    { code: "value_invalid", path: "", keyword: "allOf" },
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "", keyword: "required" },
    { code: "value_invalid", path: "/sp ace%#é", keyword: "type" },
  ]);
});

Deno.test("value budgets are checked before validation", () => {
  const validate = compileSchema({ type: "object" }, { valueLimits: { maxBytes: 100 } });
  assert.deepEqual(errorsOf(validate({ text: "x".repeat(200) })), [
    { code: "value_over_budget", path: "", keyword: "maxBytes" },
  ]);
  let deep: unknown = 1;
  for (let index = 0; index < 100_000; index++) deep = [deep];
  const defaults = compileSchema({});
  const [tooDeep] = errorsOf(defaults({ a: deep }));
  assert.equal(tooDeep.code, "value_over_budget");
  assert.equal(tooDeep.keyword, "maxDepth");
  assert.equal(tooDeep.path, "/a" + "/0".repeat(63));
  assert.deepEqual(errorsOf(defaults(Array.from({ length: 10_001 }, () => 0))), [
    { code: "value_over_budget", path: "", keyword: "maxNodes" },
  ]);
  assert.deepEqual(errorsOf(defaults({ big: "y".repeat(64 * 1024) })), [
    { code: "value_over_budget", path: "", keyword: "maxBytes" },
  ]);
  // Not plain JSON: refused with the identity code, never coerced.
  assert.deepEqual(errorsOf(defaults({ a: undefined })), [
    { code: "value_over_budget", path: "/a", keyword: "json_undefined" },
  ]);
  assert.deepEqual(errorsOf(defaults({ when: new Date(0) })), [
    { code: "value_over_budget", path: "/when", keyword: "json_non_plain_object" },
  ]);
  assert.deepEqual(errorsOf(defaults(10n)), [
    { code: "value_over_budget", path: "", keyword: "json_bigint" },
  ]);
});

Deno.test("$ref into $defs validates recursion", () => {
  const validate = compileSchema({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { root: { $ref: "#/definitions/node" } },
    definitions: {
      node: {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/definitions/node" } },
        },
        required: ["name"],
        additionalProperties: false,
      },
    },
  });
  const tree = { root: { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] } };
  assert.deepEqual(validate(tree), { valid: true });
  const broken = { root: { name: "a", children: [{ name: "b", children: [{ nom: "c" }] }] } };
  const paths = errorsOf(validate(broken)).map((error) => `${error.path} ${error.keyword}`);
  assert.ok(paths.includes("/root/children/0/children/0 required"));
  assert.ok(paths.includes("/root/children/0/children/0 additionalProperties"));
});

Deno.test("format is an annotation: never asserted", () => {
  const validate = compileSchema({
    type: "object",
    properties: {
      id: { type: "string", format: "uuid" },
      mail: { type: "string", format: "email" },
      link: { anyOf: [{ type: "string", format: "url" }] },
    },
  });
  // cfworker would reject all three; its `url` expression also backtracks exponentially.
  assert.deepEqual(validate({ id: "x", mail: "x", link: "http://" + "a".repeat(40) + "!" }), {
    valid: true,
  });
  // A property named `format` is data and still validated.
  const named = compileSchema({ properties: { format: { type: "string" } } });
  assert.equal(named({ format: 1 }).valid, false);
});

Deno.test("2020-12 semantics apply beside $ref", () => {
  const validate = compileSchema({
    $defs: { text: { type: "string" } },
    properties: { a: { $ref: "#/$defs/text", maxLength: 2 } },
  });
  assert.deepEqual(errorsOf(validate({ a: "abc" })), [
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "/a", keyword: "maxLength" },
  ]);
});

Deno.test("a schema outside the profile is refused with schema_unsupported", () => {
  assert.throws(
    () => compileSchema({ type: "object", "x-internal": true, uniqueItems: true }),
    (error: unknown) =>
      error instanceof SchemaUnsupportedError && error instanceof SluiceError &&
      error.code === "schema_unsupported" &&
      // The schema's own text stays out of the message; the problems carry it.
      !error.message.includes("x-internal") &&
      error.problems.map((problem) => problem.keyword).join() === "x-internal,uniqueItems",
  );
});

Deno.test("the compiled schema is the caller's, unchanged and not mutated", () => {
  const schema = {
    $defs: { s: { type: "string", format: "date" } },
    properties: { a: { $ref: "#/$defs/s" } },
  };
  const before = JSON.stringify(schema);
  const validate: SchemaValidator = compileSchema(Object.freeze(schema));
  validate({ a: "x" });
  assert.equal(JSON.stringify(schema), before);
  assert.deepEqual(Object.getOwnPropertyNames(schema.$defs.s), ["type", "format"]);
});

/** `depth` definitions, each an anyOf of two references to the next: 2^depth evaluations. */
function fanOut(depth: number) {
  const $defs: Record<string, unknown> = { [`d${depth}`]: { type: "string" } };
  for (let index = 0; index < depth; index++) {
    const next = { $ref: `#/$defs/d${index + 1}` };
    $defs[`d${index}`] = { anyOf: [next, next] };
  }
  return { type: "object", $defs, properties: { a: { $ref: "#/$defs/d0" } } };
}

Deno.test("validation work is bounded: a fanned-out schema is refused, not run for ever", () => {
  // 2^40 evaluations without the bound: this test would never finish.
  const validate = compileSchema(fanOut(40));
  for (const value of [{ a: 1 }, { a: "s" }]) {
    assert.deepEqual(validate(value), {
      valid: false,
      errors: [{ code: "value_over_budget", path: "", keyword: "maxEvaluations" }],
    });
  }
  // The same shape, small enough. Subschemas evaluated: the root, /properties/a, d0, then for
  // each of the 6 levels 2^(i+1) anyOf branches and as many evaluations of d(i+1):
  // 3 + 2 * (2 + 4 + 8 + 16 + 32 + 64) = 255, and one member of `properties` looked up: 256.
  const enough = compileSchema(fanOut(6), { maxEvaluations: 256 });
  assert.deepEqual(enough({ a: "s" }), { valid: true });
  // The count restarts with every validation.
  assert.deepEqual(enough({ a: "s" }), { valid: true });
  // A failing value also pays for each failure it records (two units each): 255 failures
  // here, one per subschema evaluated but the root.
  assert.deepEqual(errorsOf(enough({ a: 1 })), [
    { code: "value_over_budget", path: "", keyword: "maxEvaluations" },
  ]);
  const recorded = compileSchema(fanOut(6), { maxEvaluations: 256 + 2 * 255 });
  assert.deepEqual(errorsOf(recorded({ a: 1 })), [
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "/a", keyword: "$ref" },
    { code: "value_invalid", path: "/a", keyword: "anyOf" },
    { code: "value_invalid", path: "/a", keyword: "type" },
  ]);
  const short = compileSchema(fanOut(6), { maxEvaluations: 255 });
  assert.deepEqual(errorsOf(short({ a: "s" })), [
    { code: "value_over_budget", path: "", keyword: "maxEvaluations" },
  ]);
  // As with every other budget, NaN or a negative bound is a programming error, not "no bound".
  assert.throws(() => compileSchema(fanOut(40), { maxEvaluations: Number.NaN }), RangeError);
  assert.throws(() => compileSchema(fanOut(40), { maxEvaluations: -1 }), RangeError);
});

Deno.test("a property named __proto__ is data in schemas and values", () => {
  const schema = JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
  );
  const validate = compileSchema(schema);
  assert.deepEqual(validate(JSON.parse('{"__proto__":"x"}')), { valid: true });
  assert.deepEqual(errorsOf(validate(JSON.parse('{"__proto__":1}'))), [
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "/__proto__", keyword: "type" },
  ]);
  assert.deepEqual(errorsOf(validate({})), [
    { code: "value_invalid", path: "", keyword: "required" },
  ]);
});

Deno.test("the conditional and dependent applicators are bounded by the same budget", () => {
  // Each level references the next three times, through if, then and dependentSchemas:
  // 3^30 evaluations without the bound.
  const $defs: Record<string, unknown> = { d30: { type: "string" } };
  for (let index = 0; index < 30; index++) {
    const next = { $ref: `#/$defs/d${index + 1}` };
    $defs[`d${index}`] = { if: next, then: next, else: next, dependentSchemas: { a: next } };
  }
  const validate = compileSchema({ $defs, $ref: "#/$defs/d0" });
  assert.deepEqual(errorsOf(validate({ a: 1 })), [
    { code: "value_over_budget", path: "", keyword: "maxEvaluations" },
  ]);
  // An in-place loop through if/then is refused before it could run.
  assert.equal(checkSchema({ $defs: { a: { if: { $ref: "#/$defs/a" } } } }).ok, false);
  assert.equal(
    checkSchema({ $defs: { a: { dependentSchemas: { x: { $ref: "#/$defs/a" } } } } }).ok,
    false,
  );
});

Deno.test("pattern tests count against the evaluation budget", () => {
  // 200 patterns tried on each of 5,000 names is a million RE2 tests for one validation.
  const patternProperties = Object.fromEntries(
    Array.from({ length: 200 }, (_, index) => [`^p${index}-`, { type: "string" }]),
  );
  const names = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`n${index}`, 0]));
  const validate = compileSchema({ type: "object", patternProperties });
  assert.deepEqual(errorsOf(validate(names)), [
    { code: "value_over_budget", path: "", keyword: "maxEvaluations" },
  ]);
  assert.deepEqual(validate({ "p1-x": "s", other: 1 }), { valid: true });
});

Deno.test("a pattern test is charged by its size: one too large for the budget never runs", () => {
  // 254 RE2 instructions whose DFA cannot keep up with random a/b text: a test of 65,000
  // characters took 0.6-1 s before it was charged by characters times instructions.
  let seed = 7;
  const text = Array.from({ length: 65_000 }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 16) & 1 ? "a" : "b";
  }).join("");
  const validate = compileSchema({ type: "string", pattern: "a[ab]{250}$" });
  assert.deepEqual(errorsOf(validate(text)), OUT_OF_WORK);
  // The same pattern on a short string, and a small program on the long one, run.
  assert.deepEqual(validate("a" + "b".repeat(250)), { valid: true });
  assert.deepEqual(compileSchema({ type: "string", pattern: "^[ab]+$" })(text), { valid: true });
});

Deno.test("members a keyword walks without a subschema to run are charged too", () => {
  // 4,096 evaluations of `additionalProperties: true` (a boolean subschema costs nothing to
  // run) each walking 5,000 members: 20 million steps, which the count of subschema
  // evaluations alone let through in tens of seconds.
  const $defs: Record<string, unknown> = { d12: { additionalProperties: true } };
  for (let index = 0; index < 12; index++) {
    const next = { $ref: `#/$defs/d${index + 1}` };
    $defs[`d${index}`] = { allOf: [next, next] };
  }
  const validate = compileSchema({ $defs, $ref: "#/$defs/d0" });
  assert.deepEqual(errorsOf(validate(members(5_000))), OUT_OF_WORK);
  assert.deepEqual(validate({ k0: 0 }), { valid: true });
});

Deno.test("annotations carried up a long in-place chain are charged, not walked for ever", () => {
  // 200 nested allOf branches whose innermost marks 4,000 members evaluated: every level
  // merges them into its parent. On prototype chains each merge walked the chain per member
  // (seconds for one validation); on sets it is 800,000 steps, over the budget.
  const $defs: Record<string, unknown> = { d200: { unevaluatedProperties: true } };
  for (let index = 0; index < 200; index++) {
    $defs[`d${index}`] = { allOf: [{ $ref: `#/$defs/d${index + 1}` }] };
  }
  const validate = compileSchema({ $defs, $ref: "#/$defs/d0" });
  assert.deepEqual(errorsOf(validate(members(4_000))), OUT_OF_WORK);
  assert.deepEqual(validate({ k0: 0 }), { valid: true });
});

Deno.test("errors of the new keywords carry the instance pointer and the keyword, no value", () => {
  const validate = compileSchema({
    type: "object",
    properties: {
      kind: { enum: ["a", "b"] },
      list: { contains: { const: "needle" }, minContains: 2 },
    },
    if: { properties: { kind: { const: "a" } } },
    then: { required: ["list"] },
    dependentRequired: { kind: ["list"] },
    unevaluatedProperties: false,
  });
  assert.deepEqual(validate({ kind: "b", list: ["needle", "needle"] }), { valid: true });
  const result = validate({ kind: "a", list: ["needle"], secret: "s3cr3t" });
  assert.deepEqual(errorsOf(result), [
    { code: "value_invalid", path: "", keyword: "properties" },
    { code: "value_invalid", path: "", keyword: "unevaluatedProperties" },
    // A property whose subschema failed produced no annotation, so it is unevaluated too.
    { code: "value_invalid", path: "/list", keyword: "false" },
    { code: "value_invalid", path: "/list", keyword: "minContains" },
    { code: "value_invalid", path: "/secret", keyword: "false" },
  ]);
  assert.ok(
    !JSON.stringify(result).includes("needle") && !JSON.stringify(result).includes("s3cr3t"),
  );
});

Deno.test("the conformance suite's 2020-12 preservation schema is admitted and applied", () => {
  // The shape of `json-schema-2020-12-preservation` (conformance 0.2.0): $anchor in $defs,
  // allOf/anyOf, if/then/else beside additionalProperties: false.
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: {
        $anchor: "addressDef",
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } },
      },
    },
    properties: {
      name: { type: "string" },
      address: { $ref: "#/$defs/address" },
      contactMethod: { type: "string", enum: ["phone", "email"] },
      phone: { type: "string" },
      email: { type: "string" },
    },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    then: { required: ["phone"] },
    else: { required: ["email"] },
    additionalProperties: false,
  };
  const validate = compileSchema(schema);
  assert.deepEqual(validate({ contactMethod: "phone", phone: "1" }), { valid: true });
  assert.deepEqual(validate({ email: "a@b", address: { city: "x" } }), { valid: true });
  // cfworker names the conditional by `if`, and the `then` branch's failing `required`.
  assert.deepEqual(errorsOf(validate({ contactMethod: "phone", email: "a@b" })), [
    { code: "value_invalid", path: "", keyword: "if" },
    { code: "value_invalid", path: "", keyword: "required" },
  ]);
  assert.equal(validate({ phone: "1", extra: true }).valid, false);
  assert.equal(validate({ email: "a@b", address: { city: 1 } }).valid, false);
});

Deno.test("validating on a canonical form's counts answers what validating the value answers", () => {
  const validate = compileSchema(
    { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
    { valueLimits: { maxNodes: 6, maxDepth: 2, maxBytes: 40 } },
  );
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom("a", "b", "é"), tie("value"), { maxKeys: 3 }),
    ),
  })).value;
  let refused = 0;
  fc.assert(
    fc.property(value, (input) => {
      const form = canonicalForm(input);
      const expected = validate(input);
      assert.deepEqual(validateCanonical(validate, JSON.parse(form.text), form), expected);
      if (!expected.valid && expected.errors[0].code === "value_over_budget") refused++;
    }),
    { numRuns: 2_000 },
  );
  assert.ok(refused > 100, `${refused} refused on a budget`);
  // A validator sluice did not compile is simply called.
  const other = (input: unknown) => ({ valid: input === 1 } as ValidationResult);
  assert.deepEqual(validateCanonical(other, 1, canonicalForm(1)), { valid: true });
});
