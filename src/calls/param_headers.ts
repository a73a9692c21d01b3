/**
 * `Mcp-Param-*` headers (MCP 2026-07-28): the argument values an input schema's
 * `x-mcp-header` declarations ask to be mirrored into HTTP headers, encoded as the
 * specification says. The values are the model's own arguments; they go into the request's
 * headers only, never into events, reports or errors.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../identity/mod.ts";

/**
 * Where one declared header's value sits in the arguments, and its header name.
 *
 * @category Discovery and calls
 */
export interface ParamHeaderDeclaration {
  /** The full header name, e.g. `Mcp-Param-Region`. */
  readonly header: string;
  /** The property names from the root of the arguments. */
  readonly path: readonly string[];
}

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";

/** A primitive as header text, or `undefined` for a value no header can carry. */
function headerText(value: JsonValue): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  // Declared properties are strings, numbers or booleans; an integer outside JavaScript's safe
  // range, or a number JSON cannot hold, sends no header (the specification's rule).
  if (typeof value === "number" && Number.isFinite(value)) {
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? undefined : String(value);
  }
  return undefined;
}

/**
 * Whether `text` must be sent Base64-encoded: it is empty, has leading or trailing white
 * space (which field parsing would strip), holds a character outside visible ASCII and tab,
 * or already looks like the encoded form.
 */
function needsEncoding(text: string): boolean {
  if (text.length === 0 || text !== text.trim()) return true;
  if (text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) return true;
  return !/^[\t\x20-\x7e]*$/.test(text);
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The `Mcp-Param-*` headers of one call. A declaration whose value is absent or `null` sends
 * no header; any other value is written as text (Base64-wrapped as `=?base64?…?=` when it is not
 * a plain ASCII field value).
 *
 * @param declarations the tool's header declarations
 * @param args the admitted arguments
 *
 * @category Discovery and calls
 */
export function paramHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: JsonObject,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const declaration of declarations) {
    let value: JsonValue | undefined = args;
    for (const key of declaration.path) {
      value = typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as JsonObject)[key]
        : undefined;
    }
    if (value === undefined || value === null) continue;
    const text = headerText(value);
    if (text === undefined) continue;
    headers[declaration.header] = needsEncoding(text)
      ? `${BASE64_PREFIX}${base64(text)}${BASE64_SUFFIX}`
      : text;
  }
  return headers;
}
