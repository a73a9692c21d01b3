/**
 * Canonical identity of JSON values: RFC 8785 canonical form and its SHA-256 digest.
 *
 * @module
 */
export {
  type CanonicalForm,
  canonicalForm,
  canonicalize,
  utf8Length,
  withinBytes,
} from "./canonicalize.ts";
export { digest, digestText } from "./digest.ts";
export { type JsonErrorCode, JsonValueError } from "./errors.ts";
export { deepFreeze, isDeeplyFrozen } from "./freeze.ts";
export {
  DEFAULT_JSON_LIMITS,
  isRecord,
  type JsonArray,
  type JsonLimits,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
} from "./json.ts";
export { escapePointerToken, toPointer } from "./pointer.ts";
export { resolveLimits } from "./limits.ts";
