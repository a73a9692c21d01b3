/**
 * When `oneOf` may be written as `anyOf`: exactly when no value can match two branches. This
 * module proves disjointness from what the branches say outright (types, constant values, a
 * required discriminating property); anything it cannot prove counts as overlapping.
 *
 * @module
 */
import { canonicalize } from "../identity/mod.ts";
import type { JsonObject, JsonValue } from "../identity/mod.ts";

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The JSON types a value has (an integral number is both `integer` and `number`).
 *
 * @category Agent developers: providers
 */
export function typesOfValue(value: JsonValue): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") {
    return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  }
  return [typeof value];
}

/**
 * The `type` keyword as a set (`integer` implied by `number`), or `undefined` when absent.
 *
 * @category Agent developers: providers
 */
export function declaredTypes(schema: JsonObject): Set<string> | undefined {
  const type = schema.type;
  if (type === undefined) return undefined;
  const types = new Set(Array.isArray(type) ? type.map(String) : [String(type)]);
  if (types.has("number")) types.add("integer");
  return types;
}

/** The values a schema is limited to by `const` or `enum`, canonicalized, if it is. */
function valueSet(schema: JsonObject): Map<string, JsonValue> | undefined {
  if (Object.hasOwn(schema, "const")) return new Map([[canonicalize(schema.const), schema.const]]);
  if (Array.isArray(schema.enum)) {
    return new Map(schema.enum.map((value) => [canonicalize(value), value]));
  }
  return undefined;
}

/**
 * Follows a local `$ref` (the profile admits only `#/$defs/x` and `#/definitions/x`).
 *
 * @category Agent developers: providers
 */
export function resolveRef(root: JsonObject, ref: string): JsonValue | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const container = match ? root[match[1]] : undefined;
  return isObject(container) && Object.hasOwn(container, match![2])
    ? container[match![2]]
    : undefined;
}

function resolved(root: JsonObject, schema: JsonValue, depth = 0): JsonValue | undefined {
  if (isObject(schema) && typeof schema.$ref === "string" && depth < 8) {
    const others = Object.keys(schema).filter((key) => key !== "$ref" && key !== "description");
    if (others.length > 0) return undefined;
    const target = resolveRef(root, schema.$ref);
    return target === undefined ? undefined : resolved(root, target, depth + 1);
  }
  return schema;
}

function intersects(a: Set<string>, b: Set<string>): boolean {
  for (const type of a) if (b.has(type)) return true;
  return false;
}

/** Whether no value can be valid against both `a` and `b`, as far as can be proven. */
function pairDisjoint(root: JsonObject, left: JsonValue, right: JsonValue, depth: number): boolean {
  const a = resolved(root, left);
  const b = resolved(root, right);
  if (a === false || b === false) return true;
  if (!isObject(a) || !isObject(b) || depth > 4) return false;
  const typesA = declaredTypes(a);
  const typesB = declaredTypes(b);
  if (typesA && typesB && !intersects(typesA, typesB)) return true;
  const valuesA = valueSet(a);
  const valuesB = valueSet(b);
  if (valuesA && valuesB && ![...valuesA.keys()].some((key) => valuesB.has(key))) return true;
  for (const [values, types] of [[valuesA, typesB], [valuesB, typesA]] as const) {
    if (
      values && types &&
      [...values.values()].every((v) => !typesOfValue(v).some((t) => types.has(t)))
    ) {
      return true;
    }
  }
  // A discriminator: a property both require, whose schemas are disjoint. `required` binds
  // only objects, so both branches must accept nothing else.
  const objectOnly = (types: Set<string> | undefined) =>
    types !== undefined && types.size === 1 && types.has("object");
  if (!objectOnly(typesA) || !objectOnly(typesB)) return false;
  const requiredA = Array.isArray(a.required) ? a.required : [];
  const requiredB = new Set(Array.isArray(b.required) ? b.required : []);
  const propsA = isObject(a.properties) ? a.properties : {};
  const propsB = isObject(b.properties) ? b.properties : {};
  return requiredA.some((name) =>
    typeof name === "string" && requiredB.has(name) && Object.hasOwn(propsA, name) &&
    Object.hasOwn(propsB, name) && pairDisjoint(root, propsA[name], propsB[name], depth + 1)
  );
}

/**
 * Whether the branches are pairwise disjoint, so `oneOf` over them accepts exactly what
 * `anyOf` accepts.
 *
 * @param root the schema the branches belong to (for `$ref`)
 * @param branches the `oneOf` branches
 *
 * @category Agent developers: providers
 */
export function provablyDisjoint(root: JsonObject, branches: readonly JsonValue[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if (!pairDisjoint(root, branches[i], branches[j], 0)) return false;
    }
  }
  return true;
}
