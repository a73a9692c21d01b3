/**
 * Escaping for the inbox pages: every value that reaches markup goes through {@link text} (or
 * {@link attr}), which escapes markup and renders invisible and direction-changing characters
 * as visible, inert code points, so stored text can neither inject markup nor disguise what a
 * person approves.
 *
 * @module
 */

const TRUSTED = Symbol("trusted");

/**
 * Markup already escaped by this module; nothing else can make one.
 *
 * @category Approval inbox
 */
export class Html {
  /** The escaped markup. */
  readonly html: string;

  /**
   * Wraps escaped markup; the key keeps other modules from constructing one.
   *
   * @param key this module's private key
   * @param markup escaped markup
   */
  constructor(key: typeof TRUSTED, markup: string) {
    if (key !== TRUSTED) throw new TypeError("Html is made by the inbox's escaping only");
    this.html = markup;
  }
}

const MARKUP: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Characters that change direction, have no width or control the display: C0/C1 controls
 * (tab and newline kept), soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width
 * space/joiners, LRM/RLM, line and paragraph separators, bidi embeddings, overrides and
 * isolates, word joiner and invisible operators, the BOM, interlinear annotation marks and tag
 * characters.
 */
const INVISIBLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** `U+202E` for one character (or surrogate pair). */
function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Escapes markup in `value`; invisible characters are kept for {@link text} to mark. */
function escapeMarkup(value: string): string {
  return value.replace(/[&<>"']/g, (char) => MARKUP[char]);
}

/**
 * `value` as inert page text: markup escaped, each invisible or bidi character shown as a
 * visible `⟦U+202E⟧` marker instead of acting on the text around it.
 *
 * @category Approval inbox
 */
export function text(value: unknown): Html {
  const source = typeof value === "string" ? value : String(value);
  const parts = source.split(INVISIBLE);
  const marks = source.match(INVISIBLE) ?? [];
  let html = escapeMarkup(parts[0]);
  for (let i = 0; i < marks.length; i++) {
    html += `<span class="cp" title="invisible character">⟦${codePoint(marks[i])}⟧</span>`;
    html += escapeMarkup(parts[i + 1]);
  }
  return new Html(TRUSTED, html);
}

/**
 * `value` for a double-quoted attribute: markup escaped, each invisible character replaced by
 * its `U+XXXX` name.
 *
 * @category Approval inbox
 */
export function attr(value: string): Html {
  return new Html(TRUSTED, escapeMarkup(value.replace(INVISIBLE, (char) => codePoint(char))));
}

/**
 * A tagged template: literal parts are trusted markup, every interpolated value is escaped by
 * {@link text} unless it is already {@link Html} (or an array of it).
 *
 * @category Approval inbox
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + strings[i + 1];
  }
  return new Html(TRUSTED, out);
}

function render(value: unknown): string {
  if (value === undefined || value === null || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  if (value instanceof Html) return value.html;
  return text(value).html;
}

/**
 * sluice's own constant markup (the style sheet, the script) as {@link Html}. Never pass a
 * value that came from a record or a request.
 *
 * @category Approval inbox
 */
export function constantMarkup(markup: string): Html {
  return new Html(TRUSTED, markup);
}

/**
 * `value` as indented JSON a person can edit: invisible and direction-changing characters are
 * written as `\uXXXX` escapes (inside JSON strings, the only place they can occur), so the text
 * shows them and parses back to exactly `value`. Escape it for markup with {@link text}.
 *
 * @category Approval inbox
 */
export function editableJson(value: unknown): string {
  // One escape per UTF-16 code unit: an astral character (a tag character) is a surrogate pair,
  // and JSON writes it as two escapes.
  return JSON.stringify(value, null, 2).replace(INVISIBLE, (chars) => {
    let escaped = "";
    for (let i = 0; i < chars.length; i++) {
      escaped += `\\u${chars.charCodeAt(i).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}
