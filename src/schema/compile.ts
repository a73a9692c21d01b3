import { resolveLimits } from "../identity/limits.ts";
import { Validator } from "@cfworker/json-schema";
import { canonicalize } from "../identity/canonicalize.ts";
import { JsonValueError } from "../identity/errors.ts";
import type { JsonValue } from "../identity/json.ts";
import { SchemaUnsupportedError } from "./errors.ts";
import { checkSchema } from "./check.ts";
import { keywordRule } from "./keywords.ts";
import { budgetRefusal, DEFAULT_MAX_EVALUATIONS, DEFAULT_VALUE_LIMITS } from "./limits.ts";
import { isQuadratic } from "./pattern.ts";
import type {
  CompileSchemaOptions,
  SchemaValidator,
  ValidationError,
  ValidationResult,
} from "./types.ts";

/**
 * Longest string, in code points, that a pattern which may backtrack quadratically is tested
 * against; a longer string does not match. This caps one test near 1,024² steps. Patterns that
 * run in linear time (anchored, no two unbounded repetitions that can trade characters, such as
 * zod's base64) are tested on the whole string.
 */
export const PATTERN_INPUT_LIMIT = 1_024;

/**
 * `pattern` as the validator runs it: for a quadratic pattern, same matches on strings up to
 * {@link PATTERN_INPUT_LIMIT} code points and no match beyond. The leading `^` makes the engine
 * try one start position; the lazy `[\s\S]*?` then searches for a start exactly as an
 * unanchored pattern would, and the lookahead refuses a long string after reading at most the
 * limit. Admitted patterns have no backreferences, so the added groups change no numbering.
 */
function boundedPattern(pattern: string): string {
  if (!isQuadratic(pattern)) return pattern;
  return `^(?=[\\s\\S]{0,${PATTERN_INPUT_LIMIT}}$)[\\s\\S]*?(?:${pattern})`;
}

/**
 * The copy the validator runs on. `format` is removed wherever it is a keyword: it is an
 * annotation in the profile (as in 2020-12's default vocabulary), but `@cfworker/json-schema`
 * asserts the formats it knows (and its `url` expression backtracks exponentially). A
 * quadratic `pattern` gets its input bound. The checked schema itself is never changed. Recursion is bounded: the
 * schema passed its depth budget.
 */
function validationCopy(schema: JsonValue, meter: Meter): JsonValue {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const copy: Record<string, JsonValue> = {};
  // cfworker reads this property (absent in every admitted schema: it is derived from
  // `$recursiveRef`) once each time it evaluates a subschema object, so a getter here counts
  // evaluations. Non-enumerable: cfworker's own walk over the schema never sees it.
  Object.defineProperty(copy, EVALUATION_PROBE, { get: meter.tick, enumerable: false });
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "format") continue;
    if (keyword === "pattern") {
      copy[keyword] = boundedPattern(value as string);
      continue;
    }
    switch (keywordRule(keyword)?.kind) {
      case "schema":
        copy[keyword] = validationCopy(value, meter);
        break;
      case "schemaArray":
        copy[keyword] = (value as JsonValue[]).map((item) => validationCopy(item, meter));
        break;
      case "schemaMap":
        copy[keyword] = Object.fromEntries(
          Object.entries(value as Record<string, JsonValue>).map(([name, sub]) => [
            name,
            validationCopy(sub, meter),
          ]),
        );
        break;
      default:
        copy[keyword] = value;
    }
  }
  return copy;
}

/** The property cfworker reads once per subschema evaluation (see {@link validationCopy}). */
const EVALUATION_PROBE = "__absolute_recursive_ref__";

/** Thrown by the meter when a validation runs out of evaluations. */
const OUT_OF_EVALUATIONS = Symbol("out of evaluations");

/** Counts subschema evaluations of one validation against a limit. */
class Meter {
  count = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Counts one evaluation; throws {@link OUT_OF_EVALUATIONS} past the limit. */
  readonly tick = (): undefined => {
    if (++this.count > this.#limit) throw OUT_OF_EVALUATIONS;
    return undefined;
  };
}

/** cfworker's instance location (`#/a%20b/0`) as a plain JSON Pointer (`/a b/0`). */
function instancePointer(location: string): string {
  // cfworker escapes `~` and `/` per RFC 6901, then URI-encodes; decoding undoes exactly that.
  return decodeURIComponent(location.slice(1));
}

/**
 * Compiles a schema that fits `sluice.schema/v1` into a validator. Throws a
 * {@link SchemaUnsupportedError} (code `schema_unsupported`, every problem in `problems`) when the schema
 * does not fit.
 *
 * The validator first bounds the value (plain JSON within `valueLimits`; defaults in
 * `DEFAULT_VALUE_LIMITS`), answering `value_over_budget` otherwise, then validates it as JSON
 * Schema 2020-12 with `@cfworker/json-schema` (no code generation, no network), stopping with
 * `value_over_budget` (keyword `maxEvaluations`) past `maxEvaluations` subschema evaluations
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
  // A private deep copy: cfworker writes hidden properties into the schema it is given.
  const { maxEvaluations } = resolveLimits(
    { maxEvaluations: DEFAULT_MAX_EVALUATIONS },
    { maxEvaluations: options.maxEvaluations },
  );
  const meter = new Meter(maxEvaluations);
  const validator = new Validator(
    validationCopy(JSON.parse(canonicalize(checked.schema)), meter) as Record<string, unknown>,
    "2020-12",
    false,
  );
  const overBudget: ValidationResult = {
    valid: false,
    errors: [{ code: "value_over_budget", path: "", keyword: "maxEvaluations" }],
  };
  return (value: unknown): ValidationResult => {
    try {
      canonicalize(value, valueLimits);
    } catch (error) {
      if (!(error instanceof JsonValueError)) throw error;
      const { keyword, path } = budgetRefusal(error);
      return { valid: false, errors: [{ code: "value_over_budget", path, keyword }] };
    }
    let result: ReturnType<Validator["validate"]>;
    meter.count = 0;
    try {
      result = validator.validate(value);
    } catch (error) {
      // Out of evaluations, or a stack overflow from cfworker collecting that many errors.
      if (error === OUT_OF_EVALUATIONS || error instanceof RangeError) return overBudget;
      throw error;
    }
    if (result.valid) return { valid: true };
    const seen = new Set<string>();
    const errors: ValidationError[] = [];
    for (const { instanceLocation, keyword } of result.errors) {
      const path = instancePointer(instanceLocation);
      const key = `${keyword}\u0000${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      errors.push({ code: "value_invalid", path, keyword });
    }
    // cfworker lists a parent's error before its children's; sort for a stable order.
    errors.sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : a.keyword < b.keyword ? -1 : 1
    );
    return { valid: false, errors };
  };
}
