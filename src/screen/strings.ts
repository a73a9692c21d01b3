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

/** One visited string. */
export interface VisibleString {
  /** Its JSON Pointer (for a key: the pointer of the member it names). */
  readonly pointer: string;
  /** The string. */
  readonly text: string;
  /** What it is. */
  readonly role: StringRole;
  /** Whether it is a key (the last token of `pointer`) or the value at `pointer`. */
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

/** A JSON value still to walk: what it is decides the role of its strings. */
interface Pending {
  readonly value: unknown;
  readonly pointer: string;
  /** `schema`: a (sub)schema; otherwise the role of every string inside (keys included). */
  readonly as: "schema" | StringRole;
  /** Set for a property name pushed as a string of its own. */
  readonly on?: "key";
  readonly propertyType?: unknown;
}

const child = (pointer: string, token: string | number) =>
  `${pointer}/${typeof token === "number" ? token : escapePointerToken(token)}`;

/**
 * Calls `visit` for every string of the tool a model can see, in document order: `name`,
 * `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `execution`.
 *
 * @param tool the tool as listed
 * @param visit called once per string
 */
export function visitStrings(tool: Readonly<Record<string, unknown>>, visit: Visit): void {
  if (typeof tool.name === "string") {
    visit({ pointer: "/name", text: tool.name, role: "name", on: "value" });
  }
  const stack: Pending[] = [];
  // Pushed in reverse, popped in document order.
  const fields: [string, Pending["as"]][] = [
    ["title", "text"],
    ["description", "text"],
    ["inputSchema", "schema"],
    ["outputSchema", "schema"],
    ["annotations", "text"],
    ["execution", "keyword"],
  ];
  for (const [field, as] of fields.reverse()) {
    if (tool[field] !== undefined) stack.push({ value: tool[field], pointer: `/${field}`, as });
  }
  while (stack.length > 0) {
    const { value, pointer, as, on, propertyType } = stack.pop()!;
    if (typeof value === "string") {
      const role = as === "schema" ? "keyword" : as;
      visit(
        on === "key"
          ? { pointer, text: value, role, on, propertyType }
          : { pointer, text: value, role, on: "value" },
      );
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        stack.push({ value: value[index], pointer: child(pointer, index), as });
      }
    } else if (isRecord(value)) {
      const entries = Object.entries(value);
      const next: Pending[] = [];
      for (const [key, member] of entries) {
        const at = child(pointer, key);
        if (as !== "schema") {
          visit({ pointer: at, text: key, role: as === "text" ? "keyword" : as, on: "key" });
          next.push({ value: member, pointer: at, as });
        } else if (NAMED_SCHEMAS.has(key) && isRecord(member)) {
          for (const [name, schema] of Object.entries(member)) {
            const named = child(at, name);
            const role = key === "properties" ? "key" : "keyword";
            const propertyType = isRecord(schema) ? schema.type : undefined;
            next.push({ value: name, pointer: named, as: role, on: "key", propertyType });
            next.push({ value: schema, pointer: named, as: "schema" });
          }
        } else if (SUBSCHEMAS.has(key)) {
          next.push({ value: member, pointer: at, as: "schema" });
        } else if (VALUES.has(key)) {
          next.push({ value: member, pointer: at, as: "value" });
        } else if (TEXTS.has(key)) {
          next.push({ value: member, pointer: at, as: "text" });
        } else if (KEYWORDS.has(key)) {
          next.push({ value: member, pointer: at, as: "keyword" });
        } else {
          // A keyword the profile does not know: its name and its strings may still reach a model.
          visit({ pointer: at, text: key, role: "keyword", on: "key" });
          next.push({ value: member, pointer: at, as: "text" });
        }
      }
      for (let index = next.length - 1; index >= 0; index--) stack.push(next[index]);
    }
  }
}
