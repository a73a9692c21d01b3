/**
 * The strict schema profile `sluice.schema/v1`: which JSON Schemas sluice accepts for tool
 * arguments and results, and the validator it compiles them into.
 *
 * @module
 */
export { checkSchema } from "./check.ts";
export { compileSchema } from "./compile.ts";
export { SchemaUnsupportedError } from "./errors.ts";
export {
  headerDeclarations,
  type McpHeaderDeclaration,
  type McpHeaderType,
  X_MCP_HEADER,
} from "./mcp_header.ts";
export { DEFAULT_MAX_EVALUATIONS, DEFAULT_SCHEMA_LIMITS, DEFAULT_VALUE_LIMITS } from "./limits.ts";
export {
  type CheckSchemaOptions,
  type CompileSchemaOptions,
  SCHEMA_PROFILE,
  type SchemaCheckResult,
  type SchemaLimits,
  type SchemaProblem,
  type SchemaProblemCode,
  type SchemaValidator,
  type ValidationError,
  type ValidationErrorCode,
  type ValidationResult,
} from "./types.ts";
