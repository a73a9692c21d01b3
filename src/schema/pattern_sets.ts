/**
 * ECMA-262's character classes as code point sets for RE2: `\d`, `\w`, `\s` and `.` spelt out
 * as ranges (RE2's own readings are narrower), their complements, Unicode properties as RE2
 * names them, and the RE2 text of a class.
 *
 * @module
 */

/** The largest Unicode code point. */
export const MAX_CODE_POINT = 0x10ffff;

/** A set of code points as sorted, non-overlapping inclusive ranges. */
export type Ranges = readonly (readonly [number, number])[];

/** What `\d` matches. */
export const DIGIT: Ranges = [[0x30, 0x39]];
/** What `\w` matches (without the `i` flag). */
export const WORD: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** ECMA-262 WhiteSpace and LineTerminator: what `\s` matches (RE2's `\s` is ASCII only). */
export const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** What `.` matches without the `s` flag: anything but a line terminator. */
export const NOT_LINE_TERMINATOR: Ranges = complement([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);
/** ECMA-262 long General_Category names RE2 knows by their short name. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Letter: "L",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
};
/** General_Category values RE2 has under the same short name. */
const CATEGORIES = new Set(
  "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Co Cs"
    .split(" "),
);

/** The code points not in `set`. */
export function complement(set: Ranges): Ranges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [low, high] of set) {
    if (low > next) out.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** A code point as RE2 writes it, `\x{..}`. */
export const hex = (codePoint: number): string => `\\x{${codePoint.toString(16)}}`;
/** Whether a code point is a UTF-16 surrogate. */
export const isSurrogate = (codePoint: number): boolean =>
  codePoint >= 0xd800 && codePoint <= 0xdfff;

/** One item of a character class: a code point range, or a Unicode property as RE2 spells it. */
export type ClassItem = readonly [number, number] | string;

/** The RE2 text of class items, without the brackets. */
export function classItemsText(items: readonly ClassItem[]): string {
  return items.map((item) =>
    typeof item === "string"
      ? item
      : item[0] === item[1]
      ? hex(item[0])
      : `${hex(item[0])}-${hex(item[1])}`
  ).join("");
}

/**
 * `\p{name}` (or `\P{name}`) as RE2 spells it: General_Category values by their short name,
 * scripts by their long name (`Script=Greek`), `Any` and `ASCII` as ranges. `Script_Extensions`,
 * short script codes and the other binary properties have no RE2 equivalent: `undefined`.
 */
export function propertyItems(name: string, negated: boolean): ClassItem[] | undefined {
  const [key, value] = name.includes("=") ? name.split("=") : [undefined, name];
  const letter = negated ? "P" : "p";
  if (key === undefined && (value === "Any" || value === "ASCII")) {
    const ranges: Ranges = value === "Any" ? [[0, MAX_CODE_POINT]] : [[0, 0x7f]];
    const items = negated ? complement(ranges) : ranges;
    if (items.length === 0) return undefined; // `\P{Any}`: RE2 has no empty class
    return [...items];
  }
  if (key === undefined || key === "General_Category" || key === "gc") {
    const category = Object.hasOwn(CATEGORY_ALIASES, value) ? CATEGORY_ALIASES[value] : value;
    if (CATEGORIES.has(category)) return [`\\${letter}{${category}}`];
    return undefined;
  }
  if ((key === "Script" || key === "sc") && /^[A-Z][a-z]+(?:_[A-Z][a-z]+)*$/.test(value)) {
    return [`\\${letter}{${value}}`];
  }
  return undefined;
}
