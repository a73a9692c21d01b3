/**
 * Schema locations without the server's names, for what connect() reports: a JSON Pointer into
 * a schema whose every segment the server chose (a property, `$defs` or other member name, an
 * unknown keyword) is replaced by its position, so a report can say where a problem is without
 * carrying text the server wrote.
 *
 * @module
 */
import { isRecord } from "../identity/mod.ts";
import { type KeywordRule, keywordRule } from "../schema/keywords.ts";

/** What the next segment of a pointer names, by the keyword before it. */
type Expect = "keyword" | "member" | "index" | "value";

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

function unescape(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * The position of member `name` of `node`: `[i]`, its 0-based index in canonical (JCS) key
 * order, the order a lock file writes; an array element keeps its index; `[?]` where the
 * schema has no such member.
 */
function position(node: unknown, name: string): string {
  if (Array.isArray(node)) {
    return ARRAY_INDEX.test(name) && Number(name) < node.length ? name : "[?]";
  }
  if (!isRecord(node) || !Object.hasOwn(node, name)) return "[?]";
  return `[${Object.keys(node).sort().indexOf(name)}]`;
}

/** What the segment after one read as `expect` (a keyword when `rule` is set) names. */
function following(expect: Expect, rule: KeywordRule | undefined): Expect {
  // A member's value is a schema; an unknown keyword's, or a value's, is data.
  if (rule === undefined) return expect === "member" || expect === "index" ? "keyword" : "value";
  switch (rule.kind) {
    case "schema":
      return "keyword";
    case "schemaMap":
      return "member";
    case "schemaArray":
      return "index";
    default:
      return "value";
  }
}

function child(node: unknown, name: string): unknown {
  if (Array.isArray(node)) return ARRAY_INDEX.test(name) ? node[Number(name)] : undefined;
  return isRecord(node) && Object.hasOwn(node, name) ? node[name] : undefined;
}

/**
 * `pointer` into `schema` with every segment the server chose written as its position: a
 * keyword of the schema profile stays as it is, and so does an array index; a member name
 * (of `properties`, `patternProperties`, `$defs`, `definitions`, `dependentSchemas`, or
 * inside a keyword's value) and an unknown keyword become `[i]`, the member's index in
 * canonical key order (`[?]` when the schema has no such member). The result holds only the
 * profile's keyword names, digits, `/`, `[`, `]` and `?`.
 *
 * @example
 * ```ts
 * import { positionalPointer } from "./positions.ts";
 * const schema = { properties: { b: { type: "string" }, a: { type: "string" } } };
 * console.assert(positionalPointer(schema, "/properties/b/type") === "/properties/[1]/type");
 * ```
 *
 * @param schema the schema the pointer points into
 * @param pointer an RFC 6901 JSON Pointer (`""` for the root)
 */
export function positionalPointer(schema: unknown, pointer: string): string {
  if (pointer === "") return "";
  if (!pointer.startsWith("/")) return "/[?]";
  let node = schema;
  let expect: Expect = "keyword";
  const out: string[] = [];
  for (const segment of pointer.slice(1).split("/").map(unescape)) {
    const rule = expect === "keyword" ? keywordRule(segment) : undefined;
    out.push(rule !== undefined ? segment : position(node, segment));
    expect = following(expect, rule);
    node = child(node, segment);
  }
  return "/" + out.join("/");
}
