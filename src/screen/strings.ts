/**
 * Every model-visible string of a tool definition, with its JSON Pointer: the name, title and
 * description, and in both schemas every property name, `title`, `description` and every string
 * inside `enum`, `const`, `default` and `examples` at any depth. Strings of structural keywords
 * (`type`, `format`, `pattern`, `$ref`, `required`, ...) and of keywords the profile does not know
 * are visited too (CyberArk showed poisoning anywhere in a schema), under their own role.
 *
 * @module
 */
import { escapePointerToken, isRecord } from "../identity/mod.ts";

/**
 * What a string is, which decides which rules read it: `name` the tool's name, `text` free text
 * (titles, descriptions, unknown keywords' values), `key` a property name, `value` an example or
 * allowed value, `keyword` a structural string (read only for hidden characters).
 */
export type StringRole = "name" | "text" | "key" | "value" | "keyword";

/**
 * Called for every string: `pointer()` writes its JSON Pointer (for a key: the pointer of the
 * member it names), only asked for a string that has a finding (most have none). For a named
 * subschema's name, `schema` is that subschema (its `type` is read only when a rule asks).
 */
export type Visit = (
  text: string,
  role: StringRole,
  on: "key" | "value",
  pointer: () => string,
  schema?: unknown,
) => void;

/** Keywords whose value is an object of name -> subschema (the names are keys). */
const NAMED_SCHEMAS = new Set(
  "properties patternProperties $defs definitions dependentSchemas".split(" "),
);
/** Keywords whose value is a subschema or an array of them. */
const SUBSCHEMAS = new Set(
  "items additionalItems prefixItems additionalProperties unevaluatedItems unevaluatedProperties propertyNames contains not if then else anyOf oneOf allOf"
    .split(" "),
);
/** Keywords whose strings are values a model may be shown or asked to send. */
const VALUES = new Set(["enum", "const", "default", "examples"]);
/** Free-text annotations. */
const TEXTS = new Set(["title", "description", "$comment"]);
/** Structural keywords: their strings are read for hidden characters only. */
const KEYWORDS = new Set(
  "type format pattern $schema $ref $id $anchor $dynamicRef $dynamicAnchor $vocabulary contentMediaType contentEncoding required dependentRequired dependencies"
    .split(" "),
);

/** Deeper than this, a walk defers what it finds to an explicit stack (the listing stops at 256). */
const MAX_RECURSION = 128;

type Role = "schema" | StringRole;

/**
 * The role of the strings under each known member of a schema, or `named` for an object of
 * named subschemas (one lookup per member).
 */
const MEMBER_ROLES: ReadonlyMap<string, Role | "named"> = new Map<string, Role | "named">([
  ...[...KEYWORDS].map((key) => [key, "keyword"] as const),
  ...[...TEXTS].map((key) => [key, "text"] as const),
  ...[...VALUES].map((key) => [key, "value"] as const),
  ...[...SUBSCHEMAS].map((key) => [key, "schema"] as const),
  ...[...NAMED_SCHEMAS].map((key) => [key, "named"] as const),
]);

/** Whether `for in` over `value` gives any key. */
function hasEnumerable(value: object): boolean {
  for (const _ in value) return true;
  return false;
}

/**
 * One walk over a tool: the reference tokens of where it is now (pushed and popped, so no path
 * is allocated per node), and the values found beyond {@link MAX_RECURSION} levels, left for
 * later with a copy of their tokens.
 */
export class Walk {
  #tokens: (string | number)[] = [];
  /** The token of the string being visited (not pushed: most strings need no pointer). */
  #leaf: string | number = "";
  #depth = 0;
  readonly #deferred: [unknown, Role, (string | number)[]][] = [];
  readonly #visit: Visit;
  /**
   * Whether `Object.prototype` has no enumerable key (as it should), checked at each
   * {@link Walk.tool} (a walk is made once for a whole list and reused per tool).
   */
  #plainOwn = !hasEnumerable(Object.prototype);
  readonly #pointer = () =>
    [...this.#tokens, this.#leaf].map((token) =>
      `/${typeof token === "number" ? token : escapePointerToken(token)}`
    ).join("");

  constructor(visit: Visit) {
    this.#visit = visit;
  }

  /** Calls the visit for every string of `tool` ({@link visitStrings}). */
  tool(tool: Readonly<Record<string, unknown>>): void {
    this.#plainOwn = !hasEnumerable(Object.prototype);
    if (typeof tool.name === "string") this.string("name", tool.name, "name", "value");
    for (let index = 0; index < FIELDS.length; index++) {
      const field = FIELDS[index];
      const value = tool[field[0]];
      if (value !== undefined) this.run(value, field[0], field[1]);
    }
  }

  /** Walks `value` at `token` under the current place. */
  run(value: unknown, token: string | number, as: Role): void {
    this.#child(value, token, as);
    // (The tokens are popped as they were pushed: only a deferred value leaves some.)
    if (this.#deferred.length === 0) return;
    while (this.#deferred.length > 0) {
      const [deferred, role, tokens] = this.#deferred.pop()!;
      this.#tokens = tokens;
      this.#depth = 0;
      this.#node(deferred, role);
    }
    this.#tokens = [];
  }

  /** Visits a string at `token` under the current place. */
  string(
    token: string | number,
    text: string,
    role: StringRole,
    on: "key" | "value",
    schema?: unknown,
  ) {
    this.#leaf = token;
    this.#visit(text, role, on, this.#pointer, schema);
  }

  #child(value: unknown, token: string | number, as: Role): void {
    if (typeof value === "string") {
      this.string(token, value, as === "schema" ? "keyword" : as, "value");
      return;
    }
    if (value === null || typeof value !== "object") return;
    this.#tokens.push(token);
    if (this.#depth >= MAX_RECURSION) this.#deferred.push([value, as, [...this.#tokens]]);
    else {
      this.#depth++;
      this.#node(value, as);
      this.#depth--;
    }
    this.#tokens.pop();
  }

  /** One array or object: its own strings visited, each child walked. */
  #node(value: unknown, as: Role): void {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) this.#child(value[index], index, as);
      return;
    }
    // (Only objects reach here: `#child` and the deferred values are objects.)
    const record = value as Readonly<Record<string, unknown>>;
    // For a plain object (nothing enumerable inherited) every key `for in` gives is its own.
    const own = this.#plainOwn && Object.getPrototypeOf(record) === Object.prototype;
    for (const key in record) {
      if (!own && !Object.hasOwn(record, key)) continue;
      const member = record[key];
      if (as !== "schema") {
        this.string(key, key, as === "text" ? "keyword" : as, "key");
        this.#child(member, key, as);
        continue;
      }
      const role = MEMBER_ROLES.get(key);
      if (role === "named" && isRecord(member)) {
        const nameRole = key === "properties" ? "key" : "keyword";
        this.#tokens.push(key);
        const ownNames = this.#plainOwn && Object.getPrototypeOf(member) === Object.prototype;
        for (const name in member) {
          if (!ownNames && !Object.hasOwn(member, name)) continue;
          const schema = member[name];
          this.string(name, name, nameRole, "key", schema);
          this.#child(schema, name, "schema");
        }
        this.#tokens.pop();
      } else if (role === undefined || role === "named") {
        // A keyword the profile does not know (or a named-schemas keyword whose value is not an
        // object): its name and its strings may still reach a model.
        this.string(key, key, "keyword", "key");
        this.#child(member, key, "text");
      } else this.#child(member, key, role);
    }
  }
}

/**
 * Calls `visit` for every string of the tool a model can see, in document order (what nests
 * deeper than 128 levels comes after the rest): `name`, `title`, `description`, `inputSchema`,
 * `outputSchema`, `annotations`, `execution`.
 *
 * @param tool the tool as listed
 * @param visit called once per string
 */
export function visitStrings(tool: Readonly<Record<string, unknown>>, visit: Visit): void {
  new Walk(visit).tool(tool);
}

const FIELDS: readonly [string, "schema" | StringRole][] = [
  ["title", "text"],
  ["description", "text"],
  ["inputSchema", "schema"],
  ["outputSchema", "schema"],
  ["annotations", "text"],
  ["execution", "keyword"],
];
