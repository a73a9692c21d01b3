/**
 * Terminal safety for everything the CLI prints: text from a store, a server or a model can hold
 * control characters (escape sequences that drive the terminal), line and paragraph separators
 * and newlines (fake output lines), bidirectional overrides and zero-width characters (text that
 * reads differently from what it is). Each is printed as a visible escape instead.
 *
 * @module
 */

/**
 * What is escaped: C0 controls (newline and tab included), DEL and C1 controls, U+2028/U+2029,
 * bidi marks, embeddings, overrides and isolates, zero-width and invisible format characters
 * (soft hyphen, combining grapheme joiner, Hangul fillers, word joiner, invisible operators,
 * byte order mark, variation selectors), Unicode tag characters, and lone surrogates.
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]|\udb40[\udc00-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const hex = (unit: number) => `\\u${unit.toString(16).padStart(4, "0")}`;

/**
 * Escapes every unsafe character of `text` as `\uXXXX` (a pair for a tag character).
 *
 * @category CLI
 */
export function terminalSafe(text: string): string {
  return text.replace(
    UNSAFE,
    (match) => Array.from({ length: match.length }, (_, i) => hex(match.charCodeAt(i))).join(""),
  );
}

/**
 * {@link terminalSafe} per line: keeps the line breaks of text sluice itself laid out.
 *
 * @category CLI
 */
export function terminalSafeLines(text: string): string {
  return text.split("\n").map(terminalSafe).join("\n");
}

/**
 * JSON text for the terminal: `JSON.stringify` already escapes C0 controls; this also escapes
 * the other unsafe characters, which can only occur inside strings, so the text stays valid
 * JSON that parses to the same value.
 *
 * @category CLI
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return terminalSafeLines(JSON.stringify(value, null, indent));
}
