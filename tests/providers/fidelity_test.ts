// Provider exports against the providers' documented rules, on hand-made schemas and on the
// shared corpus of real servers' tools: no exported schema a provider's rules reject, every
// refusal with provider, keyword and a path that exists in the original schema, the figures in
// docs/providers.md equal to what the code computes, and a fast-check property that the
// original and the export (after the call path's null-stripping) accept the same arguments.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileSchema,
  type JsonObject,
  type NullPlan,
  type NullRecord,
  type ProviderTools,
  type ProviderToolSource,
  stripExportNulls,
  toAnthropicTools,
  toGeminiTools,
  toOpenAIResponsesTools,
  toOpenAITools,
} from "../../mod.ts";
import {
  keywordLines,
  MODES,
  readCaptures,
  reportsByLabel,
  summarize,
} from "../../fixtures/fidelity.ts";
import { corpusDir } from "../support/corpus.ts";

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const source = (inputSchema: JsonObject, name = "t"): ProviderToolSource => ({
  name,
  description: "d",
  inputSchema,
});

// ---------------------------------------------------------------------------------------------
// The providers' documented rules, written down independently of src/providers/fidelity.ts.

/** Keywords each strict mode's documentation lists as supported. */
const OPENAI_STRICT = new Set(
  ("type properties required additionalProperties items anyOf enum const $ref $defs " +
    "definitions description title pattern format multipleOf minimum maximum " +
    "exclusiveMinimum exclusiveMaximum minItems maxItems").split(" "),
);
const OPENAI_FORMATS = new Set(
  ("date-time time date duration email hostname ipv4 ipv6 uuid").split(" "),
);
const ANTHROPIC_STRICT = new Set(
  ("type properties required additionalProperties items anyOf allOf enum const $ref " +
    "$defs definitions default description title format minItems pattern").split(" "),
);
/** What Gemini's `parametersJsonSchema` applies (everything else it ignores). */
const GEMINI_APPLIED = new Set(
  ("type properties required additionalProperties items prefixItems minItems " +
    "maxItems minimum maximum anyOf enum $ref $defs definitions format title " +
    "description default examples $schema $comment deprecated readOnly writeOnly " +
    "contentEncoding contentMediaType").split(" "),
);

/** Every subschema with its pointer and object nesting depth. */
function* subschemas(
  schema: unknown,
  path = "",
  depth = 0,
): Generator<[JsonObject, string, number]> {
  if (!isObject(schema)) return;
  yield [schema, path, depth];
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}/${keyword}`;
    if (["properties", "$defs", "definitions"].includes(keyword) && isObject(value)) {
      for (const [name, member] of Object.entries(value)) {
        yield* subschemas(member, `${at}/${name}`, depth + (keyword === "properties" ? 1 : 0));
      }
    } else if (
      ["anyOf", "oneOf", "allOf", "prefixItems"].includes(keyword) && Array.isArray(value)
    ) {
      for (const [index, member] of value.entries()) {
        yield* subschemas(member, `${at}/${index}`, depth);
      }
    } else if (["items", "additionalProperties", "not", "propertyNames"].includes(keyword)) {
      yield* subschemas(value, at, depth);
    }
  }
}

const typesOf = (schema: JsonObject) =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** What the documented rules of `mode` say is wrong with an exported schema. */
function documentedViolations(mode: string, schema: JsonObject): string[] {
  const out: string[] = [];
  if (schema.type !== "object") out.push("root type is not object");
  for (const keyword of ["anyOf", "oneOf", "allOf", "enum", "not"]) {
    if (keyword in schema) out.push(`root ${keyword}`);
  }
  let optional = 0;
  let unions = 0;
  let enumValues = 0;
  for (const [node, path, depth] of subschemas(schema)) {
    const types = typesOf(node);
    const isObjectNode = types.includes("object") || "properties" in node;
    const props = isObject(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required : [];
    if (mode.startsWith("openai") && types.includes("array") && !("items" in node)) {
      out.push(`${path}: array without items`);
    }
    if (mode === "openai strict" || mode === "anthropic strict") {
      const allowed = mode === "openai strict" ? OPENAI_STRICT : ANTHROPIC_STRICT;
      for (const keyword of Object.keys(node)) {
        if (!allowed.has(keyword)) out.push(`${path}: ${keyword}`);
      }
      if (isObjectNode && node.additionalProperties !== false) out.push(`${path}: open object`);
    }
    if (mode === "openai strict") {
      if (Array.isArray(node.enum)) enumValues += node.enum.length;
      if (depth > 10) out.push(`${path}: nested deeper than 10`);
      if (!["type", "anyOf", "$ref", "enum", "const"].some((k) => k in node)) {
        out.push(`${path}: no type`);
      }
      for (const name of props) if (!required.includes(name)) out.push(`${path}: ${name} optional`);
      for (const name of required) {
        if (!props.includes(String(name))) out.push(`${path}: ${name} unlisted`);
      }
      if ("$ref" in node && Object.keys(node).length > 1) out.push(`${path}: $ref with siblings`);
      if ("format" in node && !OPENAI_FORMATS.has(String(node.format))) out.push(`${path}: format`);
    }
    if (mode === "anthropic strict") {
      if ("minItems" in node && Number(node.minItems) > 1) out.push(`${path}: minItems`);
      if (Array.isArray(node.enum) && node.enum.some((v) => typeof v === "object" && v !== null)) {
        out.push(`${path}: complex enum`);
      }
      optional += props.filter((name) => !required.includes(name)).length;
      if (isObject(node.properties)) {
        for (const member of Object.values(node.properties)) {
          if (isObject(member) && ("anyOf" in member || typesOf(member).length > 1)) unions++;
        }
      }
    }
    if (mode === "gemini exact") {
      for (const keyword of Object.keys(node)) {
        if (!GEMINI_APPLIED.has(keyword)) out.push(`${path}: ${keyword} ignored`);
      }
    }
  }
  if (mode === "openai strict" && enumValues > 1000) out.push("more than 1000 enum values");
  if (mode === "anthropic strict" && optional > 24) out.push("more than 24 optional");
  if (mode === "anthropic strict" && unions > 16) out.push("more than 16 unions");
  return out;
}

/** The exported schema of each export, by mode label. */
function exportedSchemas(label: string, tools: ProviderToolSource[]): JsonObject[] {
  const strict = label.endsWith("strict");
  if (label.startsWith("openai")) {
    return toOpenAITools(tools, { strict }).map((t) => t.function.parameters);
  }
  if (label.startsWith("anthropic")) {
    return toAnthropicTools(tools, { strict }).map((t) => t.input_schema);
  }
  return toGeminiTools(tools, { exact: label === "gemini exact" }).map((t) =>
    t.parametersJsonSchema
  );
}

// ---------------------------------------------------------------------------------------------
// Hand-made schemas: each rule, each transform, each refusal.

Deno.test("toOpenAITools: a root without type gets type object; the report rides non-enumerable", () => {
  const tools = toOpenAITools([source({ $schema: "http://json-schema.org/draft-07/schema#" })]);
  assert.deepEqual(tools, [{
    type: "function",
    function: {
      name: "t",
      description: "d",
      parameters: { type: "object", $schema: "http://json-schema.org/draft-07/schema#" },
    },
  }]);
  assert.equal(JSON.stringify(tools).includes("report"), false);
  assert.deepEqual(tools.report.tools[0].transforms, [
    { kind: "root_type_added", keyword: "type", path: "" },
  ]);
  assert.equal(tools.report.tools[0].status, "transformed");
});

Deno.test("every export refuses a root that is not one object schema, with provider, keyword, path", () => {
  const schemas: [JsonObject, string][] = [
    [{ type: "string" }, "type"],
    [{ type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] }, "anyOf"],
  ];
  const exports: [string, (t: ProviderToolSource[]) => ProviderTools<unknown>][] = [
    ["openai", (t) => toOpenAITools(t)],
    ["openai-responses", (t) => toOpenAIResponsesTools(t, { strict: true })],
    ["anthropic", (t) => toAnthropicTools(t)],
    ["gemini", (t) => toGeminiTools(t)],
  ];
  for (const [schema, keyword] of schemas) {
    for (const [provider, run] of exports) {
      const good = { type: "object", properties: {}, additionalProperties: false };
      const out = run([source(schema, "bad"), source(good, "good")]);
      assert.equal(out.length, 1, provider);
      assert.deepEqual(
        out.report.refused.filter((r) => r.keyword === keyword),
        [{ code: "provider_schema_unsupported", provider, tool: "bad", keyword, path: "" }],
        `${provider} ${keyword}`,
      );
    }
  }
});

Deno.test("strict OpenAI: optional → required + nullable, recorded; open objects refused unless closed", () => {
  const schema: JsonObject = {
    type: "object",
    properties: {
      q: { type: "string" },
      page: { type: "integer" },
      tag: { enum: ["a", "b"] },
      filter: {
        type: "object",
        properties: { since: { type: "string", format: "date-time" } },
        additionalProperties: false,
      },
    },
    required: ["q"],
    additionalProperties: false,
  };
  const [tool] = toOpenAIResponsesTools([source(schema)], { strict: true });
  assert.equal(tool.strict, true);
  assert.deepEqual(tool.parameters, {
    type: "object",
    properties: {
      q: { type: "string" },
      page: { type: ["integer", "null"] },
      tag: { anyOf: [{ enum: ["a", "b"] }, { type: "null" }] },
      filter: {
        type: ["object", "null"],
        properties: { since: { type: ["string", "null"], format: "date-time" } },
        additionalProperties: false,
        required: ["since"],
      },
    },
    required: ["q", "page", "tag", "filter"],
    additionalProperties: false,
  });
  const record = toOpenAITools([source(schema)], { strict: true }).report.nullable.t;
  assert.deepEqual(
    stripExportNulls({ q: "x", page: null, tag: null, filter: { since: null } }, record),
    { q: "x", filter: {} },
  );
  assert.deepEqual(stripExportNulls({ q: "x", page: 2, tag: "a", filter: null }, record), {
    q: "x",
    page: 2,
    tag: "a",
  });
  // An optional property that already admits null cannot be undone: refused.
  const ambiguous = toOpenAITools([source({
    type: "object",
    properties: { note: { type: ["string", "null"] } },
    additionalProperties: false,
  })], { strict: true });
  assert.deepEqual(ambiguous.report.refused.map((r) => [r.keyword, r.path]), [
    ["required", "/properties/note"],
  ]);
  // `$ref` stands alone in strict mode: the description beside it is dropped, bounds refused.
  const ref = toOpenAITools([source({
    type: "object",
    properties: {
      a: { $ref: "#/$defs/id", description: "The id." },
      b: { $ref: "#/$defs/id", minLength: 2 },
    },
    required: ["a", "b", "c"],
    additionalProperties: false,
    $defs: { id: { type: "string" } },
  })], { strict: true });
  assert.deepEqual(ref.report.refused.map((r) => [r.keyword, r.path]), [
    ["minLength", "/properties/b"],
    ["required", ""],
  ]);
  // Size: at most 1000 enum values in one strict schema.
  const wide = source({
    type: "object",
    properties: {
      a: { enum: Array.from({ length: 600 }, (_, i) => i) },
      b: { enum: Array.from({ length: 600 }, (_, i) => i) },
    },
    required: ["a", "b"],
    additionalProperties: false,
  });
  assert.deepEqual(toOpenAITools([wide], { strict: true }).report.refused.map((r) => r.keyword), [
    "enum",
  ]);
  assert.equal(toOpenAITools([wide]).length, 1);
  // Open objects: refused, or closed only when asked (and reported as narrowing).
  const open = source({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
  assert.deepEqual(toOpenAITools([open], { strict: true }).report.refused.map((r) => r.keyword), [
    "additionalProperties",
  ]);
  const closed = toOpenAITools([open], { strict: true, closeOpenObjects: true });
  assert.equal(closed[0].function.parameters.additionalProperties, false);
  assert.deepEqual(closed.report.tools[0].transforms.map((t) => t.kind), ["object_closed"]);
});

Deno.test("x-mcp-header: dropped from every export; an optional declared property still made nullable", () => {
  // The conformance suite's test_custom_headers_null (2026-07-28, SEP-2243).
  const schema: JsonObject = {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    },
    required: ["region"],
  };
  const exports: ProviderTools<unknown>[] = [
    toOpenAITools([source(schema)]),
    toOpenAITools([source(schema)], { strict: true, closeOpenObjects: true }),
    toAnthropicTools([source(schema)], { strict: true, closeOpenObjects: true }),
    toGeminiTools([source(schema)]),
  ];
  for (const exported of exports) {
    const label = `${exported.report.provider} strict=${exported.report.strict}`;
    assert.deepEqual(exported.report.refused, [], label);
    assert.equal(exported.length, 1, label);
    assert.ok(!JSON.stringify(exported[0]).includes("x-mcp-header"), label);
    assert.deepEqual(
      exported.report.tools[0].transforms.filter((t) => t.keyword === "x-mcp-header")
        .map((t) => t.path),
      ["/properties/region", "/properties/verbose"],
      label,
    );
  }
  const record = exports[1].report.nullable["t"];
  assert.deepEqual(record.root.nullable, ["verbose"]);
  assert.deepEqual(stripExportNulls({ region: "r", verbose: null }, record), { region: "r" });
});

Deno.test("oneOf becomes anyOf only when the branches are provably disjoint", () => {
  const disjoint = source({
    type: "object",
    properties: {
      v: {
        oneOf: [
          {
            type: "object",
            properties: { k: { enum: ["a"] } },
            required: ["k"],
            additionalProperties: false,
          },
          {
            type: "object",
            properties: { k: { enum: ["b"] } },
            required: ["k"],
            additionalProperties: false,
          },
          { type: "string" },
        ],
      },
    },
    required: ["v"],
    additionalProperties: false,
  });
  const gemini = toGeminiTools([disjoint]);
  assert.equal(gemini.report.tools[0].status, "transformed");
  assert.ok("anyOf" in ((gemini[0].parametersJsonSchema.properties as JsonObject).v as JsonObject));
  const overlapping = source({
    type: "object",
    properties: { v: { oneOf: [{ type: "string" }, { type: "string", minLength: 2 }] } },
    additionalProperties: false,
  });
  assert.deepEqual(
    toGeminiTools([overlapping]).report.tools[0].lossy,
    [{ keyword: "oneOf", path: "/properties/v" }],
  );
  assert.deepEqual(
    toAnthropicTools([overlapping], { strict: true }).report.refused.map((
      r,
    ) => [r.keyword, r.path]),
    [["oneOf", "/properties/v"]],
  );
});

Deno.test("Gemini: ignored keywords are lossy per tool; exact refuses them", () => {
  const tool = source({
    type: "object",
    properties: { id: { type: "string", pattern: "^[a-z]+$", maxLength: 9 }, n: { const: 1 } },
  });
  const lossy = toGeminiTools([tool]);
  assert.equal(lossy.length, 1);
  assert.deepEqual(lossy.report.tools[0].lossy, [
    { keyword: "pattern", path: "/properties/id" },
    { keyword: "maxLength", path: "/properties/id" },
    { keyword: "const", path: "/properties/n" },
  ]);
  const exact = toGeminiTools([tool], { exact: true });
  assert.equal(exact.length, 0);
  assert.deepEqual(exact.report.refused.map((r) => [r.provider, r.keyword, r.path]), [
    ["gemini", "pattern", "/properties/id"],
    ["gemini", "maxLength", "/properties/id"],
    ["gemini", "const", "/properties/n"],
  ]);
});

Deno.test("strict Anthropic: bounds and recursion refused; optional kept; request limits reported", () => {
  const bounded = source({
    type: "object",
    properties: { n: { type: "integer", minimum: 1 } },
    additionalProperties: false,
  });
  assert.deepEqual(
    toAnthropicTools([bounded], { strict: true }).report.refused.map((r) => [r.keyword, r.path]),
    [
      ["minimum", "/properties/n"],
    ],
  );
  const recursive = source({
    type: "object",
    properties: { node: { $ref: "#/$defs/node" } },
    additionalProperties: false,
    $defs: {
      node: {
        type: "object",
        properties: { next: { $ref: "#/$defs/node" } },
        additionalProperties: false,
      },
    },
  });
  assert.deepEqual(
    toAnthropicTools([recursive], { strict: true }).report.refused.map((r) => [r.keyword, r.path]),
    [
      ["$ref", "/$defs/node"],
    ],
  );
  assert.equal(toAnthropicTools([recursive]).length, 1);
  const plain = source({
    type: "object",
    properties: { a: { type: "string" } },
    additionalProperties: false,
  });
  const many = Array.from({ length: 21 }, (_, i) => ({ ...plain, name: `t${i}` }));
  const out = toAnthropicTools(many, { strict: true });
  assert.equal(out[0].strict, true);
  assert.deepEqual(
    out.report.limits,
    [{ limit: "strict_tools", max: 20, actual: 21 }],
  );
  assert.deepEqual(toAnthropicTools(many.slice(0, 5), { strict: true }).report.limits, []);
});

Deno.test("names: each provider's rule refuses a name it does not take", () => {
  const long = source({ type: "object" }, `a${"b".repeat(70)}`);
  const dotted = source({ type: "object" }, "docs.search");
  const digit = source({ type: "object" }, "9lives");
  assert.deepEqual(
    toOpenAITools([long, dotted, digit]).report.refused.map((r) => [r.code, r.tool]),
    [
      ["provider_name_unsupported", long.name],
      ["provider_name_unsupported", "docs.search"],
    ],
  );
  assert.deepEqual(
    toGeminiTools([long, dotted, digit]).report.refused.map((r) => [r.keyword, r.tool]),
    [
      ["name", "9lives"],
    ],
  );
});

// ---------------------------------------------------------------------------------------------
// The corpus.

const corpus = corpusDir("providers_fidelity_test");
const captures = corpus === undefined ? [] : readCaptures(corpus);

Deno.test({
  name: "corpus: no exported schema breaks the provider's documented rules",
  ignore: corpus === undefined,
  fn() {
    for (const label of Object.keys(MODES)) {
      let exported = 0;
      for (const capture of captures) {
        for (const schema of exportedSchemas(label, capture.tools)) {
          exported++;
          assert.deepEqual(documentedViolations(label, schema), [], `${label} ${capture.file}`);
        }
      }
      assert.ok(exported > 0, label);
    }
  },
});

/** Follows a JSON Pointer, or `undefined`. */
function at(value: unknown, pointer: string): unknown {
  let current = value;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

Deno.test({
  name: "corpus: every refusal names provider, keyword and a path of the original schema",
  ignore: corpus === undefined,
  fn() {
    const missing = ["additionalProperties", "type", "items", "required", "properties"];
    let refusals = 0;
    for (const label of Object.keys(MODES)) {
      for (const capture of captures) {
        const byName = new Map(capture.tools.map((t) => [t.name, t.inputSchema]));
        for (const refusal of reportsByLabel(capture.tools)[label].refused) {
          refusals++;
          assert.equal(refusal.code, "provider_schema_unsupported");
          assert.ok(["openai", "anthropic", "gemini"].includes(refusal.provider));
          const node = at(byName.get(refusal.tool), refusal.path);
          assert.ok(isObject(node), `${label} ${refusal.tool} ${refusal.path}`);
          // The keyword is there, or it is a rule about a keyword that is missing.
          assert.ok(
            refusal.keyword in node || missing.includes(refusal.keyword),
            `${label} ${refusal.tool} ${refusal.keyword}@${refusal.path}`,
          );
        }
      }
    }
    assert.ok(refusals > 0);
  },
});

Deno.test({
  name: "corpus: the figures in docs/providers.md are what the code computes",
  ignore: corpus === undefined,
  fn() {
    const page = Deno.readTextFileSync(new URL("../../docs/providers.md", import.meta.url));
    const rows = Object.fromEntries(
      [...page.matchAll(
        /^\| (openai|anthropic|gemini)( strict| exact)? *\| (\d+) *\| (\d+) *\| (\d+) *\| (\d+) *\|$/gm,
      )]
        .map((m) => [`${m[1]}${m[2] ?? ""}`, m.slice(3).map(Number)]),
    );
    const computed = Object.fromEntries(
      Object.entries(summarize(captures)).map((
        [label, s],
      ) => [label, [s.status.unchanged, s.status.transformed, s.status.lossy, s.status.refused]]),
    );
    assert.deepEqual(rows, computed);
    const prose = page.replace(/\s+/g, " ");
    for (const line of keywordLines(summarize(captures))) {
      assert.ok(prose.includes(line.replace(/\s+/g, " ")), line);
    }
  },
});

// ---------------------------------------------------------------------------------------------
// The property: the export accepts what the original accepts, after null-stripping.

function resolve(root: JsonObject, ref: string): unknown {
  return at(root, ref.slice(1));
}

/** Arguments shaped by `schema`: mostly near-valid, sometimes anything. */
function argumentsFor(schema: unknown, root: JsonObject, depth: number): fc.Arbitrary<unknown> {
  const anything = fc.jsonValue({ maxDepth: 1 });
  if (!isObject(schema) || depth > 5) return anything;
  if (typeof schema.$ref === "string") {
    return argumentsFor(resolve(root, schema.$ref), root, depth + 1);
  }
  const options: fc.Arbitrary<unknown>[] = [];
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      options.push(...branches.map((b) => argumentsFor(b, root, depth + 1)));
    }
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    options.push(fc.constantFrom(...schema.enum));
  }
  if ("const" in schema) options.push(fc.constant(schema.const));
  const types = typesOf(schema).map(String);
  if (types.length === 0 && options.length === 0) types.push("object", "string", "integer", "null");
  for (const type of types) {
    if (type === "string") {
      options.push(
        fc.oneof(fc.string({ maxLength: 6 }), fc.uuid(), fc.constantFrom("", "2026-01-01")),
      );
    } else if (type === "integer" || type === "number") {
      options.push(fc.integer({ min: -3, max: 300 }));
    } else if (type === "boolean") options.push(fc.boolean());
    else if (type === "null") options.push(fc.constant(null));
    else if (type === "array") {
      options.push(fc.array(argumentsFor(schema.items, root, depth + 1), { maxLength: 3 }));
    } else if (type === "object") {
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = (Array.isArray(schema.required) ? schema.required : []).map(String)
        .filter((name) => name in props);
      const fields = Object.fromEntries(
        Object.entries(props).map(([name, sub]) => [name, argumentsFor(sub, root, depth + 1)]),
      );
      options.push(
        fc.tuple(fc.record(fields, { requiredKeys: required }), fc.nat(12), anything).map(
          ([value, dice, extra]) => {
            const out: Record<string, unknown> = { ...value };
            if (dice === 0 && required.length > 0) delete out[required[0]];
            if (dice === 1) out.unlisted_key = extra;
            return out;
          },
        ),
      );
    }
  }
  return fc.oneof({ weight: 9, arbitrary: fc.oneof(...options) }, {
    weight: 1,
    arbitrary: anything,
  });
}

/** The inverse of `stripExportNulls`: `null` for every omitted property the plan made nullable. */
function lift(value: unknown, plan: NullPlan, record: NullRecord, depth = 0): unknown {
  if (depth > 32) return value;
  let current = plan.ref ? lift(value, record.defs[plan.ref] ?? {}, record, depth + 1) : value;
  if (Array.isArray(current)) {
    if (plan.whenArray) current = lift(current, plan.whenArray, record, depth + 1);
    return Array.isArray(current) && plan.items
      ? current.map((item) => lift(item, plan.items!, record, depth + 1))
      : current;
  }
  if (!isObject(current)) return current;
  if (plan.whenObject) current = lift(current, plan.whenObject, record, depth + 1);
  if (!isObject(current)) return current;
  const out: Record<string, unknown> = { ...current };
  for (const [name, inner] of Object.entries(plan.properties ?? {})) {
    if (name in out) out[name] = lift(out[name], inner, record, depth + 1);
  }
  for (const name of plan.nullable ?? []) if (!(name in out)) out[name] = null;
  return out;
}

Deno.test({
  name: "corpus property: original and export accept the same arguments (after null-stripping)",
  ignore: corpus === undefined,
  fn() {
    const labels = ["openai", "openai strict", "anthropic strict", "gemini"];
    let checked = 0;
    let nullable = 0;
    const outcomes = { valid: 0, invalid: 0 };
    for (const label of labels) {
      for (const capture of captures) {
        const exported = exportedSchemas(label, capture.tools);
        const report = reportsByLabel(capture.tools)[label];
        const kept = report.tools.filter((line) => line.status !== "refused").map((l) => l.tool);
        kept.forEach((name, index) => {
          const original = capture.tools.find((t) => t.name === name)!.inputSchema as JsonObject;
          const validateOriginal = compileSchema(original);
          const validateExport = compileSchema(exported[index]);
          const record = report.nullable[name];
          if (record) nullable++;
          const undo = (x: unknown) => (record ? stripExportNulls(x, record) : x);
          const redo = (x: unknown) => (record ? lift(x, record.root, record) : x);
          const fromOriginal = argumentsFor(original, original, 0).filter(isObject);
          const fromExport = argumentsFor(exported[index], exported[index], 0).filter(isObject);
          fc.assert(
            fc.property(fc.oneof(fromOriginal.map(redo), fromExport), (x) => {
              const exportValid = validateExport(x).valid;
              const originalValid = validateOriginal(undo(x)).valid;
              outcomes[exportValid ? "valid" : "invalid"]++;
              // What the export admits, the server admits; and conversely once every
              // nullable property is present (a strict model always sends them).
              if (exportValid) assert.ok(originalValid, `${label} ${name} ${JSON.stringify(x)}`);
              if (JSON.stringify(redo(x)) === JSON.stringify(x)) {
                assert.equal(exportValid, originalValid, `${label} ${name} ${JSON.stringify(x)}`);
              }
            }),
            { numRuns: 30, seed: 11 },
          );
          checked++;
        });
      }
    }
    assert.ok(checked > 400, String(checked));
    // Not vacuous: both accepted and refused arguments occur often.
    const total = outcomes.valid + outcomes.invalid;
    assert.ok(outcomes.valid > total / 5 && outcomes.invalid > total / 5, JSON.stringify(outcomes));
    assert.ok(nullable > 50, String(nullable));
  },
});

Deno.test("docs/providers.md: the keyword table is the fidelity table", async () => {
  const { FIDELITY } = await import("../../src/providers/fidelity.ts");
  const page = Deno.readTextFileSync(new URL("../../docs/providers.md", import.meta.url));
  const rows = [...page.matchAll(/^\| `([^`]+)` +\| (\w+) +\| (\w+) +\| (\w+) +\|$/gm)]
    .map((m) => [m[1], m[2], m[3], m[4]]);
  const modes = ["openai-strict", "anthropic-strict", "gemini"] as const;
  assert.deepEqual(
    rows,
    Object.keys(FIDELITY.openai.keywords).map((
      k,
    ) => [k, ...modes.map((m) => FIDELITY[m].keywords[k])]),
  );
});
