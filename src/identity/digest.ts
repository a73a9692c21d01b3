import { canonicalize } from "./canonicalize.ts";
import type { JsonLimits } from "./json.ts";

const encoder = new TextEncoder();

/** Lowercase hex of bytes. */
function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * SHA-256 of a UTF-8 string via `crypto.subtle`, written `sha256:<lowercase hex>`.
 * Use {@link digest} for JSON values; this is for text that is already canonical.
 */
export async function digestText(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return "sha256:" + toHex(new Uint8Array(hash));
}

/**
 * The identity of a plain JSON value: `sha256:` followed by the lowercase hex SHA-256 of its
 * UTF-8 {@link canonicalize | canonical form}. Every digest in sluice (snapshot revisions,
 * argument digests, approval bindings) is this function.
 *
 * Rejects with a {@link JsonValueError} for anything that is not plain JSON or is over `limits`.
 *
 * @example
 * ```ts
 * import { digest } from "@sluice/mcp";
 * const a = await digest({ x: 1, y: [2, 3] });
 * const b = await digest({ y: [2, 3], x: 1 });
 * console.assert(a === b && a.startsWith("sha256:"));
 * ```
 */
export async function digest(value: unknown, limits: Partial<JsonLimits> = {}): Promise<string> {
  // async, so a refused value rejects the promise instead of throwing before it exists.
  return await digestText(canonicalize(value, limits));
}
