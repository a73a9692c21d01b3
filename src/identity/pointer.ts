/**
 * Escapes one reference token of a JSON Pointer (RFC 6901).
 *
 * @category Identity
 */
export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Builds a JSON Pointer from its reference tokens.
 *
 * @category Identity
 */
export function toPointer(tokens: readonly (string | number)[]): string {
  let pointer = "";
  for (const token of tokens) pointer += "/" + escapePointerToken(String(token));
  return pointer;
}
