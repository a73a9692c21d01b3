import type { JsonLimits, JsonObject } from "../identity/json.ts";
import type { CodeIn } from "../codes.ts";

/**
 * The name of sluice's schema profile, recorded wherever a schema was checked.
 *
 * @category Schema profile
 */
export const SCHEMA_PROFILE = "sluice.schema/v1";

/**
 * Stable codes for why a schema does not fit the profile.
 *
 * @category Schema profile
 */
export type SchemaProblemCode = CodeIn<"SchemaProblemCode">;

/**
 * One reason a schema does not fit the profile. Never carries the offending value.
 *
 * @category Schema profile
 */
export interface SchemaProblem {
  /** Stable code. */
  readonly code: SchemaProblemCode;
  /** The keyword at fault, for example `x-fastmcp-wrap-result` or `$ref`. */
  readonly keyword: string;
  /** JSON Pointer (RFC 6901) of the keyword inside the schema. */
  readonly path: string;
}

/**
 * Cost budgets for one schema.
 *
 * @category Schema profile
 */
export interface SchemaLimits {
  /** Most UTF-8 bytes of the schema's canonical JSON. */
  readonly maxBytes: number;
  /** Deepest JSON nesting inside the schema. */
  readonly maxDepth: number;
  /** Most JSON nodes in the schema. */
  readonly maxNodes: number;
  /** Most members of one `enum`. */
  readonly maxEnumLength: number;
  /** Most characters of one `pattern`. */
  readonly maxPatternLength: number;
}

/**
 * Options for {@link checkSchema}.
 *
 * @category Schema profile
 */
export interface CheckSchemaOptions {
  /** Lower or raise the budgets; unspecified ones keep their defaults. */
  readonly limits?: Partial<SchemaLimits>;
  /**
   * Admit `x-mcp-header` declarations, as MCP 2026-07-28 defines them for a tool's
   * `inputSchema`: on properties reached from the root through `properties` only, a non-empty
   * RFC 9110 token, on a `string`, `integer`, `boolean` (or, as the conformance suite and the
   * official SDKs have it, `number`) property, unique ignoring case. A
   * declaration that breaks a rule is `schema_mcp_header_invalid`. Default `false`: the keyword
   * is unknown, like every `x-*` (output schemas have no such extension).
   */
  readonly mcpHeaders?: boolean;
}

/**
 * Result of {@link checkSchema}: the schema as given, or every problem found.
 *
 * @category Schema profile
 */
export type SchemaCheckResult =
  | { readonly ok: true; readonly schema: JsonObject }
  | { readonly ok: false; readonly problems: readonly SchemaProblem[] };

/**
 * Stable codes for why a value failed validation.
 *
 * @category Schema profile
 */
export type ValidationErrorCode = CodeIn<"ValidationErrorCode">;

/**
 * One validation failure: where and which keyword; never the offending value.
 *
 * @category Schema profile
 */
export interface ValidationError {
  /** Stable code. */
  readonly code: ValidationErrorCode;
  /** JSON Pointer (RFC 6901) into the validated value. */
  readonly path: string;
  /** The schema keyword that failed, or the budget that was exceeded. */
  readonly keyword: string;
}

/**
 * Result of a compiled validator.
 *
 * @category Schema profile
 */
export type ValidationResult =
  | { readonly valid: true }
  | { readonly valid: false; readonly errors: readonly ValidationError[] };

/**
 * Options for {@link compileSchema}.
 *
 * @category Schema profile
 */
export interface CompileSchemaOptions extends CheckSchemaOptions {
  /** Bounds on validated values, checked before validation runs. */
  readonly valueLimits?: Partial<JsonLimits>;
  /**
   * Most units of work one validation may perform (about one subschema evaluation each; members
   * walked, values compared, pattern tests by length and recorded failures are charged too);
   * past it the value is refused with `value_over_budget` (keyword `maxEvaluations`). Bounds
   * schemas whose references fan out, and the time of any one validation.
   * NaN or a negative number throws a `RangeError` instead of lifting the bound.
   */
  readonly maxEvaluations?: number;
}

/**
 * A compiled validator for one profile-conforming schema.
 *
 * @category Schema profile
 */
export type SchemaValidator = (value: unknown) => ValidationResult;
