/**
 * The array keywords of a walk, in cfworker's order: item counts, `prefixItems`, `items`,
 * `contains` with its bounds, then `unevaluatedItems`.
 *
 * @module
 */
import { COSTS } from "./costs.ts";
import type { SchemaNode } from "./tree.ts";
import type { Evaluated, Walker } from "./walker.ts";

/** The array keywords of `node` on `instance`. */
export function arrayKeywords(
  walk: Walker,
  node: SchemaNode,
  instance: unknown[],
  evaluated: Evaluated | undefined,
): boolean {
  let valid = true;
  const length = instance.length;
  if (node.maxItems !== undefined && length > node.maxItems) {
    valid = false;
    walk.fail("maxItems");
  }
  if (node.minItems !== undefined && length < node.minItems) {
    valid = false;
    walk.fail("minItems");
  }
  let index = 0;
  if (node.prefixItems !== undefined) {
    const prefix = Math.min(node.prefixItems.length, length);
    for (; index < prefix; index++) {
      const ok = walk.below(node.prefixItems[index], instance[index], index);
      evaluated?.add(index);
      if (!ok) {
        valid = false;
        walk.fail("prefixItems");
      }
    }
  }
  if (node.items !== undefined) {
    for (; index < length; index++) {
      const ok = walk.below(node.items, instance[index], index);
      evaluated?.add(index);
      if (!ok) {
        valid = false;
        walk.fail("items");
      }
    }
  }
  if (node.contains !== undefined && !contains(walk, node, instance, evaluated)) valid = false;
  if (node.unevaluatedItems !== undefined) {
    walk.charge((length - index) * COSTS.member);
    for (; index < length; index++) {
      if (evaluated!.has(index)) continue;
      const ok = walk.below(node.unevaluatedItems, instance[index], index);
      evaluated!.add(index);
      if (!ok) {
        valid = false;
        walk.fail("unevaluatedItems");
      }
    }
  }
  return valid;
}

/** `contains` with `minContains` and `maxContains`, as cfworker decides and reports them. */
function contains(
  walk: Walker,
  node: SchemaNode,
  instance: unknown[],
  evaluated: Evaluated | undefined,
): boolean {
  const { minContains, maxContains } = node;
  const length = instance.length;
  if (length === 0 && minContains === undefined) {
    walk.fail("contains");
    return false;
  }
  if (minContains !== undefined && length < minContains) {
    walk.fail("minContains");
    return false;
  }
  const mark = walk.mark();
  let contained = 0;
  for (let index = 0; index < length; index++) {
    if (walk.below(node.contains!, instance[index], index)) {
      evaluated?.add(index);
      contained++;
    }
  }
  // The items' failures stay only when too few items matched a `minContains`.
  if (contained >= (minContains || 0)) walk.forget(mark);
  if (minContains === undefined && contained === 0) {
    walk.fail("contains");
    return false;
  }
  if (minContains !== undefined && contained < minContains) {
    walk.fail("minContains");
    return false;
  }
  if (maxContains !== undefined && contained > maxContains) {
    walk.fail("maxContains");
    return false;
  }
  return true;
}
