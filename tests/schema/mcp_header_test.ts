import assert from "node:assert/strict";
import { checkSchema, compileSchema, type JsonObject, type JsonValue } from "../../mod.ts";
import { headerDeclarations } from "../../src/schema/mod.ts";

const HEADERS = { mcpHeaders: true };

function headerProblems(schema: Record<string, unknown>) {
  const result = checkSchema(schema, HEADERS);
  return result.ok ? [] : result.problems;
}

/** The spec's example tool, plus a nested declaration and the other two types. */
const valid = {
  type: "object",
  properties: {
    region: { type: "string", description: "where", "x-mcp-header": "Region" },
    query: { type: "string" },
    options: {
      type: "object",
      properties: {
        tenant: { type: "integer", "x-mcp-header": "Tenant-Id" },
        dryRun: { type: "boolean", "x-mcp-header": "Dry_Run" },
      },
    },
  },
  required: ["region", "query"],
};

Deno.test("x-mcp-header is unknown unless mcpHeaders is asked for", () => {
  const result = checkSchema(valid);
  assert.deepEqual(result.ok ? [] : result.problems.map(({ code, path }) => [code, path]), [
    ["schema_keyword_unsupported", "/properties/region/x-mcp-header"],
    ["schema_keyword_unsupported", "/properties/options/properties/tenant/x-mcp-header"],
    ["schema_keyword_unsupported", "/properties/options/properties/dryRun/x-mcp-header"],
  ]);
});

Deno.test("valid declarations are admitted and read back as header, path and pointer", () => {
  assert.deepEqual(headerProblems(valid), []);
  assert.deepEqual(headerDeclarations(valid), [
    {
      name: "Region",
      header: "Mcp-Param-Region",
      path: ["region"],
      pointer: "/region",
      type: "string",
    },
    {
      name: "Tenant-Id",
      header: "Mcp-Param-Tenant-Id",
      path: ["options", "tenant"],
      pointer: "/options/tenant",
      type: "integer",
    },
    {
      name: "Dry_Run",
      header: "Mcp-Param-Dry_Run",
      path: ["options", "dryRun"],
      pointer: "/options/dryRun",
      type: "boolean",
    },
  ]);
  // The annotation changes no validation outcome.
  const validate = compileSchema(valid, HEADERS);
  assert.deepEqual(validate({ region: "us-west1", query: "q" }), { valid: true });
  assert.equal(validate({ region: 1, query: "q" }).valid, false);
  assert.deepEqual(headerDeclarations({ type: "object" }), []);
});

Deno.test("each type: string, integer and boolean carry a header; every other is refused", () => {
  const declaring = (type: JsonValue | undefined): JsonObject => ({
    type: "object",
    properties: {
      a: type === undefined ? { "x-mcp-header": "A" } : { type, "x-mcp-header": "A" },
    },
  });
  for (const type of ["string", "integer", "boolean"] as const) {
    assert.deepEqual(headerProblems(declaring(type)), [], type);
    assert.deepEqual(headerDeclarations(declaring(type)).map((d) => d.type), [type]);
  }
  // `number` included: the 2026-07-28 text permits only integer, string and boolean.
  const refused: (JsonValue | undefined)[] = [
    "number",
    "null",
    "array",
    "object",
    ["string", "null"],
    ["integer"],
    undefined,
  ];
  for (const type of refused) {
    assert.deepEqual(
      headerProblems(declaring(type)),
      [{
        code: "schema_mcp_header_invalid",
        keyword: "x-mcp-header",
        path: "/properties/a/x-mcp-header",
      }],
      JSON.stringify(type),
    );
    // Never read back as a header, even by a caller that skipped the check.
    assert.deepEqual(headerDeclarations(declaring(type)), [], JSON.stringify(type));
  }
});

Deno.test("each broken rule refuses the declaration with its own code, keyword and pointer", () => {
  const cases: [Record<string, unknown>, string][] = [
    // Not statically reachable.
    [{ type: "string", "x-mcp-header": "Root" }, "/x-mcp-header"],
    [{ items: { type: "string", "x-mcp-header": "A" } }, "/items/x-mcp-header"],
    [
      { anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] },
      "/anyOf/0/properties/a/x-mcp-header",
    ],
    [
      { if: { properties: { a: { type: "string", "x-mcp-header": "A" } } } },
      "/if/properties/a/x-mcp-header",
    ],
    [
      { additionalProperties: { type: "string", "x-mcp-header": "A" } },
      "/additionalProperties/x-mcp-header",
    ],
    [
      { patternProperties: { "^a": { type: "string", "x-mcp-header": "A" } } },
      "/patternProperties/^a/x-mcp-header",
    ],
    [
      {
        $defs: { a: { type: "string", "x-mcp-header": "A" } },
        properties: { a: { $ref: "#/$defs/a" } },
      },
      "/$defs/a/x-mcp-header",
    ],
    [{
      properties: { a: { items: { properties: { b: { type: "string", "x-mcp-header": "B" } } } } },
    }, "/properties/a/items/properties/b/x-mcp-header"],
    // Not a non-empty token.
    [{ properties: { a: { type: "string", "x-mcp-header": "" } } }, "/properties/a/x-mcp-header"],
    [
      { properties: { a: { type: "string", "x-mcp-header": "Two Words" } } },
      "/properties/a/x-mcp-header",
    ],
    [
      { properties: { a: { type: "string", "x-mcp-header": "A\r\nX: 1" } } },
      "/properties/a/x-mcp-header",
    ],
    [
      { properties: { a: { type: "string", "x-mcp-header": "Région" } } },
      "/properties/a/x-mcp-header",
    ],
    [{ properties: { a: { type: "string", "x-mcp-header": 7 } } }, "/properties/a/x-mcp-header"],
    // Not one of the three primitive types.
    [{ properties: { a: { type: "number", "x-mcp-header": "A" } } }, "/properties/a/x-mcp-header"],
    [{ properties: { a: { type: "null", "x-mcp-header": "A" } } }, "/properties/a/x-mcp-header"],
    [{ properties: { a: { type: "array", "x-mcp-header": "A" } } }, "/properties/a/x-mcp-header"],
    [{ properties: { a: { type: "object", "x-mcp-header": "A" } } }, "/properties/a/x-mcp-header"],
    [
      { properties: { a: { type: ["string", "null"], "x-mcp-header": "A" } } },
      "/properties/a/x-mcp-header",
    ],
    [{ properties: { a: { "x-mcp-header": "A" } } }, "/properties/a/x-mcp-header"],
    // Not unique, ignoring case: the second is refused.
    [
      {
        properties: {
          a: { type: "string", "x-mcp-header": "Region" },
          b: { type: "string", "x-mcp-header": "region" },
        },
      },
      "/properties/b/x-mcp-header",
    ],
  ];
  for (const [schema, pointer] of cases) {
    assert.deepEqual(
      headerProblems(schema),
      [{ code: "schema_mcp_header_invalid", keyword: "x-mcp-header", path: pointer }],
      JSON.stringify(schema),
    );
  }
});

Deno.test("a refusal never carries the declared name or any schema value", () => {
  const schema = {
    properties: { secret: { type: "object", "x-mcp-header": "Sekrit-Name", enum: [42] } },
  };
  const problems = JSON.stringify(headerProblems(schema));
  assert.ok(!problems.includes("Sekrit"));
  assert.ok(!problems.includes("42"));
  assert.throws(
    () => compileSchema(schema, HEADERS),
    (error: Error) =>
      !error.message.includes("Sekrit") && error.message.includes("schema_mcp_header_invalid"),
  );
});

Deno.test("the conformance suite's header tools: the valid ones admitted, each invalid one refused", () => {
  // The shapes of `http-custom-headers` and `http-invalid-tool-headers` (conformance
  // 0.2.0-alpha.12; 0.1.16 has neither scenario).
  const property = (type: string, header: string) => ({ type, "x-mcp-header": header });
  const tool = (properties: JsonObject): JsonObject => ({ type: "object", properties });
  const mirrored = tool({
    region: property("string", "Region"),
    priority: property("integer", "Priority"),
    verbose: property("boolean", "Verbose"),
    method_val: property("string", "Method"),
    // Served unannotated: the suite checks that no Mcp-Param-FloatVal is sent.
    float_val: { type: "number" },
    query: { type: "string" },
  });
  assert.deepEqual(headerProblems(mirrored), []);
  assert.deepEqual(headerDeclarations(mirrored).map(({ header, type }) => [header, type]), [
    ["Mcp-Param-Region", "string"],
    ["Mcp-Param-Priority", "integer"],
    ["Mcp-Param-Verbose", "boolean"],
    ["Mcp-Param-Method", "string"],
  ]);
  const invalid = [
    tool({ value: property("string", "") }),
    tool({ data: property("object", "Data") }),
    tool({ items: { ...property("array", "Items"), items: { type: "string" } } }),
    tool({ nil: property("null", "Nil") }),
    tool({ score: property("number", "Score") }),
    tool({ a: property("string", "Region"), b: property("string", "Region") }),
    tool({ a: property("string", "MyField"), b: property("string", "myfield") }),
    tool({ value: property("string", "My Region") }),
    tool({ value: property("string", "Region:Primary") }),
    tool({ value: property("string", "Région") }),
    tool({ value: property("string", "Region\t1") }),
  ];
  for (const schema of invalid) {
    const codes = headerProblems(schema).map((problem) => problem.code);
    assert.deepEqual(codes, ["schema_mcp_header_invalid"], JSON.stringify(schema));
  }
  assert.deepEqual(headerProblems(tool({ region: property("string", "Region") })), []);
});
