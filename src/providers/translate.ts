/**
 * Translates one input schema for one fidelity mode: every keyword is kept, dropped (a pure
 * annotation the provider rejects), reported as ignored (lossy) or refused, as the fidelity
 * table says; strict modes add the meaning-keeping rewrites (root `type`, optional →
 * required + nullable, disjoint `oneOf` → `anyOf`) and record where a `null` stands for an
 * omitted property.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../identity/mod.ts";
import { toPointer } from "../identity/mod.ts";
import { checkSchema } from "../schema/mod.ts";
import { nullAcceptance } from "../schema/compile.ts";
import { keywordRule } from "../schema/keywords.ts";
import { X_MCP_HEADER } from "../schema/mcp_header.ts";
import { declaredTypes, provablyDisjoint, resolveRef, typesOfValue } from "./disjoint.ts";
import { refCycle, sizeOf, withoutUnusedDefinitions } from "./grammar_limits.ts";
import {
  FIDELITY,
  type FidelityMode,
  type FidelityProfile,
  type KeywordFidelity,
  ROOT_REJECTED,
} from "./fidelity.ts";
import type {
  NullPlan,
  NullRecord,
  ProviderLoss,
  ProviderTransform,
  ProviderTransformKind,
} from "./types.ts";

type Token = string | number;

/**
 * Options of one translation.
 *
 * @category Agent developers: providers
 */
export interface TranslateOptions {
  /** Refuse what the provider ignores instead of reporting it lossy. */
  readonly exact?: boolean;
  /** Close open objects in strict modes (narrows; named so). */
  readonly closeOpenObjects?: boolean;
}

/**
 * A refusal before the provider and tool are attached.
 *
 * @category Agent developers: providers
 */
export interface SchemaRefusal {
  /** The keyword at fault. */
  readonly keyword: string;
  /** JSON Pointer of its schema. */
  readonly path: string;
}

/**
 * The outcome of one translation.
 *
 * @category Agent developers: providers
 */
export interface Translation {
  /** The exported schema; absent when anything was refused. */
  readonly schema?: JsonObject;
  /** Transforms applied. */
  readonly transforms: readonly ProviderTransform[];
  /** Keywords the provider ignores. */
  readonly lossy: readonly ProviderLoss[];
  /** What the provider cannot take. */
  readonly refusals: readonly SchemaRefusal[];
  /** Where `null` means "absent" (strict modes with `optional_made_nullable` only). */
  readonly nulls?: NullRecord;
  /** Optional properties left optional (counted for request limits). */
  readonly optional: number;
  /** Properties whose schema is a union (counted for request limits). */
  readonly unions: number;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const has = (schema: JsonObject, keyword: string) => Object.hasOwn(schema, keyword);

/** Every JSON type a subschema may accept, as far as its own keywords say. */
function kindsOf(root: JsonObject, schema: JsonValue, depth = 0): Set<string> {
  const all = new Set(["null", "boolean", "object", "array", "string", "integer", "number"]);
  if (schema === false) return new Set();
  if (!isObject(schema) || depth > 8) return all;
  const declared = declaredTypes(schema);
  if (declared) return declared;
  if (has(schema, "const")) return new Set(typesOfValue(schema.const));
  if (Array.isArray(schema.enum)) return new Set(schema.enum.flatMap(typesOfValue));
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target === undefined ? all : kindsOf(root, target, depth + 1);
  }
  if (Array.isArray(schema.anyOf)) {
    return new Set(schema.anyOf.flatMap((branch) => [...kindsOf(root, branch, depth + 1)]));
  }
  return all;
}

/** The same subschema, also admitting `null`. */
function withNull(schema: JsonValue): JsonValue {
  if (isObject(schema) && !["enum", "const", "anyOf", "$ref"].some((k) => has(schema, k))) {
    if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, "null"] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

/** A plan while it is being built. */
type PlanDraft = { -readonly [K in keyof NullPlan]: NullPlan[K] } & {
  nullable?: string[];
  properties?: Record<string, NullPlan>;
};

const isEmpty = (plan: PlanDraft) => Object.keys(plan).length === 0;

class Translator {
  readonly transforms: ProviderTransform[] = [];
  readonly lossy: ProviderLoss[] = [];
  readonly refusals: SchemaRefusal[] = [];
  readonly defPlans: Record<string, NullPlan> = {};
  optional = 0;
  unions = 0;
  properties = 0;
  readonly #root: JsonObject;
  readonly #profile: FidelityProfile;
  readonly #options: TranslateOptions;
  #acceptsNull: ((schema: JsonValue) => boolean) | undefined;

  constructor(root: JsonObject, profile: FidelityProfile, options: TranslateOptions) {
    this.#root = root;
    this.#profile = profile;
    this.#options = options;
  }

  #refuse(keyword: string, path: readonly Token[]): void {
    this.refusals.push({ keyword, path: toPointer(path) });
  }

  #transform(kind: ProviderTransformKind, keyword: string, path: readonly Token[]): void {
    this.transforms.push({ kind, keyword, path: toPointer(path) });
  }

  /**
   * Whether `schema` (a property of the root's schema) accepts `null` as it stands. Its
   * `x-mcp-header` says nothing about values; the root's definitions are compiled once for every
   * property asked about.
   */
  #admitsNull(schema: JsonValue): boolean {
    if (typeof schema === "boolean") return schema;
    if (!isObject(schema)) return true;
    this.#acceptsNull ??= nullAcceptance(this.#root);
    return this.#acceptsNull(schema);
  }

  /** The rule for `keyword` with value `value`, after the mode's value rules. */
  #rule(keyword: string, value: JsonValue): KeywordFidelity {
    // A transport instruction (mirror the value into a header), no constraint on values:
    // no provider needs it, and dropping it changes nothing the model may send.
    if (keyword === X_MCP_HEADER) return "dropped";
    const rules = this.#profile.rules;
    const base = this.#profile.keywords[keyword] ?? "rejected";
    if (base !== "kept") return base;
    if (keyword === "format" && rules.formats && !rules.formats.has(String(value))) {
      return "dropped";
    }
    if (keyword === "enum" && rules.enumTypes && Array.isArray(value)) {
      const types = rules.enumTypes;
      if (!value.every((member) => typesOfValue(member).some((type) => types.has(type)))) {
        return rules.enumOther ?? "rejected";
      }
    }
    if (
      keyword === "minItems" && rules.maxMinItems !== undefined &&
      Number(value) > rules.maxMinItems
    ) return "rejected";
    if (keyword === "pattern" && rules.patternRejected?.test(String(value))) return "rejected";
    return "kept";
  }

  /** Translates one subschema at `path`; returns it and the plan for its instances. */
  schema(schema: JsonValue, path: Token[], depth: number): [JsonValue, NullPlan | undefined] {
    const rules = this.#profile.rules;
    if (!isObject(schema)) {
      // A boolean subschema says no type; `additionalProperties: false` is the one exception.
      if (rules.typed && path.at(-1) !== "additionalProperties") {
        this.#refuse(String(path.at(-1)), path.slice(0, -1));
      }
      return [schema, undefined];
    }
    const out: JsonObject = {};
    const plan: PlanDraft = {};
    if (rules.refAlone && path.length > 0 && typeof schema.$ref === "string") {
      return this.#refAlone(schema, path);
    }
    const types = declaredTypes(schema);
    const isObjectSchema = path.length === 0 || types?.has("object") === true ||
      has(schema, "properties");
    let oneOfAsAnyOf = false;
    for (const [keyword, value] of Object.entries(schema)) {
      path.push(keyword);
      if (
        keyword === "oneOf" && this.#profile.keywords.oneOf !== "kept" && !has(schema, "anyOf") &&
        Array.isArray(value) && provablyDisjoint(this.#root, value)
      ) {
        this.#transform("one_of_as_any_of", keyword, path.slice(0, -1));
        oneOfAsAnyOf = true;
        out.anyOf = this.#branches(value, path, depth, plan);
        path.pop();
        continue;
      }
      if (keyword === "additionalProperties" && rules.closedObjects && value !== false) {
        if (this.#options.closeOpenObjects) {
          this.#transform("object_closed", keyword, path.slice(0, -1));
          out[keyword] = false;
        } else this.#refuse(keyword, path.slice(0, -1));
        path.pop();
        continue;
      }
      const rule = this.#rule(keyword, value);
      if (rule === "dropped") {
        this.#transform("annotation_dropped", keyword, path.slice(0, -1));
      } else if (rule === "rejected" || (rule === "ignored" && this.#options.exact)) {
        this.#refuse(keyword, path.slice(0, -1));
      } else if (rule === "ignored") {
        this.lossy.push({ keyword, path: toPointer(path.slice(0, -1)) });
        out[keyword] = structuredClone(value);
      } else {
        out[keyword] = this.#keyword(keyword, value, path, depth, plan);
      }
      path.pop();
    }
    if (isObjectSchema) this.#object(schema, out, path, depth, plan);
    if (
      rules.typed && path.length > 0 && !oneOfAsAnyOf &&
      !["type", "anyOf", "$ref", "enum", "const"].some((k) => has(schema, k))
    ) this.#refuse("type", path);
    if (rules.arrayItems && types?.has("array") && !has(schema, "items")) {
      this.#refuse("items", path);
    }
    return [out, isEmpty(plan) ? undefined : plan];
  }

  /** A `$ref` without siblings: annotations beside it dropped, anything else refused. */
  #refAlone(schema: JsonObject, path: Token[]): [JsonValue, NullPlan | undefined] {
    for (const keyword of Object.keys(schema)) {
      if (keyword === "$ref") continue;
      if (keywordRule(keyword)?.kind === "annotation") {
        this.#transform("annotation_dropped", keyword, path);
      } else this.#refuse(keyword, path);
    }
    const ref = schema.$ref as string;
    return [{ $ref: ref }, this.#profile.rules.allRequired ? { ref } : undefined];
  }

  /** A kept keyword's value, its subschemas translated. */
  #keyword(
    keyword: string,
    value: JsonValue,
    path: Token[],
    depth: number,
    plan: PlanDraft,
  ): JsonValue {
    const kind = keywordRule(keyword)?.kind;
    if (kind === "schema") {
      const [out, inner] = this.schema(value, path, depth);
      if (keyword === "items" && inner) plan.items = inner;
      return out;
    }
    if (kind === "schemaMap" && isObject(value)) {
      const out: JsonObject = {};
      for (const [name, member] of Object.entries(value)) {
        path.push(name);
        const [translated, inner] = this.schema(member, path, depth + 1);
        path.pop();
        out[name] = translated;
        if (!inner) continue;
        if (keyword === "properties") (plan.properties ??= {})[name] = inner;
        else this.defPlans[`#/${keyword}/${name}`] = inner;
      }
      if (keyword === "properties") {
        this.properties += Object.keys(value).length;
        for (const member of Object.values(value)) {
          if (
            isObject(member) && (has(member, "anyOf") || has(member, "oneOf") ||
              (Array.isArray(member.type) && member.type.length > 1))
          ) this.unions++;
        }
      }
      return out;
    }
    if (kind === "schemaArray" && Array.isArray(value)) {
      return keyword === "anyOf"
        ? this.#branches(value, path, depth, plan)
        : value.map((branch, index) => {
          path.push(index);
          const [out] = this.schema(branch, path, depth);
          path.pop();
          return out;
        });
    }
    if (keyword === "$ref" && typeof value === "string" && this.#profile.rules.allRequired) {
      plan.ref = value;
    }
    return structuredClone(value);
  }

  /**
   * `anyOf` branches. A branch with a plan must be the only one admitting objects (or
   * arrays), so an instance's kind says which plan applies.
   */
  #branches(
    branches: readonly JsonValue[],
    path: Token[],
    depth: number,
    plan: PlanDraft,
  ): JsonValue[] {
    const out: JsonValue[] = [];
    const plans: [Set<string>, NullPlan][] = [];
    branches.forEach((branch, index) => {
      path.push(index);
      const [translated, inner] = this.schema(branch, path, depth);
      path.pop();
      out.push(translated);
      if (inner) plans.push([kindsOf(this.#root, branch), inner]);
    });
    for (const [kinds, inner] of plans) {
      const kind = kinds.size === 1 && kinds.has("object")
        ? "object"
        : kinds.size === 1 && kinds.has("array")
        ? "array"
        : undefined;
      const rivals = branches.filter((branch) => kind && kindsOf(this.#root, branch).has(kind));
      if (kind === undefined || rivals.length !== 1) {
        this.#refuse(String(path.at(-1)), path.slice(0, -1));
        continue;
      }
      if (kind === "object") plan.whenObject = inner;
      else plan.whenArray = inner;
    }
    return out;
  }

  /** Object rules: closed objects, required properties, nesting and size. */
  #object(
    schema: JsonObject,
    out: JsonObject,
    path: Token[],
    depth: number,
    plan: PlanDraft,
  ): void {
    const rules = this.#profile.rules;
    if (rules.closedObjects && !has(schema, "additionalProperties")) {
      if (this.#options.closeOpenObjects) {
        this.#transform("object_closed", "additionalProperties", path);
        out.additionalProperties = false;
      } else this.#refuse("additionalProperties", path);
    }
    if (rules.maxObjectDepth !== undefined && depth >= rules.maxObjectDepth) {
      this.#refuse("properties", path);
    }
    const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const optional = properties.filter((name) => !required.has(name));
    if (rules.requiredListed && [...required].some((name) => !properties.includes(name))) {
      this.#refuse("required", path);
    }
    if (!rules.allRequired) {
      this.optional += optional.length;
      return;
    }
    const outProperties = out.properties as JsonObject | undefined;
    for (const name of optional) {
      const at = [...path, "properties", name];
      if (this.#admitsNull((schema.properties as JsonObject)[name])) {
        // A `null` the model sends could then mean the value or the absence: not undoable.
        this.#refuse("required", at);
        continue;
      }
      this.#transform("optional_made_nullable", "required", at);
      if (outProperties) outProperties[name] = withNull(outProperties[name]);
      (plan.nullable ??= []).push(name);
    }
    if (properties.length > 0 || has(schema, "required")) {
      out.required = [...new Set([...required, ...properties])];
    }
  }
}

/**
 * Translates `input` for `mode`. A schema outside the schema profile is refused with the
 * profile's keyword and path.
 *
 * @param input the tool's input schema
 * @param mode the fidelity mode
 * @param options `exact` and `closeOpenObjects`
 *
 * @category Agent developers: providers
 */
export function translateSchema(
  input: Readonly<JsonObject>,
  mode: FidelityMode,
  options: TranslateOptions = {},
): Translation {
  // An input schema: its `x-mcp-header` declarations are admitted here and dropped below.
  const checked = checkSchema(input, { mcpHeaders: true });
  const empty = { transforms: [], lossy: [], optional: 0, unions: 0 };
  if (!checked.ok) {
    return {
      ...empty,
      refusals: checked.problems.map(({ keyword, path }) => ({ keyword, path })),
    };
  }
  const profile = FIDELITY[mode];
  const [root, unused] = profile.rules.dropUnusedDefinitions
    ? withoutUnusedDefinitions(input as JsonObject)
    : [input as JsonObject, []];
  const translator = new Translator(root, profile, options);
  for (const path of unused) {
    translator.transforms.push({ kind: "annotation_dropped", keyword: "$defs", path });
  }
  const refusals = translator.refusals;
  for (const keyword of ROOT_REJECTED) if (has(root, keyword)) refusals.push({ keyword, path: "" });
  if (has(root, "type") && root.type !== "object") refusals.push({ keyword: "type", path: "" });
  const [translated, rootPlan] = translator.schema(root, [], 0);
  let schema = translated as JsonObject;
  if (!has(root, "type")) {
    translator.transforms.unshift({ kind: "root_type_added", keyword: "type", path: "" });
    schema = { type: "object", ...schema };
  }
  if (profile.rules.noRecursion) {
    const cycle = refCycle(root);
    if (cycle) refusals.push({ keyword: "$ref", path: cycle });
  }
  const { maxProperties, maxEnumValues, maxSchemaText } = profile.rules;
  if (maxProperties !== undefined && translator.properties > maxProperties) {
    refusals.push({ keyword: "properties", path: "" });
  }
  if (maxEnumValues !== undefined || maxSchemaText !== undefined) {
    const size = sizeOf(schema);
    if (size.enumValues > (maxEnumValues ?? Infinity)) refusals.push({ keyword: "enum", path: "" });
    if (size.text > (maxSchemaText ?? Infinity)) refusals.push({ keyword: "properties", path: "" });
  }
  const nullable = translator.transforms.some((t) => t.kind === "optional_made_nullable");
  return {
    schema: refusals.length === 0 ? schema : undefined,
    transforms: translator.transforms,
    lossy: translator.lossy,
    refusals,
    nulls: nullable && refusals.length === 0
      ? { root: rootPlan ?? {}, defs: translator.defPlans }
      : undefined,
    optional: translator.optional,
    unions: translator.unions,
  };
}
