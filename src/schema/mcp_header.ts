/**
 * `x-mcp-header`, MCP 2026-07-28's schema extension for a tool's `inputSchema`: a property may
 * ask that its argument value be mirrored into an `Mcp-Param-{name}` HTTP header. The profile
 * admits it (when asked to, for input schemas) exactly where the specification allows it, and
 * {@link headerDeclarations} reads the declarations of an admitted schema for the transport.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../identity/json.ts";
import { toPointer } from "../identity/pointer.ts";
import { keywordRule } from "./keywords.ts";

/**
 * The extension keyword.
 *
 * @category Schema profile
 */
export const X_MCP_HEADER = "x-mcp-header";

/** RFC 9110 `token` (`1*tchar`): no spaces, control characters or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * The primitive types a header may carry: the specification's `string`, `integer` and `boolean`.
 * `number` is refused, as the 2026-07-28 text says ("Parameters with type `number` are not
 * permitted") and the conformance suite checks (`http-invalid-tool-headers` expects a tool
 * declaring one excluded). Objects, arrays, `null`, type arrays and an absent `type` are refused.
 */
const HEADER_TYPES = new Set<string>(["string", "integer", "boolean"] satisfies McpHeaderType[]);

/**
 * The type a declared header's property has.
 *
 * @category Schema profile
 */
export type McpHeaderType = "string" | "integer" | "boolean";

/**
 * One `x-mcp-header` declaration of an admitted input schema.
 *
 * @category Schema profile
 */
export interface McpHeaderDeclaration {
  /** The header's name as declared, e.g. `Region`. */
  readonly name: string;
  /** The full header name, e.g. `Mcp-Param-Region`. */
  readonly header: string;
  /** The argument's property names from the root of the arguments, e.g. `["region"]`. */
  readonly path: readonly string[];
  /** The same place as a JSON Pointer (RFC 6901) into the arguments, e.g. `/region`. */
  readonly pointer: string;
  /** The property's declared type, which decides how its value is written. */
  readonly type: McpHeaderType;
}

type Token = string | number;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Calls `visit` for every subschema object of `schema` that declares `x-mcp-header`, with its
 * path in the schema and whether it is statically reachable: reached from the root through
 * `properties` members only (the root itself is not a property, so it is not reachable).
 * Subschemas are found through the profile's keyword table; recursion is bounded by the
 * schema's depth budget.
 */
function visitDeclarations(
  schema: JsonValue,
  path: Token[],
  reachable: boolean,
  visit: (schema: JsonObject, path: readonly Token[], reachable: boolean) => void,
): void {
  if (!isObject(schema)) return;
  if (Object.hasOwn(schema, X_MCP_HEADER)) visit(schema, path, reachable && path.length > 0);
  for (const [keyword, value] of Object.entries(schema)) {
    const kind = keywordRule(keyword)?.kind;
    path.push(keyword);
    if (kind === "schema") {
      visitDeclarations(value, path, false, visit);
    } else if (kind === "schemaArray" && Array.isArray(value)) {
      value.forEach((item, index) => {
        path.push(index);
        visitDeclarations(item, path, false, visit);
        path.pop();
      });
    } else if (kind === "schemaMap" && isObject(value)) {
      // Only a `properties` member continues a chain that started at the root.
      const chain = keyword === "properties" && reachable;
      for (const [name, member] of Object.entries(value)) {
        path.push(name);
        visitDeclarations(member, path, chain, visit);
        path.pop();
      }
    }
    path.pop();
  }
}

/**
 * The JSON Pointers (to the keyword) of every `x-mcp-header` declaration in `schema` that
 * breaks the 2026-07-28 rules: not statically reachable, not a non-empty RFC 9110 token, on a
 * property whose `type` is not exactly one primitive type (see `HEADER_TYPES`), or a name another
 * declaration already uses (compared case-insensitively). The names are never returned.
 *
 * @category Schema profile
 */
export function invalidHeaderDeclarations(schema: JsonObject): string[] {
  const invalid: string[] = [];
  const seen = new Set<string>();
  visitDeclarations(schema, [], true, (declaring, path, reachable) => {
    const name = declaring[X_MCP_HEADER];
    const type = declaring.type;
    const valid = reachable && typeof name === "string" && TOKEN.test(name) &&
      typeof type === "string" && HEADER_TYPES.has(type) && !seen.has(name.toLowerCase());
    if (typeof name === "string") seen.add(name.toLowerCase());
    if (!valid) invalid.push(toPointer([...path, X_MCP_HEADER]));
  });
  return invalid;
}

/**
 * The `x-mcp-header` declarations of an input schema that `checkSchema` admitted with
 * `mcpHeaders: true`, in schema order: for each, the header to send and where its value sits in
 * the arguments. Pure: reads only the schema, never a value. A transport mirrors the argument at
 * `path` (when present and not `null`) into `header`.
 *
 * @example
 * ```ts
 * import { headerDeclarations } from "./mcp_header.ts";
 * headerDeclarations({
 *   type: "object",
 *   properties: { region: { type: "string", "x-mcp-header": "Region" } },
 * });
 * // [{ name: "Region", header: "Mcp-Param-Region", path: ["region"], pointer: "/region",
 * //    type: "string" }]
 * ```
 *
 * @category Schema profile
 */
export function headerDeclarations(schema: JsonObject): McpHeaderDeclaration[] {
  const declarations: McpHeaderDeclaration[] = [];
  visitDeclarations(schema, [], true, (declaring, path, reachable) => {
    const name = declaring[X_MCP_HEADER];
    const type = declaring.type;
    if (!reachable || typeof name !== "string" || typeof type !== "string") return;
    if (!HEADER_TYPES.has(type)) return;
    // A reachable path alternates `properties` and a property name.
    const names = path.filter((_, index) => index % 2 === 1).map(String);
    declarations.push({
      name,
      header: `Mcp-Param-${name}`,
      path: names,
      pointer: toPointer(names),
      type: type as McpHeaderType,
    });
  });
  return declarations;
}
