/**
 * The object keywords of a walk, in cfworker's order: the object's shape (`required`, member
 * counts, `propertyNames`, the dependent keywords), then its members (`properties`,
 * `patternProperties`, then `additionalProperties` or `unevaluatedProperties`).
 *
 * @module
 */
import { COSTS } from "./costs.ts";
import type { SchemaNode } from "./tree.ts";
import type { Evaluated, Walker } from "./walker.ts";

/** The object keywords of `node` on `instance`. */
export function objectKeywords(
  walk: Walker,
  node: SchemaNode,
  instance: Record<string, unknown>,
  evaluated: Evaluated | undefined,
): boolean {
  const keys = node.readsKeys ? Object.keys(instance) : undefined;
  const shaped = objectShape(walk, node, instance, keys, evaluated);
  return objectMembers(walk, node, instance, keys, evaluated) && shaped;
}

/** `required`, `minProperties`, `maxProperties`, `propertyNames`, `dependent*`. */
function objectShape(
  walk: Walker,
  node: SchemaNode,
  instance: Record<string, unknown>,
  keys: string[] | undefined,
  evaluated: Evaluated | undefined,
): boolean {
  let valid = true;
  if (node.required !== undefined) {
    walk.charge(node.required.length * COSTS.member);
    for (const key of node.required) {
      if (!Object.hasOwn(instance, key)) {
        valid = false;
        walk.fail("required");
      }
    }
  }
  if (node.minProperties !== undefined && keys!.length < node.minProperties) {
    valid = false;
    walk.fail("minProperties");
  }
  if (node.maxProperties !== undefined && keys!.length > node.maxProperties) {
    valid = false;
    walk.fail("maxProperties");
  }
  if (node.propertyNames !== undefined) {
    for (const key of keys!) {
      if (!walk.below(node.propertyNames, key, key)) {
        valid = false;
        walk.fail("propertyNames");
      }
    }
  }
  if (node.dependentRequired !== undefined) {
    for (const [key, needed] of node.dependentRequired) {
      walk.charge(COSTS.member);
      if (!Object.hasOwn(instance, key)) continue;
      walk.charge(needed.length * COSTS.member);
      for (const other of needed) {
        if (!Object.hasOwn(instance, other)) {
          valid = false;
          walk.fail("dependentRequired");
        }
      }
    }
  }
  if (node.dependentSchemas !== undefined) {
    for (const [key, sub] of node.dependentSchemas) {
      walk.charge(COSTS.member);
      if (Object.hasOwn(instance, key) && !walk.evaluate(sub, instance, evaluated)) {
        valid = false;
        walk.fail("dependentSchemas");
      }
    }
  }
  return valid;
}

/** `properties`, `patternProperties`, then `additionalProperties` or `unevaluatedProperties`. */
function objectMembers(
  walk: Walker,
  node: SchemaNode,
  instance: Record<string, unknown>,
  keys: string[] | undefined,
  evaluated: Evaluated | undefined,
): boolean {
  let valid = true;
  const properties = node.properties;
  if (properties !== undefined) {
    // Whichever side is smaller is walked; the pairs evaluated are the same.
    if (keys !== undefined && keys.length < properties.size) {
      walk.charge(keys.length * COSTS.member);
      for (const key of keys) {
        const sub = properties.get(key);
        if (sub !== undefined && !walk.member(sub, instance, key, evaluated, "properties")) {
          valid = false;
        }
      }
    } else {
      walk.charge(properties.size * COSTS.member);
      for (const [key, sub] of node.propertyList!) {
        if (
          Object.hasOwn(instance, key) &&
          !walk.member(sub, instance, key, evaluated, "properties")
        ) {
          valid = false;
        }
      }
    }
  }
  // Names some pattern matched: with `properties`, what `additionalProperties` skips.
  let matched: Set<string> | undefined;
  if (node.patternProperties !== undefined) {
    if (node.additionalProperties !== undefined) matched = new Set();
    for (const [matcher, sub] of node.patternProperties) {
      for (const key of keys!) {
        if (!walk.test(matcher, key)) continue;
        matched?.add(key);
        if (!walk.member(sub, instance, key, evaluated, "patternProperties")) valid = false;
      }
    }
  }
  const rest = node.additionalProperties ?? node.unevaluatedProperties;
  if (rest !== undefined) {
    // cfworker reads unevaluatedProperties only without additionalProperties.
    const additional = node.additionalProperties !== undefined;
    walk.charge(keys!.length * COSTS.member);
    for (const key of keys!) {
      if (
        additional ? properties?.has(key) || matched?.has(key) : evaluated!.has(key)
      ) {
        continue;
      }
      const keyword = additional ? "additionalProperties" : "unevaluatedProperties";
      if (!walk.member(rest, instance, key, evaluated, keyword)) valid = false;
    }
  }
  return valid;
}
