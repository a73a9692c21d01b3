import { resolveLimits } from "../identity/limits.ts";
import { canonicalize } from "../identity/canonicalize.ts";
import { JsonValueError } from "../identity/errors.ts";
import type { JsonObject, JsonValue } from "../identity/json.ts";
import { toPointer } from "../identity/pointer.ts";
import { deepFreeze, isDeeplyFrozen } from "../identity/freeze.ts";
import { type Dialect, dialectOf, DRAFT07_REF_SIBLINGS } from "./dialect.ts";
import { keywordRule } from "./keywords.ts";
import { budgetRefusal, DEFAULT_SCHEMA_LIMITS } from "./limits.ts";
import { invalidHeaderDeclarations, X_MCP_HEADER } from "./mcp_header.ts";
import { compilePattern, type PatternProblem } from "./pattern.ts";
import type {
  CheckSchemaOptions,
  SchemaCheckResult,
  SchemaLimits,
  SchemaProblem,
  SchemaProblemCode,
} from "./types.ts";

type Token = string | number;

const TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
/** Definition names a `$ref` may name: no characters that URI or pointer encoding would alter. */
const DEFINITION_NAME = /^[A-Za-z0-9_.-]+$/;
const REF = /^#\/(\$defs|definitions)\/([^/]*)$/;
/** 2020-12's anchor syntax (a plain-name fragment). */
const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const CONTAINERS = ["$defs", "definitions"] as const;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isUniqueStrings = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === "string") &&
  new Set(value).size === value.length;

const PATTERN_CODES: Readonly<Record<PatternProblem, SchemaProblemCode>> = {
  too_long: "schema_pattern_too_long",
  invalid: "schema_pattern_invalid",
  unsupported: "schema_pattern_unsupported",
  too_complex: "schema_pattern_too_complex",
};

/** Walks one schema already bounded in bytes, depth and nodes, collecting every problem. */
class SchemaChecker {
  readonly problems: SchemaProblem[] = [];
  readonly #limits: SchemaLimits;
  readonly #root: JsonObject;
  readonly #mcpHeaders: boolean;
  #dialect: Dialect = "2020-12";
  /** Definition name → definitions it references at the same instance location. */
  readonly #inPlaceRefs = new Map<string, Set<string>>();
  /** Anchor → the definition (`$defs/name`) whose root declares it. */
  readonly #definitionAnchors = new Map<string, string>();
  /** Every anchor declared, to refuse a second declaration of one name. */
  readonly #anchors = new Set<string>();

  constructor(root: JsonObject, limits: SchemaLimits, mcpHeaders: boolean) {
    this.#root = root;
    this.#limits = limits;
    this.#mcpHeaders = mcpHeaders;
  }

  #report(code: SchemaProblemCode, keyword: string, path: readonly Token[]): void {
    this.problems.push({ code, keyword, path: toPointer(path) });
  }

  run(): void {
    const declared = this.#root.$schema;
    if (declared !== undefined) {
      if (typeof declared !== "string") {
        this.#report("schema_keyword_invalid", "$schema", ["$schema"]);
        return;
      }
      const dialect = dialectOf(declared);
      if (dialect === undefined) {
        this.#report("schema_dialect_unsupported", "$schema", ["$schema"]);
        return;
      }
      this.#dialect = dialect;
    }
    // Anchors on definitions are the targets a `$ref: "#name"` may name.
    for (const container of CONTAINERS) {
      const definitions = this.#root[container];
      if (!isObject(definitions)) continue;
      for (const [name, definition] of Object.entries(definitions)) {
        const anchor = isObject(definition) ? definition.$anchor : undefined;
        if (typeof anchor === "string") this.#definitionAnchors.set(anchor, `${container}/${name}`);
      }
    }
    this.#schema(this.#root, [], undefined);
    this.#refCycles();
    if (this.#mcpHeaders) {
      for (const path of invalidHeaderDeclarations(this.#root)) {
        this.problems.push({ code: "schema_mcp_header_invalid", keyword: X_MCP_HEADER, path });
      }
    }
  }

  /**
   * Checks one subschema. `owner` is the definition whose body holds it at the same instance
   * location (reached through in-place applicators only), for detecting `$ref` loops.
   */
  #schema(schema: JsonValue, path: Token[], owner: string | undefined): void {
    if (typeof schema === "boolean") return;
    if (!isObject(schema)) {
      this.#report("schema_not_object", String(path.at(-1) ?? ""), path);
      return;
    }
    const hasRef = Object.hasOwn(schema, "$ref");
    for (const keyword of Object.keys(schema)) {
      // Declarations are checked as a whole in `run`, once the walk is done.
      if (keyword === X_MCP_HEADER && this.#mcpHeaders) continue;
      path.push(keyword);
      this.#keyword(keyword, schema[keyword], path, path.length === 1, owner);
      if (
        hasRef && this.#dialect === "draft-07" && !DRAFT07_REF_SIBLINGS.has(keyword) &&
        keywordRule(keyword)?.admitted
      ) {
        // Draft-07 ignores this sibling of `$ref`; 2020-12 would apply it.
        this.#report("schema_dialect_unsupported", keyword, path);
      }
      path.pop();
    }
  }

  #keyword(
    keyword: string,
    value: JsonValue,
    path: Token[],
    atRoot: boolean,
    owner: string | undefined,
  ): void {
    const rule = keywordRule(keyword);
    if (rule === undefined) return this.#report("schema_keyword_unsupported", keyword, path);
    if (!rule.admitted) {
      const code = rule.kind === "core" ? "schema_ref_unsupported" : "schema_keyword_unsupported";
      return this.#report(code, keyword, path);
    }
    if (rule.newInDraft2019 && this.#dialect === "draft-07") {
      // Draft-07 does not know the keyword and ignores it; 2020-12 applies it.
      return this.#report("schema_dialect_unsupported", keyword, path);
    }
    const inPlace = rule.inPlace ? owner : undefined;
    switch (keyword) {
      case "$schema":
        // The root's `$schema` was read in `run`; anywhere else it changes dialect mid-schema.
        if (!atRoot) this.#report("schema_dialect_unsupported", keyword, path);
        return;
      case "$ref":
        return this.#ref(value, path, owner);
      case "$anchor":
        if (typeof value !== "string" || !ANCHOR.test(value) || this.#anchors.has(value)) {
          return this.#report("schema_keyword_invalid", keyword, path);
        }
        this.#anchors.add(value);
        return;
      case "$defs":
      case "definitions":
        if (!atRoot) return this.#report("schema_keyword_unsupported", keyword, path);
        if (!isObject(value)) return this.#report("schema_keyword_invalid", keyword, path);
        for (const name of Object.keys(value)) {
          path.push(name);
          this.#schema(value[name], path, `${keyword}/${name}`);
          path.pop();
        }
        return;
      case "items":
        if (Array.isArray(value)) {
          // Array-form `items` is draft-07's tuple; in 2020-12 it is not a schema at all.
          const code = this.#dialect === "draft-07"
            ? "schema_dialect_unsupported"
            : "schema_keyword_invalid";
          return this.#report(code, keyword, path);
        }
        break;
      case "patternProperties":
        if (!isObject(value)) return this.#report("schema_keyword_invalid", keyword, path);
        for (const name of Object.keys(value)) {
          path.push(name);
          const compiled = compilePattern(name, this.#limits.maxPatternLength);
          if (!compiled.ok) this.#report(PATTERN_CODES[compiled.problem], keyword, path);
          path.pop();
        }
        break;
      case "pattern": {
        if (typeof value !== "string") return this.#report("schema_keyword_invalid", keyword, path);
        const compiled = compilePattern(value, this.#limits.maxPatternLength);
        if (!compiled.ok) this.#report(PATTERN_CODES[compiled.problem], keyword, path);
        return;
      }
      case "enum":
        if (!Array.isArray(value)) return this.#report("schema_keyword_invalid", keyword, path);
        if (value.length > this.#limits.maxEnumLength) {
          this.#report("schema_enum_too_long", keyword, path);
        }
        return;
    }
    switch (rule.kind) {
      case "schema":
        if (typeof value !== "boolean" && !isObject(value)) {
          return this.#report("schema_keyword_invalid", keyword, path);
        }
        return this.#schema(value, path, inPlace);
      case "schemaArray":
        if (!Array.isArray(value) || value.length === 0) {
          return this.#report("schema_keyword_invalid", keyword, path);
        }
        for (let index = 0; index < value.length; index++) {
          path.push(index);
          this.#schema(value[index], path, inPlace);
          path.pop();
        }
        return;
      case "schemaMap":
        if (!isObject(value)) return this.#report("schema_keyword_invalid", keyword, path);
        for (const name of Object.keys(value)) {
          path.push(name);
          this.#schema(value[name], path, inPlace);
          path.pop();
        }
        return;
    }
    if (!valueShapeOk(keyword, value)) this.#report("schema_keyword_invalid", keyword, path);
  }

  #ref(value: JsonValue, path: Token[], owner: string | undefined): void {
    if (typeof value !== "string") return this.#report("schema_keyword_invalid", "$ref", path);
    let target: string | undefined;
    const match = REF.exec(value);
    if (match !== null) {
      const container = this.#root[match[1]];
      if (
        DEFINITION_NAME.test(match[2]) && isObject(container) && Object.hasOwn(container, match[2])
      ) {
        target = `${match[1]}/${match[2]}`;
      }
    } else if (value.startsWith("#") && ANCHOR.test(value.slice(1))) {
      // A plain-name fragment: only an anchor on a definition's root is a target.
      target = this.#definitionAnchors.get(value.slice(1));
    }
    if (target === undefined) return this.#report("schema_ref_unsupported", "$ref", path);
    if (owner !== undefined) {
      const targets = this.#inPlaceRefs.get(owner) ?? new Set();
      targets.add(target);
      this.#inPlaceRefs.set(owner, targets);
    }
  }

  /**
   * Refuses definitions that reach themselves without descending into the instance (`a` →
   * `anyOf` → `a`): the validator would recurse forever on any value. Kahn's algorithm, so no
   * recursion however long the chain.
   */
  #refCycles(): void {
    const incoming = new Map<string, number>();
    for (const [owner, targets] of this.#inPlaceRefs) {
      incoming.set(owner, incoming.get(owner) ?? 0);
      for (const target of targets) incoming.set(target, (incoming.get(target) ?? 0) + 1);
    }
    const ready = [...incoming].filter(([, count]) => count === 0).map(([name]) => name);
    while (ready.length > 0) {
      const name = ready.pop()!;
      incoming.delete(name);
      for (const target of this.#inPlaceRefs.get(name) ?? []) {
        const count = incoming.get(target)! - 1;
        incoming.set(target, count);
        if (count === 0) ready.push(target);
      }
    }
    for (const name of [...incoming.keys()].sort()) {
      const [container, definition] = name.split("/");
      this.#report("schema_ref_unsupported", "$ref", [container, definition]);
    }
  }
}

/** Shape checks for admitted value and annotation keywords. */
function valueShapeOk(keyword: string, value: JsonValue): boolean {
  switch (keyword) {
    case "type":
      return typeof value === "string"
        ? TYPES.has(value)
        : isUniqueStrings(value) && (value as string[]).length > 0 &&
          (value as string[]).every((name) => TYPES.has(name));
    case "required":
      return isUniqueStrings(value);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return typeof value === "number";
    case "multipleOf":
      return typeof value === "number" && value > 0;
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties":
    case "minContains":
    case "maxContains":
      return isCount(value);
    case "dependentRequired":
      return isObject(value) && Object.values(value).every(isUniqueStrings);
    case "deprecated":
    case "readOnly":
    case "writeOnly":
      return typeof value === "boolean";
    case "title":
    case "description":
    case "$comment":
    case "format":
    case "contentEncoding":
    case "contentMediaType":
      return typeof value === "string";
    case "examples":
      return Array.isArray(value);
    default: // const, default: any JSON value.
      return true;
  }
}

/** The problem code of each exceeded schema budget. */
const BUDGET_CODES = {
  maxBytes: "schema_too_large",
  maxDepth: "schema_too_deep",
  maxNodes: "schema_too_many_nodes",
} as const;

/**
 * Checks a tool schema against the profile `sluice.schema/v1` and returns it unchanged, or every
 * problem found, each with a stable code, the keyword and its JSON Pointer. Nothing is
 * stripped, relaxed or coerced.
 *
 * Budgets are checked first, in one bounded pass that stops at the first one exceeded (a 1 MiB
 * or 10,000-deep schema is refused after reading at most `maxBytes` of it); only a schema
 * within its budgets is walked for keywords.
 *
 * @example
 * ```ts
 * import { checkSchema } from "@sluice/mcp";
 * const result = checkSchema({ type: "object", "x-internal": true });
 * // { ok: false, problems: [{ code: "schema_keyword_unsupported", keyword: "x-internal",
 * //   path: "/x-internal" }] }
 * ```
 *
 * @category Schema profile
 */
export function checkSchema(schema: unknown, options: CheckSchemaOptions = {}): SchemaCheckResult {
  const limits: SchemaLimits = resolveLimits(DEFAULT_SCHEMA_LIMITS, options.limits);
  if (!isDeeplyFrozen(schema)) return checkNow(schema, limits, options.mcpHeaders === true);
  // A schema frozen all the way down (a snapshot's) cannot change: its answer is kept with it,
  // so the exports of every provider mode and the validators built from it check it once.
  const key = `${options.mcpHeaders === true}|${JSON.stringify(limits)}`;
  let answers = checkedSchemas.get(schema as object);
  if (answers === undefined) checkedSchemas.set(schema as object, answers = new Map());
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = deepFreeze(checkNow(schema, limits, options.mcpHeaders === true));
    answers.set(key, answer);
  }
  return answer;
}

/** The answers of {@link checkSchema} for deeply frozen schemas, by options. */
const checkedSchemas = new WeakMap<object, Map<string, SchemaCheckResult>>();

function checkNow(schema: unknown, limits: SchemaLimits, mcpHeaders: boolean): SchemaCheckResult {
  if (!isObject(schema)) {
    return { ok: false, problems: [{ code: "schema_not_object", keyword: "", path: "" }] };
  }
  try {
    canonicalize(schema, limits);
  } catch (error) {
    if (!(error instanceof JsonValueError)) throw error;
    const { budget, keyword, path } = budgetRefusal(error);
    // Not plain JSON at all (undefined, NaN, a cycle...): no keyword can hold such a value.
    const code = budget
      ? BUDGET_CODES[keyword as keyof typeof BUDGET_CODES]
      : "schema_keyword_invalid";
    return { ok: false, problems: [{ code, keyword, path }] };
  }
  const checker = new SchemaChecker(schema, limits, mcpHeaders);
  checker.run();
  return checker.problems.length === 0
    ? { ok: true, schema }
    : { ok: false, problems: checker.problems };
}
