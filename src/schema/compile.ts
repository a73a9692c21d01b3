import { resolveLimits } from "../identity/limits.ts";
import { Validator } from "@cfworker/json-schema";
import { canonicalize } from "../identity/canonicalize.ts";
import { JsonValueError } from "../identity/errors.ts";
import type { JsonObject, JsonValue } from "../identity/json.ts";
import type { RE2JS } from "re2js";
import { SchemaUnsupportedError } from "./errors.ts";
import { checkSchema } from "./check.ts";
import { keywordRule } from "./keywords.ts";
import { budgetRefusal, DEFAULT_MAX_EVALUATIONS, DEFAULT_VALUE_LIMITS } from "./limits.ts";
import { UnadmittedPattern, withLinearRegExp } from "./linear_regexp.ts";
import { compilePattern } from "./pattern.ts";
import type {
  CompileSchemaOptions,
  SchemaValidator,
  ValidationError,
  ValidationResult,
} from "./types.ts";

/**
 * The copy the validator runs on. `format` is removed wherever it is a keyword: it is an
 * annotation in the profile (as in 2020-12's default vocabulary), but `@cfworker/json-schema`
 * asserts the formats it knows (and its `url` expression backtracks exponentially). Every
 * `pattern` and `patternProperties` name is compiled for RE2 into `matchers`, which the
 * validation runs them on (see `linear_regexp.ts`). The checked schema itself is never changed.
 * Recursion is bounded: the schema passed its depth budget.
 */
function validationCopy(
  schema: JsonValue,
  meter: Meter,
  matchers: Map<string, RE2JS>,
): JsonValue {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const copy: Record<string, JsonValue> = {};
  // cfworker reads this property (absent in every admitted schema: it is derived from
  // `$recursiveRef`) once each time it evaluates a subschema object, so a getter here counts
  // evaluations. Non-enumerable: cfworker's own walk over the schema never sees it.
  Object.defineProperty(copy, EVALUATION_PROBE, { get: meter.tick, enumerable: false });
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "format") continue;
    if (keyword === "pattern") addMatcher(matchers, value as string);
    if (keyword === "patternProperties") {
      for (const name of Object.keys(value as JsonObject)) addMatcher(matchers, name);
    }
    switch (keywordRule(keyword)?.kind) {
      case "schema":
        copy[keyword] = validationCopy(value, meter, matchers);
        break;
      case "schemaArray":
        copy[keyword] = (value as JsonValue[]).map((item) => validationCopy(item, meter, matchers));
        break;
      case "schemaMap":
        copy[keyword] = Object.fromEntries(
          Object.entries(value as Record<string, JsonValue>).map(([name, sub]) => [
            name,
            validationCopy(sub, meter, matchers),
          ]),
        );
        break;
      default:
        copy[keyword] = value;
    }
  }
  return copy;
}

/** Compiles one admitted pattern for RE2 into `matchers`, once per source. */
function addMatcher(matchers: Map<string, RE2JS>, source: string): void {
  if (matchers.has(source)) return;
  const compiled = compilePattern(source, Infinity);
  // checkSchema admitted the pattern, so it compiles; fail closed if it ever did not.
  if (!compiled.ok) throw new SchemaUnsupportedError([]);
  matchers.set(source, compiled.matcher);
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
  // A private deep copy: cfworker writes hidden properties into the schema it is given.
  const { maxEvaluations } = resolveLimits(
    { maxEvaluations: DEFAULT_MAX_EVALUATIONS },
    { maxEvaluations: options.maxEvaluations },
  );
  const meter = new Meter(maxEvaluations);
  const matchers = new Map<string, RE2JS>();
  const validator = new Validator(
    validationCopy(JSON.parse(canonicalize(checked.schema)), meter, matchers) as Record<
      string,
      unknown
    >,
    "2020-12",
    false,
  );
  const overBudget: ValidationResult = {
    valid: false,
    errors: [{ code: "value_over_budget", path: "", keyword: "maxEvaluations" }],
  };
  const patternRefused: ValidationResult = {
    valid: false,
    errors: [{ code: "value_invalid", path: "", keyword: "pattern" }],
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
      result = withLinearRegExp(matchers, meter.tick, () => validator.validate(value));
    } catch (error) {
      // Out of evaluations, or a stack overflow from cfworker collecting that many errors.
      if (error === OUT_OF_EVALUATIONS || error instanceof RangeError) return overBudget;
      // The global RegExp could not be replaced (a frozen realm): no pattern runs, none passes.
      if (error instanceof UnadmittedPattern) return patternRefused;
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
