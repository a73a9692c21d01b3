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
 * Where a string is: a chain of reference tokens, built as the walk goes and turned into a JSON
 * Pointer only for a string that has a finding (most have none).
 */
export interface Path {
  /** The path of the container, `undefined` at the tool. */
  readonly parent: Path | undefined;
  /** The member's name or the element's index. */
  readonly token: string | number;
}

/** The JSON Pointer (RFC 6901) of a path. */
export function pointerOf(path: Path | undefined): string {
  const tokens: string[] = [];
  for (let at = path; at !== undefined; at = at.parent) {
    tokens.push(typeof at.token === "number" ? String(at.token) : escapePointerToken(at.token));
  }
  return tokens.length === 0 ? "" : `/${tokens.reverse().join("/")}`;
}

/** One visited string. */
export interface VisibleString {
  /** Where it is (for a key: the member it names). */
  readonly path: Path;
  /** The string. */
  readonly text: string;
  /** What it is. */
  readonly role: StringRole;
  /** Whether it is a key (the last token of the path) or the value at the path. */
  readonly on: "key" | "value";
  /** For a property name: the `type` of its schema (what the parameter can carry). */
  readonly propertyType?: unknown;
}

/** Keywords whose value is an object of name -> subschema (the names are keys). */
const NAMED_SCHEMAS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
/** Keywords whose value is a subschema or an array of them. */
const SUBSCHEMAS = new Set([
  "items",
  "additionalItems",
  "prefixItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "anyOf",
  "oneOf",
  "allOf",
]);
/** Keywords whose strings are values a model may be shown or asked to send. */
const VALUES = new Set(["enum", "const", "default", "examples"]);
/** Free-text annotations. */
const TEXTS = new Set(["title", "description", "$comment"]);
/** Structural keywords: their strings are read for hidden characters only. */
const KEYWORDS = new Set([
  "type",
  "format",
  "pattern",
  "$schema",
  "$ref",
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "contentMediaType",
  "contentEncoding",
  "required",
  "dependentRequired",
  "dependencies",
]);

type Visit = (found: VisibleString) => void;

/** Deeper than this, a walk goes on with an explicit stack (the listing's limits stop at 256). */
const MAX_RECURSION = 128;

type Role = "schema" | StringRole;
type Descend = (value: unknown, path: Path, as: Role) => void;

/** The role of the strings under a member of a schema, `undefined` for an unknown keyword. */
function memberRole(key: string): Role | undefined {
  if (SUBSCHEMAS.has(key)) return "schema";
  if (VALUES.has(key)) return "value";
  if (TEXTS.has(key)) return "text";
  if (KEYWORDS.has(key)) return "keyword";
  return undefined;
}

/**
 * Visits one node's own strings and hands each child to `descend`: `as` is `schema` for a
 * (sub)schema, otherwise the role of every string inside (keys included).
 */
function node(value: unknown, path: Path, as: Role, visit: Visit, descend: Descend): void {
  if (typeof value === "string") {
    visit({ path, text: value, role: as === "schema" ? "keyword" : as, on: "value" });
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      descend(value[index], { parent: path, token: index }, as);
    }
  } else if (isRecord(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const member = value[key];
      const at: Path = { parent: path, token: key };
      if (as !== "schema") {
        visit({ path: at, text: key, role: as === "text" ? "keyword" : as, on: "key" });
        descend(member, at, as);
      } else if (NAMED_SCHEMAS.has(key) && isRecord(member)) {
        const role = key === "properties" ? "key" : "keyword";
        for (const name in member) {
          if (!Object.hasOwn(member, name)) continue;
          const schema = member[name];
          const named: Path = { parent: at, token: name };
          const propertyType = isRecord(schema) ? schema.type : undefined;
          visit({ path: named, text: name, role, on: "key", propertyType });
          descend(schema, named, "schema");
        }
      } else {
        const role = memberRole(key);
        // A keyword the profile does not know: its name and its strings may still reach a model.
        if (role === undefined) visit({ path: at, text: key, role: "keyword", on: "key" });
        descend(member, at, role ?? "text");
      }
    }
  }
}

/** Walks a value in document order, by recursion up to {@link MAX_RECURSION} levels. */
function walk(value: unknown, path: Path, as: Role, visit: Visit, depth: number): void {
  if (value === null || (typeof value !== "object" && typeof value !== "string")) return;
  if (depth >= MAX_RECURSION) return walkDeep(value, path, as, visit);
  node(value, path, as, visit, (child, at, role) => walk(child, at, role, visit, depth + 1));
}

/** The same walk on an explicit stack, for what nests deeper (children in document order). */
function walkDeep(value: unknown, path: Path, as: Role, visit: Visit): void {
  const stack: [unknown, Path, Role][] = [[value, path, as]];
  while (stack.length > 0) {
    const [current, at, role] = stack.pop()!;
    const children: [unknown, Path, Role][] = [];
    node(current, at, role, visit, (child, p, r) => children.push([child, p, r]));
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]);
  }
}

/**
 * Calls `visit` for every string of the tool a model can see, in document order: `name`,
 * `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `execution`.
 *
 * @param tool the tool as listed
 * @param visit called once per string
 */
export function visitStrings(tool: Readonly<Record<string, unknown>>, visit: Visit): void {
  if (typeof tool.name === "string") {
    visit({
      path: { parent: undefined, token: "name" },
      text: tool.name,
      role: "name",
      on: "value",
    });
  }
  for (const [field, as] of FIELDS) {
    const value = tool[field];
    if (value !== undefined) walk(value, { parent: undefined, token: field }, as, visit, 0);
  }
}

const FIELDS: readonly [string, "schema" | StringRole][] = [
  ["title", "text"],
  ["description", "text"],
  ["inputSchema", "schema"],
  ["outputSchema", "schema"],
  ["annotations", "text"],
  ["execution", "keyword"],
];
