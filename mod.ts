/**
 * sluice: governed local tools from remote MCP servers.
 *
 * This entry point re-exports the public API; each export carries its own documentation.
 *
 * @example
 * ```ts
 * import { digest } from "@sluice/mcp";
 * console.log(await digest({ hello: "world" }));
 * ```
 *
 * @module
 */
export { SluiceError } from "./src/errors.ts";
export {
  canonicalize,
  DEFAULT_JSON_LIMITS,
  digest,
  type JsonArray,
  type JsonErrorCode,
  type JsonLimits,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  JsonValueError,
} from "./src/identity/mod.ts";
export {
  checkSchema,
  type CheckSchemaOptions,
  compileSchema,
  type CompileSchemaOptions,
  DEFAULT_MAX_EVALUATIONS,
  DEFAULT_SCHEMA_LIMITS,
  DEFAULT_VALUE_LIMITS,
  PATTERN_INPUT_LIMIT,
  SCHEMA_PROFILE,
  type SchemaCheckResult,
  type SchemaLimits,
  type SchemaProblem,
  type SchemaProblemCode,
  type SchemaValidator,
  type ValidationError,
  type ValidationErrorCode,
  type ValidationResult,
} from "./src/schema/mod.ts";
