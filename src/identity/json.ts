/**
 * Plain JSON value types shared by every module of sluice.
 *
 * @module
 */

/**
 * A JSON primitive.
 *
 * @category Identity
 */
export type JsonPrimitive = string | number | boolean | null;

/**
 * A JSON array.
 *
 * @category Identity
 */
export type JsonArray = JsonValue[];

/**
 * A JSON object with string keys.
 *
 * @category Identity
 */
export interface JsonObject {
  /** Any member. */
  [key: string]: JsonValue;
}

/**
 * Any plain JSON value: what survives `JSON.parse` unchanged.
 *
 * @category Identity
 */
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;

/**
 * Bounds applied to untrusted JSON values before any deep work is done on them.
 * Sizes count the UTF-8 bytes of the canonical form.
 *
 * @category Identity
 */
export interface JsonLimits {
  /** Deepest nesting of arrays and objects: a scalar has depth 0, `[]` 1, `[[]]` 2. */
  readonly maxDepth: number;
  /** Most values (objects, arrays, members, primitives) in the whole tree. */
  readonly maxNodes: number;
  /** Most UTF-8 bytes of the canonical JSON text. */
  readonly maxBytes: number;
}

/**
 * Defaults for {@link JsonLimits}: depth 256, one million nodes, 16 MiB.
 *
 * @category Identity
 */
export const DEFAULT_JSON_LIMITS: JsonLimits = Object.freeze({
  maxDepth: 256,
  maxNodes: 1_000_000,
  maxBytes: 16 * 1024 * 1024,
});

/**
 * Whether `value` is a plain object: not null, not an array.
 *
 * @category Identity
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
