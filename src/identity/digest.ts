import { sha256 } from "@noble/hashes/sha2.js";
import { canonicalize } from "./canonicalize.ts";
import type { JsonLimits } from "./json.ts";

const encoder = new TextEncoder();

/** The two lowercase hex digits of every byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Lowercase hex of bytes. */
function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]];
  return hex;
}

/**
 * Inputs up to this many bytes are hashed in JavaScript. `crypto.subtle.digest` hands work to
 * another thread and costs 60-80 us whatever the size (measured on Deno 2.9), which is most of
 * a write cycle's CPU for a small arguments object; the script hash costs about 6 us per KiB,
 * so the two cross near 12 KiB.
 *
 * @category Identity
 */
export const SCRIPT_HASH_MAX_BYTES = 8 * 1024;

/**
 * SHA-256 of a UTF-8 string, written `sha256:<lowercase hex>`: in JavaScript for small inputs,
 * through `crypto.subtle` for large ones (same bytes, same digest).
 * Use {@link digest} for JSON values; this is for text that is already canonical.
 *
 * @category Identity
 */
export async function digestText(text: string): Promise<string> {
  const bytes = encoder.encode(text);
  const hash = bytes.length <= SCRIPT_HASH_MAX_BYTES
    ? sha256(bytes)
    : new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return "sha256:" + toHex(hash);
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
 *
 * @category Identity
 */
export async function digest(value: unknown, limits: Partial<JsonLimits> = {}): Promise<string> {
  // async, so a refused value rejects the promise instead of throwing before it exists.
  return await digestText(canonicalize(value, limits));
}
