/**
 * Text a server sent, as sluice hands it to the host: bounded, control characters escaped, and
 * labelled in its type as remote, so it is never mistaken for sluice's own words.
 *
 * @module
 */

/**
 * Text a server sent (a log line, a progress message, an elicitation's message). Untrusted: it
 * grants nothing, and sluice never puts it in an envelope for the model. Bounded to
 * {@link MAX_REMOTE_TEXT_CHARS} code points, with C0 and C1 control characters, DEL, and the
 * bidirectional and zero-width format characters written as visible `\u{…}` escapes.
 *
 * @category Agent developers: connect()
 */
export interface RemoteText {
  /** Always `true`: the text came from the server. */
  readonly remote: true;
  /** The escaped, bounded text. */
  readonly text: string;
  /** Whether the server's text was longer and was cut. */
  readonly truncated: boolean;
}

/**
 * Most code points of one {@link RemoteText} (more are cut and `truncated` is set).
 *
 * @category Agent developers: connect()
 */
export const MAX_REMOTE_TEXT_CHARS = 2_000;

/** Code points written as escapes: controls, DEL, C1, bidi controls, zero-width and BOM. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * The server's `value` as {@link RemoteText}: a string as it is, anything else as its JSON (an
 * unserializable value as `""`), then escaped and bounded.
 *
 * @param value what the server sent
 * @param maxChars most code points kept (default {@link MAX_REMOTE_TEXT_CHARS})
 *
 * @example
 * ```ts
 * import { remoteText } from "@sluice/mcp";
 * remoteText("done\u001b[2J").text; // "done\\u{1b}[2J"
 * ```
 *
 * @category Agent developers: connect()
 */
export function remoteText(value: unknown, maxChars: number = MAX_REMOTE_TEXT_CHARS): RemoteText {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? "";
    } catch {
      text = "";
    }
  }
  // Cut before escaping (bounded work on a huge value), and never inside a surrogate pair.
  const points = Array.from(text.slice(0, maxChars * 2)).slice(0, maxChars + 1);
  const truncated = points.length > maxChars || text.length > maxChars * 2;
  const kept = points.slice(0, maxChars).join("").toWellFormed();
  const escaped = kept.replace(
    ESCAPED,
    (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`,
  );
  return Object.freeze({ remote: true, text: escaped, truncated });
}
