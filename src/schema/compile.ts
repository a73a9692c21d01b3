import { resolveLimits } from "../identity/limits.ts";
import { type CanonicalForm, canonicalize, withinBytes } from "../identity/canonicalize.ts";
import { JsonValueError } from "../identity/errors.ts";
import type { JsonObject, JsonValue } from "../identity/json.ts";
import { toPointer } from "../identity/pointer.ts";
import { isDeeplyFrozen } from "../identity/freeze.ts";
import { SchemaUnsupportedError } from "./errors.ts";
import { checkSchema } from "./check.ts";
import { budgetRefusal, DEFAULT_MAX_EVALUATIONS, DEFAULT_VALUE_LIMITS } from "./limits.ts";
import { OUT_OF_BUDGET } from "./costs.ts";
import { type CompiledTree, compileTree, subtreeCompiler } from "./tree.ts";
import { Walk } from "./walk.ts";
import type { Failure } from "./walker.ts";
import type {
  CompileSchemaOptions,
  SchemaValidator,
  ValidationError,
  ValidationResult,
} from "./types.ts";

const OVER_BUDGET: ValidationResult = Object.freeze({
  valid: false,
  errors: Object.freeze([
    Object.freeze({ code: "value_over_budget", path: "", keyword: "maxEvaluations" } as const),
  ]),
});

/** The result of failures: deduplicated by pointer and keyword, sorted by pointer, then keyword. */
function failed(failures: readonly Failure[]): ValidationResult {
  const seen = new Set<string>();
  const errors: ValidationError[] = [];
  for (const { keyword, tokens } of failures) {
    const path = toPointer(tokens);
    const key = `${keyword}\u0000${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push({ code: "value_invalid", path, keyword });
  }
  errors.sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.keyword < b.keyword ? -1 : 1
  );
  return { valid: false, errors };
}

/**
 * Validation of a value already known to be plain JSON, with the counts of its canonical form:
 * registered for each validator {@link compileSchema} returns (see {@link validateCanonical}).
 */
const canonicalEntries = new WeakMap<
  SchemaValidator,
  (value: JsonValue, form: CanonicalForm) => ValidationResult
>();

/**
 * Validates a detached value (`JSON.parse` of `form.text`) whose canonical form is `form`,
 * without canonicalizing it again: its value budget is checked on the counts `form` carries. The
 * result is exactly `validate(value)`'s. A validator not made by {@link compileSchema} is simply
 * called.
 *
 * @param validate the validator
 * @param value the parsed canonical text
 * @param form the canonical form it was parsed from
 *
 * @category Schema profile
 */
export function validateCanonical(
  validate: SchemaValidator,
  value: JsonValue,
  form: CanonicalForm,
): ValidationResult {
  const entry = canonicalEntries.get(validate);
  return entry === undefined ? validate(value) : entry(value, form);
}

/**
 * Compiles a schema that fits `sluice.schema/v1` into a validator. Throws a
 * {@link SchemaUnsupportedError} (code `schema_unsupported`, every problem in `problems`) when the schema
 * does not fit.
 *
 * The validator first bounds the value (plain JSON within `valueLimits`; defaults in
 * `DEFAULT_VALUE_LIMITS`), answering `value_over_budget` otherwise, then validates it as JSON
 * Schema 2020-12 by walking the schema compiled once (no code generation, no network), stopping
 * with `value_over_budget` (keyword `maxEvaluations`) past `maxEvaluations` units of work
 * (default `DEFAULT_MAX_EVALUATIONS`). Errors carry a
 * JSON Pointer into the value and the failing keyword (sorted by pointer, then keyword), never
 * the value or validator text. A pointer names the member's place, so it does contain the
 * names of the value's own properties (an unexpected property is reported at its own pointer
 * with keyword `false`, the boolean schema it failed).
 * Defaults are never applied and nothing is coerced.
 *
 * @example
 * ```ts
 * import { compileSchema } from "@sluice/mcp";
 * const validate = compileSchema({
 *   type: "object",
 *   properties: { path: { type: "string" } },
 *   required: ["path"],
 * });
 * validate({ path: "/tmp" }); // { valid: true }
 * validate({}); // { valid: false, errors: [{ code: "value_invalid", path: "", keyword: "required" }] }
 * ```
 *
 * @category Schema profile
 */
export function compileSchema(
  schema: unknown,
  options: CompileSchemaOptions = {},
): SchemaValidator {
  const checked = checkSchema(schema, options);
  if (!checked.ok) {
    throw new SchemaUnsupportedError(checked.problems);
  }
  const valueLimits = resolveLimits(DEFAULT_VALUE_LIMITS, options.valueLimits);
  const { maxEvaluations } = resolveLimits(
    { maxEvaluations: DEFAULT_MAX_EVALUATIONS },
    { maxEvaluations: options.maxEvaluations },
  );
  // Compiled from a private copy: nothing the caller changes later reaches the validator. A
  // schema frozen whole (a snapshot's) cannot change: it needs no copy, and its tree is built at
  // the first validation, so discovering many tools compiles only those that are called.
  const frozen = isDeeplyFrozen(checked.schema);
  const copy = frozen ? undefined : JSON.parse(canonicalize(checked.schema)) as JsonObject;
  let tree: CompiledTree | undefined = frozen ? undefined : compileTree(copy!);
  const walk = (value: unknown): ValidationResult => {
    let failures: Failure[] | null;
    try {
      tree ??= compileTree(checked.schema);
      failures = Walk.run(tree, value, maxEvaluations);
    } catch (error) {
      // Out of budget, or a stack overflow from references nested that deep.
      if (error === OUT_OF_BUDGET || error instanceof RangeError) return OVER_BUDGET;
      throw error;
    }
    return failures === null ? { valid: true } : failed(failures);
  };
  const validate = (value: unknown): ValidationResult => {
    try {
      canonicalize(value, valueLimits);
    } catch (error) {
      if (!(error instanceof JsonValueError)) throw error;
      const { keyword, path } = budgetRefusal(error);
      return { valid: false, errors: [{ code: "value_over_budget", path, keyword }] };
    }
    return walk(value);
  };
  canonicalEntries.set(
    validate,
    (value, form) =>
      form.nodes <= valueLimits.maxNodes && form.depth <= valueLimits.maxDepth &&
        withinBytes(form.text, valueLimits.maxBytes)
        ? walk(value)
        // Over a bound: the full check says which one, and where, exactly as `validate` does.
        : validate(value),
  );
  return validate;
}

/**
 * Whether subschemas of `root` accept `null`, asked one subschema at a time. `root` is a schema
 * `checkSchema` admitted (with `mcpHeaders`, as an input schema); each subschema is part of it
 * and may reference its definitions, which are compiled once for every question. A subschema
 * the budget cannot decide counts as accepting `null` (the safe answer to whether a property
 * may be given `null`).
 *
 * @example
 * ```ts
 * import { nullAcceptance } from "./compile.ts";
 * const root = {
 *   type: "object",
 *   properties: { a: { $ref: "#/$defs/text" } },
 *   $defs: { text: { type: ["string", "null"] } },
 * };
 * nullAcceptance(root)(root.properties.a); // true
 * ```
 *
 * @category Schema profile
 */
export function nullAcceptance(root: JsonObject): (schema: JsonValue) => boolean {
  const compile = subtreeCompiler(root);
  return (schema) => {
    try {
      return Walk.run(compile(schema), null, DEFAULT_MAX_EVALUATIONS) === null;
    } catch {
      // Out of budget, references nested too deep: not decided.
      return true;
    }
  };
}
