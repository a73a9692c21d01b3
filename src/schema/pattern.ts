/**
 * Compiles a JSON Schema `pattern` (an ECMA-262 regular expression, read with the `u` flag as
 * the 2020-12 specification says) for RE2, a linear-time engine: the pattern is translated
 * token by token into RE2 syntax that means exactly what the ECMA-262 pattern means, or it is
 * refused. Nothing is approximated: `\s`, `.` and the classes are spelt out as code point sets,
 * so RE2's own (narrower) readings of them never apply.
 *
 * @module
 */
import { RE2JS } from "re2js";
import {
  type ClassItem,
  classItemsText,
  complement,
  DIGIT,
  hex,
  isSurrogate,
  MAX_CODE_POINT,
  NOT_LINE_TERMINATOR,
  propertyItems,
  type Ranges,
  SPACE,
  WORD,
} from "./pattern_sets.ts";

/**
 * Why a pattern was refused; see {@link compilePattern}.
 *
 * @category Schema profile
 */
export type PatternProblem =
  /** Longer than the schema's `maxPatternLength`. */
  | "too_long"
  /** Not a valid ECMA-262 regular expression with the `u` flag. */
  | "invalid"
  /**
   * Valid ECMA-262 that a linear-time engine cannot run: backreferences, lookaround, modifier
   * groups, lone surrogates, Unicode properties RE2 does not know, repetition counts over 1,000.
   */
  | "unsupported"
  /**
   * Its RE2 program is over {@link MAX_PROGRAM_SIZE} instructions (large counted repetitions
   * such as `\w{1000}`): matching stays linear, but with a constant that grows with the program.
   */
  | "too_complex";

/**
 * Most RE2 instructions one admitted pattern compiles to. Matching time is linear in the input
 * times a factor that grows with the program: on 100 KiB a first match takes about 10 ms at 200
 * instructions, 40 ms at 300 and 350 ms at 1,000 (`\w{1000}$`). The largest real pattern seen,
 * zod's uuid, is 114 instructions; a hostname pattern with `{0,61}` is 255.
 *
 * @category Schema profile
 */
export const MAX_PROGRAM_SIZE = 256;

/**
 * A pattern compiled for RE2, or why it was refused.
 *
 * @category Schema profile
 */
export type CompiledPattern =
  | {
    readonly ok: true;
    readonly matcher: RE2JS;
    /** Its RE2 program's instruction count: the time a match spends per character grows with it. */
    readonly instructions: number;
  }
  | { readonly ok: false; readonly problem: PatternProblem };

/** Raised while translating a construct RE2 cannot express. */
class Unsupported extends Error {}

/** Raised when a pattern's expansion is far over {@link MAX_PROGRAM_SIZE}. */
class TooComplex extends Error {}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = {
  t: 0x09,
  n: 0x0a,
  v: 0x0b,
  f: 0x0c,
  r: 0x0d,
};
const SYNTAX_CHARACTERS = new Set("^$\\.*+?()[]{}|/");

/**
 * Reads one pattern already known to be valid ECMA-262 with the `u` flag and writes the RE2
 * pattern with the same matches. Throws {@link Unsupported} on a construct RE2 cannot express.
 */
class Translator {
  readonly #source: string;
  #index = 0;
  /**
   * The estimated program size of what was read last (an atom, a term, an alternative): counted
   * repetitions multiply it, so a pattern whose expansion is far over the budget is refused
   * before RE2 spends seconds compiling it.
   */
  #size = 0;

  constructor(source: string) {
    this.#source = source;
  }

  translate(): string {
    const out = this.#disjunction();
    if (this.#index !== this.#source.length) throw new Unsupported();
    if (this.#size > 2 * MAX_PROGRAM_SIZE) throw new TooComplex();
    return out;
  }

  #peek(offset = 0): string {
    return this.#source[this.#index + offset] ?? "";
  }

  #disjunction(): string {
    let out = this.#alternative();
    let size = this.#size;
    while (this.#peek() === "|") {
      this.#index++;
      out += "|" + this.#alternative();
      size += this.#size + 1;
    }
    this.#size = size;
    return out;
  }

  #alternative(): string {
    let out = "";
    let size = 0;
    while (this.#index < this.#source.length && this.#peek() !== "|" && this.#peek() !== ")") {
      out += this.#term();
      size += this.#size;
    }
    this.#size = size;
    return out;
  }

  #term(): string {
    const char = this.#peek();
    if (char === "^" || char === "$") {
      // Without the `m` flag both engines read these as the ends of the whole input.
      this.#index++;
      this.#size = 1;
      return char;
    }
    if (char === "\\" && (this.#peek(1) === "b" || this.#peek(1) === "B")) {
      // ASCII word boundaries in both engines (ECMA-262 without the `i` flag).
      this.#index += 2;
      this.#size = 1;
      return `\\${this.#peek(-1)}`;
    }
    this.#size = 1;
    const atom = this.#atom();
    const atomSize = this.#size;
    const [quantifier, copies] = this.#quantifier();
    this.#size = atomSize * copies + 1;
    return atom + quantifier;
  }

  /** The quantifier after an atom, and how many copies of the atom it expands to. */
  #quantifier(): [string, number] {
    const char = this.#peek();
    let out: string;
    let copies: number;
    if (char === "*" || char === "+" || char === "?") {
      this.#index++;
      out = char;
      copies = 2;
    } else if (char === "{") {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.#source.slice(this.#index));
      if (match === null) return ["", 1];
      this.#index += match[0].length;
      out = match[0];
      const [, min, comma, max] = match;
      copies = comma === undefined ? Number(min) : max === "" ? Number(min) + 1 : Number(max);
    } else {
      return ["", 1];
    }
    if (this.#peek() === "?") {
      this.#index++;
      out += "?";
    }
    return [out, Math.max(copies, 1)];
  }

  #atom(): string {
    const char = this.#peek();
    switch (char) {
      case ".":
        this.#index++;
        return `[${classItemsText(NOT_LINE_TERMINATOR)}]`;
      case "(":
        return this.#group();
      case "[":
        return this.#class();
      case "\\":
        return this.#atomEscape();
      default:
        return hex(this.#literal());
    }
  }

  #group(): string {
    this.#index++;
    if (this.#peek() === "?") {
      const next = this.#peek(1);
      if (next === ":") {
        this.#index += 2;
      } else if (next === "<" && this.#peek(2) !== "=" && this.#peek(2) !== "!") {
        // A named group: captures do not change whether a string matches.
        this.#index = this.#source.indexOf(">", this.#index) + 1;
      } else {
        // Lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) and modifier groups (`(?i:`).
        throw new Unsupported();
      }
    }
    const body = this.#disjunction();
    this.#index++; // `)`
    return `(?:${body})`;
  }

  #atomEscape(): string {
    const next = this.#peek(1);
    if (/[1-9]/.test(next) || next === "k") throw new Unsupported(); // backreferences
    const set = this.#setEscape();
    if (set !== undefined) return `[${classItemsText(set)}]`;
    return hex(this.#characterEscape());
  }

  /** `\d \D \w \W \s \S \p{..} \P{..}` as class items, or `undefined` for any other escape. */
  #setEscape(): ClassItem[] | undefined {
    const next = this.#peek(1);
    const sets: Record<string, Ranges> = { d: DIGIT, w: WORD, s: SPACE };
    const lower = next.toLowerCase();
    if (lower in sets && "dwsDWS".includes(next)) {
      this.#index += 2;
      return [...(next === lower ? sets[lower] : complement(sets[lower]))];
    }
    if (next === "p" || next === "P") {
      const end = this.#source.indexOf("}", this.#index);
      const name = this.#source.slice(this.#index + 3, end);
      this.#index = end + 1;
      const items = propertyItems(name, next === "P");
      if (items === undefined) throw new Unsupported();
      return items;
    }
    return undefined;
  }

  /** A CharacterEscape (or, in a class, `\b` and `\-`) as the code point it stands for. */
  #characterEscape(inClass = false): number {
    this.#index++; // `\`
    const char = this.#peek();
    this.#index++;
    if (Object.hasOwn(CONTROL_ESCAPES, char)) return CONTROL_ESCAPES[char];
    if (inClass && char === "b") return 0x08;
    if (inClass && char === "-") return 0x2d;
    if (char === "0") return 0;
    if (char === "c") {
      this.#index++;
      return this.#source.charCodeAt(this.#index - 1) % 32;
    }
    if (char === "x") {
      this.#index += 2;
      return parseInt(this.#source.slice(this.#index - 2, this.#index), 16);
    }
    if (char === "u") {
      const codeUnit = this.#unicodeEscape();
      if (codeUnit >= 0xd800 && codeUnit <= 0xdbff && this.#source.startsWith("\\u", this.#index)) {
        const mark = this.#index;
        this.#index += 2;
        const low = this.#unicodeEscape();
        if (low >= 0xdc00 && low <= 0xdfff) {
          return 0x10000 + ((codeUnit - 0xd800) << 10) + (low - 0xdc00);
        }
        this.#index = mark;
      }
      if (isSurrogate(codeUnit)) throw new Unsupported(); // a lone surrogate
      return codeUnit;
    }
    if (SYNTAX_CHARACTERS.has(char)) return char.codePointAt(0)!;
    throw new Unsupported();
  }

  /** The digits after `\u`: `XXXX` or `{X...}`. */
  #unicodeEscape(): number {
    if (this.#peek() === "{") {
      const end = this.#source.indexOf("}", this.#index);
      const value = parseInt(this.#source.slice(this.#index + 1, end), 16);
      this.#index = end + 1;
      return value;
    }
    this.#index += 4;
    return parseInt(this.#source.slice(this.#index - 4, this.#index), 16);
  }

  /** One literal code point of the source. */
  #literal(): number {
    const codePoint = this.#source.codePointAt(this.#index)!;
    if (isSurrogate(codePoint)) throw new Unsupported();
    this.#index += codePoint > 0xffff ? 2 : 1;
    return codePoint;
  }

  #class(): string {
    this.#index++; // `[`
    const negated = this.#peek() === "^";
    if (negated) this.#index++;
    const items: ClassItem[] = [];
    while (this.#peek() !== "]") {
      const first = this.#classAtom();
      if (this.#peek() === "-" && this.#peek(1) !== "]" && typeof first === "number") {
        this.#index++;
        const last = this.#classAtom() as number;
        items.push([first, last]);
      } else if (typeof first === "number") {
        items.push([first, first]);
      } else {
        items.push(...first);
      }
    }
    this.#index++; // `]`
    if (items.length === 0) {
      // `[]` matches nothing and `[^]` anything; RE2 has no empty class.
      return negated ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
    }
    return `[${negated ? "^" : ""}${classItemsText(items)}]`;
  }

  /** A code point, or the items of a set escape (which cannot bound a range). */
  #classAtom(): number | ClassItem[] {
    if (this.#peek() !== "\\") return this.#literal();
    return this.#setEscape() ?? this.#characterEscape(true);
  }
}

/**
 * How many compiled patterns are kept for the next schema that has them. Real lists repeat a
 * few patterns across many tools (a Microsoft 365 server: 255 patterns, 4 distinct), and
 * compiling one for RE2 costs far more than matching it, so each distinct pattern is compiled
 * once per process while it stays among the most recently used.
 */
const COMPILED_PATTERN_LIMIT = 1_024;

/** Compiled patterns by source, least recently used first (a matcher is immutable). */
const compiledPatterns = new Map<string, CompiledPattern>();

/**
 * Compiles `source` as a JSON Schema pattern for RE2, or says why it is refused. The ECMA-262
 * grammar is checked by constructing (never running) `new RegExp(source, "u")`; the pattern is
 * then translated and compiled by RE2, whose matching time is linear in the input. The answer
 * for a source is the same every time, so it is kept for the next schema with that pattern.
 *
 * @category Schema profile
 */
export function compilePattern(source: string, maxLength: number): CompiledPattern {
  if (source.length > maxLength) return { ok: false, problem: "too_long" };
  let compiled = compiledPatterns.get(source);
  if (compiled !== undefined) {
    compiledPatterns.delete(source);
  } else {
    compiled = Object.freeze(compileFresh(source));
    if (compiledPatterns.size >= COMPILED_PATTERN_LIMIT) {
      compiledPatterns.delete(compiledPatterns.keys().next().value!);
    }
  }
  compiledPatterns.set(source, compiled);
  return compiled;
}

function compileFresh(source: string): CompiledPattern {
  try {
    new RegExp(source, "u");
  } catch {
    return { ok: false, problem: "invalid" };
  }
  let matcher: RE2JS;
  try {
    matcher = RE2JS.compile(new Translator(source).translate());
  } catch (error) {
    if (error instanceof TooComplex) return { ok: false, problem: "too_complex" };
    // Unsupported, or RE2's own refusal of what the translation needs (a repeat over 1,000).
    return { ok: false, problem: "unsupported" };
  }
  const instructions = programSize(matcher);
  if (instructions > MAX_PROGRAM_SIZE) return { ok: false, problem: "too_complex" };
  withoutOnePass(matcher);
  return { ok: true, matcher, instructions };
}

/**
 * Sends a matcher's tests to RE2's DFA instead of its one-pass engine. re2js 2.10.0 (pinned)
 * runs a one-pass program (most anchored patterns, `^[a-z]+$`) before the DFA, and that engine
 * allocates a typed array on every call: about a microsecond per test on Deno, four times the
 * DFA's time on a short string, whatever the answer (which both engines give alike). Without the
 * field (another version) nothing changes; the tests say so.
 */
function withoutOnePass(matcher: RE2JS): void {
  const internals = (matcher as unknown as { re2Input?: { onepass?: unknown } }).re2Input;
  if (internals !== undefined && internals.onepass !== undefined) internals.onepass = null;
}

/**
 * The number of instructions of a compiled RE2 program. re2js 2.10.0 (pinned) keeps it at
 * `re2Input.prog.inst`; were that ever absent, every pattern would count as too complex, so a
 * change of the dependency fails closed (and the tests say so).
 */
function programSize(matcher: RE2JS): number {
  const program = (matcher as unknown as { re2Input?: { prog?: { inst?: unknown } } }).re2Input
    ?.prog?.inst;
  return Array.isArray(program) ? program.length : Infinity;
}
