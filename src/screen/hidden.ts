/**
 * Hidden characters in one string: Unicode Tag characters (decoded), bidirectional controls,
 * terminal escapes, and control or format characters that render invisibly. One pass over the
 * code points, after a single linear test that lets plain printable ASCII through untouched.
 *
 * @module
 */
import type { HiddenFinding, ScreenCodeOf } from "./findings.ts";

/** A hidden-character finding before it is placed (no pointer yet). */
export type HiddenMark = Omit<HiddenFinding, "pointer" | "on">;

/**
 * The longest decoded Tag message a finding carries (longer ones end in `…`).
 *
 * @category Tool poisoning screen
 */
export const MAX_DECODED = 256;

/** Anything but printable ASCII, tab and line ends: one linear class, read match by match. */
const SUSPECT = /[^\t\n\r\x20-\x7e]/g;
const FORMAT = /^\p{Cf}$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const LETTER = /^\p{L}$/u;

const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
/** Code points that draw nothing but are not format characters (fillers, blanks, joiners). */
const BLANKS = new Set([0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x2800, 0x3164, 0xffa0]);
const TERMINAL = new Set([0x1b, 0x90, 0x98, 0x9b, 0x9d, 0x9e, 0x9f]);

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
const isBidi = (cp: number) =>
  (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e ||
  cp === 0x200f || cp === 0x061c;
const isVariationSelector = (cp: number | undefined) =>
  cp !== undefined && ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) ||
    (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f);
const isSkinTone = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const char = (cp: number | undefined) => cp === undefined ? "" : String.fromCodePoint(cp);
const width = (cp: number) => cp > 0xffff ? 2 : 1;

/** The code point that ends just before UTF-16 index `at`. */
function pointBefore(text: string, at: number): number | undefined {
  if (at <= 0) return undefined;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2);
  }
  return low;
}

/**
 * The UTF-16 length of a well-formed emoji tag sequence starting at `at` (U+1F3F4, one to seven
 * tag letters or digits, U+E007F: a subdivision flag), or 0.
 */
function emojiTagSequence(text: string, at: number): number {
  if (text.codePointAt(at) !== BLACK_FLAG) return 0;
  let index = at + 2;
  let tags = 0;
  while (tags < 7) {
    const tag = (text.codePointAt(index) ?? 0) - 0xe0000;
    if (!((tag >= 0x30 && tag <= 0x39) || (tag >= 0x61 && tag <= 0x7a))) break;
    index += 2;
    tags++;
  }
  return tags > 0 && text.codePointAt(index) === CANCEL_TAG ? index + 2 - at : 0;
}

/** Whether a joiner at `at` joins what it may: ZWJ two emoji, ZWNJ two non-ASCII letters. */
function joinerFits(text: string, at: number, cp: number): boolean {
  let before = at;
  let previous = pointBefore(text, before);
  while (previous !== undefined && (isVariationSelector(previous) || isSkinTone(previous))) {
    before -= width(previous);
    previous = pointBefore(text, before);
  }
  const next = text.codePointAt(at + 1);
  if (cp === 0x200d) return PICTOGRAPHIC.test(char(previous)) && PICTOGRAPHIC.test(char(next));
  return LETTER.test(char(previous)) && LETTER.test(char(next)) && previous! > 0x7f &&
    next! > 0x7f;
}

/** The code of the code point `cp` at `index` of `text`, if it is hidden or deceptive. */
function hiddenCode(text: string, index: number, cp: number): ScreenCodeOf<"hidden"> | undefined {
  if (isTag(cp)) return "screen_hidden_tag_characters";
  if (isBidi(cp)) return "screen_hidden_bidi_control";
  if (TERMINAL.has(cp)) return "screen_hidden_terminal_escape";
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "screen_hidden_invisible_character";
  if (isVariationSelector(cp)) {
    // One selector picks a glyph of the character before it; a run of them carries data.
    const previous = pointBefore(text, index);
    return previous === undefined || isVariationSelector(previous) || previous === 0x200d
      ? "screen_hidden_invisible_character"
      : undefined;
  }
  if (cp === 0x200c || cp === 0x200d) {
    return joinerFits(text, index, cp) ? undefined : "screen_hidden_invisible_character";
  }
  if (BLANKS.has(cp) || (cp > 0x9f && FORMAT.test(String.fromCodePoint(cp)))) {
    return "screen_hidden_invisible_character";
  }
  return undefined;
}

/**
 * Calls `hit` for each hidden or deceptive code point of `text`, in order, with its code, its
 * UTF-16 index and length: the one reading both the screen's marks and a result's revealing use.
 */
function scanHidden(
  text: string,
  hit: (code: ScreenCodeOf<"hidden">, cp: number, index: number, length: number) => void,
): void {
  SUSPECT.lastIndex = 0;
  if (!SUSPECT.test(text)) return;
  // Only the characters outside the printable class are read, each with its neighbours.
  SUSPECT.lastIndex = 0;
  for (let match = SUSPECT.exec(text); match !== null; match = SUSPECT.exec(text)) {
    const index = match.index;
    const cp = text.codePointAt(index)!;
    const length = width(cp);
    SUSPECT.lastIndex = index + length;
    const sequence = emojiTagSequence(text, index);
    if (sequence > 0) {
      SUSPECT.lastIndex = index + sequence;
      continue;
    }
    const code = hiddenCode(text, index, cp);
    if (code !== undefined) hit(code, cp, index, length);
  }
}

/** Anything but printable ASCII, tab and line ends, as a test (no state between calls). */
const SUSPECT_ONE = /[^\t\n\r\x20-\x7e]/;

/**
 * Whether `text` may hold a hidden character: `false` for printable ASCII (most strings), whose
 * marks are none.
 *
 * @param text the string
 */
export function mayHide(text: string): boolean {
  // Short strings (`string`, `object`, a `required` name) are read faster than a regex starts.
  if (text.length > 32) return SUSPECT_ONE.test(text);
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if ((code < 0x20 && code !== 9 && code !== 10 && code !== 13) || code > 0x7e) return true;
  }
  return false;
}

/**
 * `text` with every hidden or deceptive code point the screen finds written as a visible
 * escape, `\u{E0041}`; `undefined` when it has none.
 *
 * @param text the string
 */
export function revealHidden(text: string): string | undefined {
  let out = "";
  let from = 0;
  let found = false;
  scanHidden(text, (_code, cp, index, length) => {
    out += `${text.slice(from, index)}\\u{${cp.toString(16).toUpperCase()}}`;
    from = index + length;
    found = true;
  });
  return found ? out + text.slice(from) : undefined;
}

/** The marks of a string with no hidden character: one array, never written. */
const NO_MARKS: readonly HiddenMark[] = Object.freeze([]);

/**
 * The hidden-character marks of one string: at most one per code, naming the first offending
 * code point; Tag characters also decoded.
 *
 * @param text the string
 */
export function hiddenMarks(text: string): readonly HiddenMark[] {
  // Most strings are printable ASCII: nothing is allocated for them (the scan's closure and
  // what it captures are made only in `scannedMarks`).
  return mayHide(text) ? scannedMarks(text) : NO_MARKS;
}

/** {@link hiddenMarks} of a string that may hide something. */
function scannedMarks(text: string): readonly HiddenMark[] {
  // Text with non-ASCII letters and no hidden character (most of it) allocates no table.
  let first: Map<ScreenCodeOf<"hidden">, number> | undefined;
  let decoded = "";
  scanHidden(text, (code, cp) => {
    first ??= new Map();
    if (!first.has(code)) first.set(code, cp);
    if (
      code === "screen_hidden_tag_characters" && cp >= 0xe0020 && cp <= 0xe007e &&
      decoded.length <= MAX_DECODED
    ) {
      decoded += String.fromCharCode(cp - 0xe0000);
    }
  });
  if (first === undefined) return NO_MARKS;
  const findings: HiddenMark[] = [];
  for (const [code, cp] of first) {
    const finding: HiddenMark = { class: "hidden", code, codePoint: hex(cp) };
    if (code === "screen_hidden_tag_characters" && decoded !== "") {
      const cut = decoded.length > MAX_DECODED ? `${decoded.slice(0, MAX_DECODED)}…` : decoded;
      findings.push({ ...finding, decoded: cut });
    } else findings.push(finding);
  }
  return findings;
}
