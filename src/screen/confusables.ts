/**
 * Lookalike tool names. A name's skeleton folds what a person cannot tell apart in a tool list:
 * NFKC (fullwidth and mathematical letters), the common lookalikes of Cyrillic, Greek and
 * Armenian letters, `0`/`O`, `1`/`I`/`l`/`|`, `rn`/`m`, `vv`/`w`, case, and the separators
 * `-`, `_`, `.` and space. Two different names with one skeleton imitate each other. The table
 * holds the lookalikes attacks use, not the whole of Unicode's confusables data (UTS #39).
 *
 * @module
 */

/** Lookalike -> the ASCII letter it imitates. */
const LOOKALIKES: Readonly<Record<string, string>> = Object.freeze({
  // Cyrillic
  "а": "a",
  "в": "b",
  "е": "e",
  "ё": "e",
  "к": "k",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "с": "c",
  "т": "t",
  "у": "y",
  "х": "x",
  "ѕ": "s",
  "і": "i",
  "ї": "i",
  "ј": "j",
  "ԁ": "d",
  "ԛ": "q",
  "ԝ": "w",
  "һ": "h",
  "ӏ": "l",
  "ɡ": "g",
  "А": "a",
  "В": "b",
  "Е": "e",
  "К": "k",
  "М": "m",
  "Н": "h",
  "О": "o",
  "Р": "p",
  "С": "c",
  "Т": "t",
  "Х": "x",
  "Ѕ": "s",
  "І": "l",
  "Ј": "j",
  "Ү": "y",
  // Greek
  "α": "a",
  "β": "b",
  "ε": "e",
  "ι": "i",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
  "ϲ": "c",
  "Α": "a",
  "Β": "b",
  "Ε": "e",
  "Ζ": "z",
  "Η": "h",
  "Ι": "l",
  "Κ": "k",
  "Μ": "m",
  "Ν": "n",
  "Ο": "o",
  "Ρ": "p",
  "Τ": "t",
  "Υ": "y",
  "Χ": "x",
  // Armenian and Latin extensions
  "օ": "o",
  "ս": "u",
  "ց": "g",
  "ɑ": "a",
  "ı": "i",
  "ȷ": "j",
  "ɩ": "i",
  "ʏ": "y",
  // ASCII lookalikes (before lowercasing, so `I` and `l` meet)
  "0": "o",
  "O": "o",
  "1": "l",
  "I": "l",
  "|": "l",
  // Separators read alike in a list
  "-": "_",
  ".": "_",
  " ": "_",
});

const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * {@link skeleton} of a printable ASCII name (most names), made as one string: the table's ASCII
 * lookalikes and separators folded, the rest lowercased, then `rn` and `vv` folded.
 */
function asciiSkeleton(name: string): string {
  const codes: number[] = [];
  for (let at = 0; at < name.length; at++) {
    const code = name.charCodeAt(at);
    const lookalike = LOOKALIKES[name[at]];
    codes.push(
      lookalike !== undefined
        ? lookalike.charCodeAt(0)
        : code >= 65 && code <= 90
        ? code + 32
        : code,
    );
  }
  const folded = String.fromCharCode(...codes);
  return folded.includes("rn") || folded.includes("vv")
    ? folded.replaceAll("rn", "m").replaceAll("vv", "w")
    : folded;
}

/**
 * The skeleton of a name: what it looks like, folded.
 *
 * @param name a tool name
 */
export function skeleton(name: string): string {
  if (name.length <= 256 && PRINTABLE.test(name)) return asciiSkeleton(name);
  let folded = "";
  // NFKC leaves ASCII as it is.
  const source = /^[\x20-\x7e]*$/.test(name) ? name : name.normalize("NFKC");
  for (const c of source) folded += LOOKALIKES[c] ?? c.toLowerCase();
  return folded.replaceAll("rn", "m").replaceAll("vv", "w");
}

/**
 * Whether a name holds a non-ASCII character that looks like ASCII (the table's, or one NFKC
 * turns into ASCII).
 *
 * @param name a tool name
 */
export function hasConfusable(name: string): boolean {
  // An ASCII name (most) has none: it is not iterated by code point.
  let ascii = true;
  for (let at = 0; at < name.length && ascii; at++) ascii = name.charCodeAt(at) < 0x80;
  if (ascii) return false;
  for (const c of name) {
    if (c.charCodeAt(0) < 0x80) continue;
    const folded = LOOKALIKES[c] ?? c.normalize("NFKC");
    if (/^[\x20-\x7e]+$/.test(folded)) return true;
  }
  return false;
}
