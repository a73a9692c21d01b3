import assert from "node:assert/strict";
import {
  checkSchema,
  compileSchema,
  DEFAULT_SCHEMA_LIMITS,
  type SchemaProblem,
  type SchemaProblemCode,
} from "../../mod.ts";

const DRAFT07 = "http://json-schema.org/draft-07/schema#";
const D2020 = "https://json-schema.org/draft/2020-12/schema";

function problems(schema: unknown, options = {}): readonly SchemaProblem[] {
  const result = checkSchema(schema, options);
  return result.ok ? [] : result.problems;
}

function rejects(schema: unknown, code: SchemaProblemCode, keyword: string, path: string) {
  assert.deepEqual(problems(schema), [{ code, keyword, path }]);
}

Deno.test("admits a typical tool schema and returns the very same object", () => {
  const schema = {
    $schema: D2020,
    type: "object",
    title: "Read",
    description: "Read a file",
    properties: {
      path: { type: "string", minLength: 1, maxLength: 4096, format: "uri", pattern: "^/" },
      mode: { enum: ["text", "binary"], default: "text" },
      tail: { type: ["integer", "null"], minimum: 0, exclusiveMaximum: 1e6 },
      tags: { type: "array", items: { type: "string" }, minItems: 0, maxItems: 5 },
      options: {
        type: "object",
        additionalProperties: { const: true },
        propertyNames: { pattern: "^[a-z]+$" },
      },
      either: { anyOf: [{ type: "string" }, { type: "null" }], examples: ["a"] },
      one: { oneOf: [true, { type: "number", multipleOf: 0.5 }], deprecated: true },
      pair: { type: "array", prefixItems: [{ type: "string" }, false], items: false },
      blob: { type: "string", contentEncoding: "base64", contentMediaType: "image/png" },
      all: { allOf: [{ not: { type: "null" } }], readOnly: true, writeOnly: false },
    },
    required: ["path"],
    additionalProperties: false,
    $comment: "kept",
  };
  const result = checkSchema(schema);
  assert.equal(result.ok, true);
  assert.equal(result.ok && result.schema, schema);
});

Deno.test("property names are data, not keywords", () => {
  assert.deepEqual(
    problems({
      type: "object",
      properties: { "x-foo": { type: "string" }, $ref: {}, $id: true, enum: false },
      required: ["x-foo", "$ref"],
    }),
    [],
  );
});

Deno.test("unknown keywords and x-* extensions are rejected where they stand", () => {
  rejects(
    { type: "object", "x-fastmcp-wrap-result": true },
    "schema_keyword_unsupported",
    "x-fastmcp-wrap-result",
    "/x-fastmcp-wrap-result",
  );
  rejects(
    { type: "object", properties: { a: { type: "string", nullable: true } } },
    "schema_keyword_unsupported",
    "nullable",
    "/properties/a/nullable",
  );
  rejects({ items: { "x-a/b~c": 1 } }, "schema_keyword_unsupported", "x-a/b~c", "/items/x-a~1b~0c");
});

Deno.test("keywords outside the profile are rejected, each with its own path", () => {
  for (
    const keyword of [
      "dependencies",
      "additionalItems",
      "uniqueItems",
      "contentSchema",
      "nullable",
      "discriminator",
      "x-mcp-header", // unknown unless `mcpHeaders` is asked for
    ]
  ) {
    rejects(
      { properties: { a: { [keyword]: {} } } },
      "schema_keyword_unsupported",
      keyword,
      `/properties/a/${keyword}`,
    );
  }
});

Deno.test("reference machinery other than a local definition is rejected", () => {
  const defs = { $defs: { thing: { type: "string" } } };
  rejects(
    { ...defs, properties: { a: { $ref: "https://example.com/s.json" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects(
    { ...defs, properties: { a: { $ref: "#/properties/b" }, b: {} } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects(
    { ...defs, properties: { a: { $ref: "#" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects(
    { ...defs, properties: { a: { $ref: "#/$defs/missing" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects(
    { ...defs, properties: { a: { $ref: "#/$defs/thing/type" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects(
    { ...defs, properties: { a: { $ref: "other.json#/$defs/thing" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  // A definition name that URI or pointer encoding would alter cannot be referenced.
  rejects(
    { $defs: { "a b": {} }, items: { $ref: "#/$defs/a b" } },
    "schema_ref_unsupported",
    "$ref",
    "/items/$ref",
  );
  // `definitions` is a root container too; `$defs` refs do not reach into it.
  rejects(
    { definitions: { thing: {} }, items: { $ref: "#/$defs/thing" } },
    "schema_ref_unsupported",
    "$ref",
    "/items/$ref",
  );
  rejects(
    { items: { $dynamicRef: "#node" } },
    "schema_ref_unsupported",
    "$dynamicRef",
    "/items/$dynamicRef",
  );
  rejects(
    { items: { $recursiveRef: "#" } },
    "schema_ref_unsupported",
    "$recursiveRef",
    "/items/$recursiveRef",
  );
  rejects({ $id: "https://example.com/s.json" }, "schema_ref_unsupported", "$id", "/$id");
  // An anchor is a target only on a definition's root.
  rejects(
    { items: { $anchor: "node" }, properties: { a: { $ref: "#node" } } },
    "schema_ref_unsupported",
    "$ref",
    "/properties/a/$ref",
  );
  rejects({ items: { $anchor: "1node" } }, "schema_keyword_invalid", "$anchor", "/items/$anchor");
  rejects(
    { items: { $anchor: "a" }, not: { $anchor: "a" } },
    "schema_keyword_invalid",
    "$anchor",
    "/not/$anchor",
  );
  rejects(
    { $dynamicAnchor: "node" },
    "schema_ref_unsupported",
    "$dynamicAnchor",
    "/$dynamicAnchor",
  );
  rejects({ $vocabulary: {} }, "schema_ref_unsupported", "$vocabulary", "/$vocabulary");
  rejects({ $ref: 7 }, "schema_keyword_invalid", "$ref", "/$ref");
});

Deno.test("local references into root $defs and definitions are admitted", () => {
  assert.deepEqual(
    problems({
      $defs: {
        "node_1.v-2": { type: "object", properties: { next: { $ref: "#/$defs/node_1.v-2" } } },
      },
      definitions: { leaf: { type: "string" } },
      properties: {
        a: { $ref: "#/$defs/node_1.v-2" },
        b: { $ref: "#/definitions/leaf", description: "x" },
      },
    }),
    [],
  );
});

Deno.test("an anchor on a definition is a $ref target, and its loops are found", () => {
  assert.deepEqual(
    problems({
      $defs: { node: { $anchor: "node", type: "object", properties: { next: { $ref: "#node" } } } },
      properties: { a: { $ref: "#node" } },
    }),
    [],
  );
  assert.deepEqual(problems({ $defs: { a: { $anchor: "a", anyOf: [{ $ref: "#a" }] } } }), [
    { code: "schema_ref_unsupported", keyword: "$ref", path: "/$defs/a" },
  ]);
});

Deno.test("definitions only at the root", () => {
  rejects(
    { properties: { a: { $defs: { b: {} } } } },
    "schema_keyword_unsupported",
    "$defs",
    "/properties/a/$defs",
  );
  rejects(
    { items: { definitions: {} } },
    "schema_keyword_unsupported",
    "definitions",
    "/items/definitions",
  );
});

Deno.test("a definition that reaches itself without descending into the value is rejected", () => {
  rejects({ $defs: { a: { $ref: "#/$defs/a" } } }, "schema_ref_unsupported", "$ref", "/$defs/a");
  assert.deepEqual(
    problems({
      $defs: {
        a: { anyOf: [{ $ref: "#/$defs/b" }] },
        b: { not: { allOf: [{ $ref: "#/$defs/a" }] } },
        c: { $ref: "#/$defs/a" },
      },
    }),
    [
      { code: "schema_ref_unsupported", keyword: "$ref", path: "/$defs/a" },
      { code: "schema_ref_unsupported", keyword: "$ref", path: "/$defs/b" },
    ],
  );
  // Recursion through `properties` or `items` descends into the value, so it terminates.
  assert.deepEqual(problems({ $defs: { a: { items: { $ref: "#/$defs/a" } } } }), []);
});

Deno.test("$schema: 2020-12 and draft-07 admitted at the root, nested or other dialects rejected", () => {
  for (const uri of [D2020, D2020 + "#", DRAFT07, "http://json-schema.org/draft-07/schema"]) {
    assert.deepEqual(problems({ $schema: uri, type: "object" }), [], uri);
  }
  for (
    const uri of [
      "http://json-schema.org/draft-04/schema#",
      "http://json-schema.org/draft-06/schema#",
      "https://json-schema.org/draft/2019-09/schema",
      "http://json-schema.org/schema#",
      "https://json-schema.org/draft/2020-12/schema#/x",
      "https://example.com/my-dialect",
    ]
  ) {
    rejects({ $schema: uri, type: "object" }, "schema_dialect_unsupported", "$schema", "/$schema");
  }
  rejects(
    { properties: { a: { $schema: D2020 } } },
    "schema_dialect_unsupported",
    "$schema",
    "/properties/a/$schema",
  );
  rejects(
    { $defs: { a: { $schema: D2020 } } },
    "schema_dialect_unsupported",
    "$schema",
    "/$defs/a/$schema",
  );
  rejects({ $schema: 2020 }, "schema_keyword_invalid", "$schema", "/$schema");
});

Deno.test("draft-07: constructs whose meaning differs from 2020-12 are rejected", () => {
  // Array-form items is a tuple in draft-07 and not a schema at all in 2020-12.
  rejects(
    { $schema: DRAFT07, items: [{ type: "string" }] },
    "schema_dialect_unsupported",
    "items",
    "/items",
  );
  rejects({ items: [{ type: "string" }] }, "schema_keyword_invalid", "items", "/items");
  // `prefixItems` is unknown to draft-07 (ignored there), and beside it object-form `items`
  // covers every item in draft-07 but only those after the prefix in 2020-12.
  rejects(
    { $schema: DRAFT07, properties: { t: { prefixItems: [{ type: "string" }] } } },
    "schema_dialect_unsupported",
    "prefixItems",
    "/properties/t/prefixItems",
  );
  assert.deepEqual(problems({ $schema: D2020, prefixItems: [{ type: "string" }] }), []);
  // Draft-07 ignores assertions beside $ref; 2020-12 applies them.
  const refWithType = {
    $defs: { s: { type: "string" } },
    properties: { a: { $ref: "#/$defs/s", maxLength: 3 } },
  };
  rejects(
    { $schema: DRAFT07, ...refWithType },
    "schema_dialect_unsupported",
    "maxLength",
    "/properties/a/maxLength",
  );
  assert.deepEqual(problems({ $schema: D2020, ...refWithType }), []);
  // Annotations beside $ref change nothing, and a root $ref beside definitions is fine.
  assert.deepEqual(
    problems({
      $schema: DRAFT07,
      $ref: "#/definitions/Args",
      definitions: {
        Args: {
          type: "object",
          properties: { a: { $ref: "#/definitions/Args", description: "d", default: null } },
        },
      },
    }),
    [],
  );
  rejects(
    { $schema: DRAFT07, additionalItems: false },
    "schema_keyword_unsupported",
    "additionalItems",
    "/additionalItems",
  );
  rejects(
    { $schema: DRAFT07, dependencies: {} },
    "schema_keyword_unsupported",
    "dependencies",
    "/dependencies",
  );
});

Deno.test("keyword values of the wrong shape are rejected", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ type: "text" }, "type"],
    [{ type: [] }, "type"],
    [{ type: ["string", "string"] }, "type"],
    [{ required: "a" }, "required"],
    [{ required: ["a", "a"] }, "required"],
    [{ required: [1] }, "required"],
    [{ minimum: "1" }, "minimum"],
    [{ exclusiveMinimum: true }, "exclusiveMinimum"], // draft-04's boolean form
    [{ multipleOf: 0 }, "multipleOf"],
    [{ minLength: -1 }, "minLength"],
    [{ maxItems: 1.5 }, "maxItems"],
    [{ prefixItems: {} }, "prefixItems"],
    [{ prefixItems: [] }, "prefixItems"],
    [{ contentEncoding: 64 }, "contentEncoding"],
    [{ enum: "a" }, "enum"],
    [{ pattern: 1 }, "pattern"],
    [{ format: 1 }, "format"],
    [{ title: null }, "title"],
    [{ description: ["a"] }, "description"],
    [{ examples: "a" }, "examples"],
    [{ deprecated: 1 }, "deprecated"],
    [{ properties: [] }, "properties"],
    [{ anyOf: [] }, "anyOf"],
    [{ oneOf: {} }, "oneOf"],
    [{ items: "string" }, "items"],
    [{ additionalProperties: null }, "additionalProperties"],
    [{ $defs: [] }, "$defs"],
  ];
  for (const [schema, keyword] of cases) {
    rejects(schema, "schema_keyword_invalid", keyword, `/${keyword}`);
  }
  rejects({ properties: { a: "string" } }, "schema_not_object", "a", "/properties/a");
  rejects({ anyOf: [null] }, "schema_not_object", "0", "/anyOf/0");
  for (const root of [true, null, [], "schema", 1]) rejects(root, "schema_not_object", "", "");
});

Deno.test("every problem is reported, in document order", () => {
  assert.deepEqual(problems({ "x-a": 1, properties: { b: { uniqueItems: true } }, type: "nope" }), [
    { code: "schema_keyword_unsupported", keyword: "x-a", path: "/x-a" },
    {
      code: "schema_keyword_unsupported",
      keyword: "uniqueItems",
      path: "/properties/b/uniqueItems",
    },
    { code: "schema_keyword_invalid", keyword: "type", path: "/type" },
  ]);
});

Deno.test("budgets: a 1 MiB schema is refused as schema_too_large", () => {
  const big = { type: "object", description: "d".repeat(1024 * 1024) };
  rejects(big, "schema_too_large", "maxBytes", "");
  const manyProperties: Record<string, unknown> = {};
  for (let index = 0; index < 8_000; index++) {
    manyProperties[`p${index}`] = { type: "string", description: "x".repeat(120) };
  }
  rejects({ type: "object", properties: manyProperties }, "schema_too_large", "maxBytes", "");
  // Multi-byte text counts in UTF-8 bytes, not characters.
  rejects({ description: "é".repeat(40_000) }, "schema_too_large", "maxBytes", "");
  assert.deepEqual(
    problems({ description: "é".repeat(40_000) }, { limits: { maxBytes: 100_000 } }),
    [],
  );
});

Deno.test("budgets: a 10,000-deep schema is refused as schema_too_deep without recursing", () => {
  let deep: Record<string, unknown> = { type: "string" };
  for (let index = 0; index < 10_000; index++) deep = { items: deep };
  const result = checkSchema(deep);
  assert.equal(result.ok, false);
  const [problem] = result.ok ? [] : result.problems;
  assert.equal(problem.code, "schema_too_deep");
  assert.equal(problem.keyword, "maxDepth");
  // The pointer stops where the budget ran out: 64 levels, not 10,000.
  assert.equal(problem.path, "/items".repeat(DEFAULT_SCHEMA_LIMITS.maxDepth));
  assert.equal(checkSchema({ items: { items: {} } }, { limits: { maxDepth: 2 } }).ok, false);
  assert.equal(checkSchema({ items: { items: {} } }, { limits: { maxDepth: 3 } }).ok, true);
});

Deno.test("budgets: node count, enum length and pattern length", () => {
  const wide = { enum: Array.from({ length: 20_000 }, (_, index) => index) };
  rejects(wide, "schema_too_many_nodes", "maxNodes", "");
  rejects(
    { properties: { a: { enum: Array.from({ length: 1_025 }, (_, i) => i) } } },
    "schema_enum_too_long",
    "enum",
    "/properties/a/enum",
  );
  assert.deepEqual(problems({ enum: Array.from({ length: 1_024 }, (_, i) => i) }), []);
  // Five nodes: the object, the array and three numbers.
  assert.deepEqual(problems({ enum: [1, 2, 3] }, { limits: { maxNodes: 4 } }), [
    { code: "schema_too_many_nodes", keyword: "maxNodes", path: "" },
  ]);
  assert.deepEqual(problems({ enum: [1, 2, 3] }, { limits: { maxNodes: 5 } }), []);
  assert.deepEqual(problems({ enum: [1, 2, 3] }, { limits: { maxEnumLength: 2 } }), [
    { code: "schema_enum_too_long", keyword: "enum", path: "/enum" },
  ]);
  rejects({ pattern: "a".repeat(257) }, "schema_pattern_too_long", "pattern", "/pattern");
  // 256 units (a literal that long is over the program budget instead: see the pattern tests).
  assert.deepEqual(problems({ pattern: "[ab]".repeat(64) }), []);
  assert.deepEqual(problems({ pattern: "a".repeat(10) }, { limits: { maxPatternLength: 9 } }), [
    { code: "schema_pattern_too_long", keyword: "pattern", path: "/pattern" },
  ]);
});

Deno.test("a schema that is not plain JSON is refused, never coerced", () => {
  rejects(
    { type: "object", default: undefined },
    "schema_keyword_invalid",
    "json_undefined",
    "/default",
  );
  rejects({ minimum: NaN }, "schema_keyword_invalid", "json_non_finite_number", "/minimum");
  const cyclic: Record<string, unknown> = {};
  cyclic.items = cyclic;
  rejects(cyclic, "schema_keyword_invalid", "json_cycle", "/items");
});

Deno.test("a budget passed as undefined keeps its default; NaN or a negative one is refused", () => {
  const wide = { type: "string", enum: Array.from({ length: 1_025 }, (_, index) => `v${index}`) };
  const result = checkSchema(wide, { limits: { maxEnumLength: undefined } });
  assert.equal(result.ok, false);
  assert.deepEqual(
    !result.ok && result.problems.map((problem) => problem.code),
    ["schema_enum_too_long"],
  );
  assert.throws(() => checkSchema(wide, { limits: { maxEnumLength: Number.NaN } }), RangeError);
  assert.throws(() => checkSchema(wide, { limits: { maxNodes: -1 } }), RangeError);
  const validate = compileSchema({ type: "string" }, { valueLimits: { maxBytes: undefined } });
  assert.deepEqual(validate("x".repeat(70 * 1024)), {
    valid: false,
    errors: [{ code: "value_over_budget", path: "", keyword: "maxBytes" }],
  });
});
