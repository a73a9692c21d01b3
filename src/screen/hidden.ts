/**
 * Hidden characters in one string: Unicode Tag characters (decoded), bidirectional controls,
 * terminal escapes, and control or format characters that render invisibly. One pass over the
 * code points, after a single linear test that lets plain printable ASCII through untouched.
 *
 * @module
 */
import type { HiddenFinding, ScreenCodeOf } from "./findings.ts";

/** The longest decoded Tag message a finding carries. */
export const MAX_DECODED = 256;

const ONLY_PRINTABLE_ASCII = /^[\t\n\r\x20-\x7e]*$/;
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
const isVariationSelector = (cp: number) =>
  (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) ||
  (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f;
const isSkinTone = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const char = (cp: number | undefined) => cp === undefined ? "" : String.fromCodePoint(cp);

/**
 * The length in code points of a well-formed emoji tag sequence starting at `at` (U+1F3F4, one
 * to seven tag letters or digits, U+E007F: a subdivision flag), or 0.
 */
function emojiTagSequence(points: readonly number[], at: number): number {
  if (points[at] !== BLACK_FLAG) return 0;
  let index = at + 1;
  while (index - at <= 7) {
    const tag = points[index] - 0xe0000;
    if (!((tag >= 0x30 && tag <= 0x39) || (tag >= 0x61 && tag <= 0x7a))) break;
    index++;
  }
  return index > at + 1 && points[index] === CANCEL_TAG ? index - at + 1 : 0;
}

/** Whether a character that is fine between two others (a joiner) is, here. */
function joinerFits(points: readonly number[], at: number): boolean {
  const cp = points[at];
  let before = at - 1;
  while (before >= 0 && (isVariationSelector(points[before]) || isSkinTone(points[before]))) {
    before--;
  }
  const previous = char(points[before]);
  const next = char(points[at + 1]);
  // ZWJ inside an emoji sequence; ZWNJ inside a word of a script that needs it.
  if (cp === 0x200d) return PICTOGRAPHIC.test(previous) && PICTOGRAPHIC.test(next);
  return LETTER.test(previous) && LETTER.test(next) && points[before] > 0x7f &&
    points[at + 1] > 0x7f;
}

/**
 * The hidden-character findings of one string: at most one per code, naming the first offending
 * code point; Tag characters also decoded.
 *
 * @param text the string
 * @param pointer where it is
 * @param on whether it is a key or a value
 */
export function hiddenCharacters(
  text: string,
  pointer: string,
  on: "key" | "value",
): HiddenFinding[] {
  if (ONLY_PRINTABLE_ASCII.test(text)) return [];
  const points = Array.from(text, (c) => c.codePointAt(0)!);
  const first = new Map<ScreenCodeOf<"hidden">, number>();
  let decoded = "";
  const note = (code: ScreenCodeOf<"hidden">, cp: number) => {
    if (!first.has(code)) first.set(code, cp);
  };
  for (let index = 0; index < points.length; index++) {
    const cp = points[index];
    if (cp < 0x7f && cp >= 0x20) continue;
    const sequence = emojiTagSequence(points, index);
    if (sequence > 0) {
      index += sequence - 1;
      continue;
    }
    if (isTag(cp)) {
      note("screen_hidden_tag_characters", cp);
      if (cp >= 0xe0020 && cp <= 0xe007e && decoded.length <= MAX_DECODED) {
        decoded += String.fromCharCode(cp - 0xe0000);
      }
    } else if (isBidi(cp)) {
      note("screen_hidden_bidi_control", cp);
    } else if (TERMINAL.has(cp)) {
      note("screen_hidden_terminal_escape", cp);
    } else if (cp === 0x09 || cp === 0x0a || cp === 0x0d) {
      continue;
    } else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
      note("screen_hidden_invisible_character", cp);
    } else if (isVariationSelector(cp)) {
      // One selector picks a glyph of the character before it; a run of them carries data.
      const previous = points[index - 1];
      if (previous === undefined || isVariationSelector(previous) || previous === 0x200d) {
        note("screen_hidden_invisible_character", cp);
      }
    } else if (cp === 0x200c || cp === 0x200d) {
      if (!joinerFits(points, index)) note("screen_hidden_invisible_character", cp);
    } else if (BLANKS.has(cp) || (cp > 0x9f && FORMAT.test(String.fromCodePoint(cp)))) {
      note("screen_hidden_invisible_character", cp);
    }
  }
  const findings: HiddenFinding[] = [];
  for (const [code, cp] of first) {
    const finding: HiddenFinding = { class: "hidden", code, pointer, on, codePoint: hex(cp) };
    if (code === "screen_hidden_tag_characters" && decoded !== "") {
      const cut = decoded.length > MAX_DECODED ? `${decoded.slice(0, MAX_DECODED)}…` : decoded;
      findings.push({ ...finding, decoded: cut });
    } else findings.push(finding);
  }
  return findings;
}
