/**
 * Freezing the plain data sluice builds (snapshots, reports), and knowing afterwards that a
 * tree is frozen all the way down: work derived from such a tree (a schema's check) can then be
 * kept with it, since nothing in it can change.
 *
 * @module
 */

/** Plain objects and arrays this module froze whole, every descendant included. */
const frozenTrees = new WeakSet<object>();

const isPlain = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
};

/**
 * Freezes a JSON-like tree in place, every object and array reachable from it (class instances
 * too, though only plain objects and arrays count as {@link isDeeplyFrozen}). Meant for data
 * sluice parsed or built itself: plain data properties, no accessors or proxies.
 *
 * @category Identity
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) freezeTree(value);
  return value;
}

/** Freezes `value` and what it holds; whether it is now frozen whole. */
function freezeTree(value: object): boolean {
  if (frozenTrees.has(value)) return true;
  Object.freeze(value);
  let whole = isPlain(value);
  // Marked before its children are visited, so a cycle ends (its members get frozen all the same).
  if (whole) frozenTrees.add(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const child = value[index];
      if (typeof child === "object" && child !== null && !freezeTree(child)) whole = false;
    }
  } else {
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null && !freezeTree(child)) whole = false;
    }
  }
  if (!whole) frozenTrees.delete(value);
  return whole;
}

/**
 * Whether `value` is a plain object or array that {@link deepFreeze} froze whole: nothing in it
 * can change any more.
 *
 * @category Identity
 */
export function isDeeplyFrozen(value: unknown): boolean {
  return typeof value === "object" && value !== null && frozenTrees.has(value);
}
