/**
 * Decides whether a `pattern` may run against model-supplied strings. The validator compiles
 * it as `new RegExp(pattern, "u")` on a backtracking engine, so a pattern is admitted only when
 * no repetition in it can split the same text in more than one way, the cause of exponential
 * backtracking (`^(a+)+$`, `(a|a)*`).
 *
 * @module
 */

/** Why a pattern was refused; `undefined` from {@link patternProblem} means it is admitted. */
export type PatternProblem =
  | "too_long"
  | "invalid"
  | "backreference"
  | "lookaround"
  | "modifier"
  | "nested"
  | "polynomial";

/** Highest estimated polynomial degree of matching time admitted (quadratic). */
const MAX_DEGREE = 2;

/** Deepest group nesting read; deeper patterns are refused before the recursive reader runs. */
const MAX_GROUP_DEPTH = 32;

/** A set of code points as sorted, non-overlapping inclusive ranges. */
type CharSet = readonly (readonly [number, number])[];

/** One element of a sequence with its repetition bounds. */
interface Term {
  readonly atom: Atom;
  readonly min: number;
  readonly max: number;
}

type Atom =
  /** Matches one code point from `set`. */
  | { readonly kind: "char"; readonly set: CharSet }
  /** A group: one sequence per alternative. */
  | { readonly kind: "group"; readonly alternatives: readonly (readonly Term[])[] }
  /** Matches no text: `^`, `$`, `\b`, `\B`. */
  | { readonly kind: "assertion"; readonly start: boolean };

const MAX_CODE_POINT = 0x10ffff;
const ANY: CharSet = [[0, MAX_CODE_POINT]];
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: CharSet = [
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
const CONTROL_ESCAPES: Readonly<Record<string, number>> = {
  t: 0x09,
  n: 0x0a,
  v: 0x0b,
  f: 0x0c,
  r: 0x0d,
  0: 0x00,
};

function normalize(ranges: (readonly [number, number])[]): CharSet {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [low, high] of sorted) {
    const last = out.at(-1);
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else out.push([low, high]);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [low, high] of set) {
    if (low > next) out.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function disjoint(a: CharSet, b: CharSet): boolean {
  for (const [lowA, highA] of a) {
    for (const [lowB, highB] of b) if (lowA <= highB && lowB <= highA) return false;
  }
  return true;
}

/** A recursive-descent reader for the source of a pattern known to compile with `u`. */
class PatternReader {
  readonly #source: string;
  #index = 0;

  constructor(source: string) {
    this.#source = source;
  }

  /** Reads the whole pattern, or throws the reason it is refused. */
  read(): readonly (readonly Term[])[] {
    return this.#alternatives();
  }

  #peek(offset = 0): string {
    return this.#source[this.#index + offset] ?? "";
  }

  #alternatives(): (readonly Term[])[] {
    const alternatives: Term[][] = [this.#sequence()];
    while (this.#peek() === "|") {
      this.#index++;
      alternatives.push(this.#sequence());
    }
    return alternatives;
  }

  #sequence(): Term[] {
    const terms: Term[] = [];
    while (this.#index < this.#source.length && this.#peek() !== "|" && this.#peek() !== ")") {
      const atom = this.#atom();
      const [min, max] = this.#quantifier();
      terms.push({ atom, min, max });
    }
    return terms;
  }

  #atom(): Atom {
    const char = this.#peek();
    if (char === "^" || char === "$") {
      this.#index++;
      return { kind: "assertion", start: char === "^" };
    }
    if (char === "(") {
      this.#index++;
      if (this.#peek() === "?") {
        const kind = this.#source.slice(this.#index + 1, this.#index + 3);
        if (kind[0] === "=" || kind[0] === "!" || kind === "<=" || kind === "<!") {
          throw "lookaround" satisfies PatternProblem;
        }
        if (kind[0] === "<") {
          this.#index = this.#source.indexOf(">", this.#index) + 1; // named group
        } else if (kind[0] === ":") {
          this.#index += 2;
        } else {
          // `(?i:...)` would change which characters the sets below match.
          throw "modifier" satisfies PatternProblem;
        }
      }
      const alternatives = this.#alternatives();
      this.#index++; // `)`
      return { kind: "group", alternatives };
    }
    if (char === "[") return { kind: "char", set: this.#class() };
    if (char === ".") {
      this.#index++;
      return { kind: "char", set: ANY };
    }
    if (char === "\\") {
      const next = this.#peek(1);
      if (next === "b" || next === "B") {
        this.#index += 2;
        return { kind: "assertion", start: false };
      }
      return { kind: "char", set: this.#escape() };
    }
    const codePoint = this.#source.codePointAt(this.#index)!;
    this.#index += codePoint > 0xffff ? 2 : 1;
    return { kind: "char", set: [[codePoint, codePoint]] };
  }

  /** Reads an escape at `\`; classes such as `\p{...}` count as any character. */
  #escape(): CharSet {
    const next = this.#peek(1);
    this.#index += 2;
    if (/[1-9]/.test(next) || next === "k") throw "backreference" satisfies PatternProblem;
    switch (next) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "p":
      case "P":
        this.#index = this.#source.indexOf("}", this.#index) + 1;
        return ANY;
      case "c": {
        const code = this.#source.charCodeAt(this.#index++) % 32;
        return [[code, code]];
      }
      case "x": {
        const code = parseInt(this.#source.slice(this.#index, this.#index + 2), 16);
        this.#index += 2;
        return [[code, code]];
      }
      case "u": {
        let code: number;
        if (this.#peek() === "{") {
          const close = this.#source.indexOf("}", this.#index);
          code = parseInt(this.#source.slice(this.#index + 1, close), 16);
          this.#index = close + 1;
        } else {
          code = parseInt(this.#source.slice(this.#index, this.#index + 4), 16);
          this.#index += 4;
          // A surrogate pair written as two escapes is one code point.
          if (code >= 0xd800 && code <= 0xdbff && this.#source.startsWith("\\u", this.#index)) {
            const low = parseInt(this.#source.slice(this.#index + 2, this.#index + 6), 16);
            if (low >= 0xdc00 && low <= 0xdfff) {
              code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
              this.#index += 6;
            }
          }
        }
        return [[code, code]];
      }
    }
    if (Object.hasOwn(CONTROL_ESCAPES, next)) {
      const code = CONTROL_ESCAPES[next];
      return [[code, code]];
    }
    // With `u` the only identity escapes are syntax characters and `/`: one code point each.
    const code = next.codePointAt(0)!;
    return [[code, code]];
  }

  #class(): CharSet {
    this.#index++; // `[`
    const negated = this.#peek() === "^";
    if (negated) this.#index++;
    const ranges: (readonly [number, number])[] = [];
    while (this.#peek() !== "]") {
      const low = this.#classAtom();
      if (this.#peek() === "-" && this.#peek(1) !== "]" && low.length === 1) {
        this.#index++;
        const high = this.#classAtom();
        ranges.push([low[0][0], high[0][1]]);
      } else {
        ranges.push(...low);
      }
    }
    this.#index++; // `]`
    const set = normalize(ranges);
    return negated ? complement(set) : set;
  }

  #classAtom(): CharSet {
    if (this.#peek() === "\\") {
      // Inside a class `\b` is a backspace and `\-` an escaped hyphen.
      if (this.#peek(1) === "b") {
        this.#index += 2;
        return [[0x08, 0x08]];
      }
      if (this.#peek(1) === "-") {
        this.#index += 2;
        return [[0x2d, 0x2d]];
      }
      return this.#escape();
    }
    const codePoint = this.#source.codePointAt(this.#index)!;
    this.#index += codePoint > 0xffff ? 2 : 1;
    return [[codePoint, codePoint]];
  }

  /** Reads a quantifier (and its lazy `?`), returning `[min, max]`; `[1, 1]` when none. */
  #quantifier(): [number, number] {
    const char = this.#peek();
    let bounds: [number, number];
    if (char === "*") bounds = [0, Infinity];
    else if (char === "+") bounds = [1, Infinity];
    else if (char === "?") bounds = [0, 1];
    else if (char === "{") {
      // With `u` a `{` after an atom is always a quantifier: `{n}`, `{n,}` or `{n,m}`.
      const match = /\{(\d+)(,(\d*))?\}/y;
      match.lastIndex = this.#index;
      const [text, min, comma, max] = match.exec(this.#source)!;
      bounds = [
        Number(min),
        comma === undefined ? Number(min) : max === "" ? Infinity : Number(max),
      ];
      this.#index += text.length - 1;
    } else {
      return [1, 1];
    }
    this.#index++;
    if (this.#peek() === "?") this.#index++;
    return bounds;
  }
}

/**
 * Whether a group body repeated more than once splits any text into iterations in one way
 * only. Two shapes qualify: every term has a fixed count (each iteration has one length), or
 * the body is single characters led or closed by a mandatory separator whose characters no
 * other term matches, the rest having at most one variable term and at least one character,
 * so iterations begin (or end) exactly at separator runs (`([=!,]{1,2}[a-z]+)+`,
 * `(?:[a-z0-9]+\.)*`).
 */
function unambiguousBody(alternatives: readonly (readonly Term[])[]): boolean {
  if (alternatives.length !== 1) return false;
  const [terms] = alternatives;
  if (terms.some((term) => term.atom.kind === "group")) return false;
  const chars = terms.filter((term) => term.atom.kind === "char");
  if (chars.every((term) => term.min === term.max)) return true;
  for (const separator of [chars[0], chars.at(-1)]) {
    if (separator === undefined || separator.min < 1 || separator.atom.kind !== "char") continue;
    const separatorSet = separator.atom.set;
    const rest = chars.filter((term) => term !== separator);
    const separated = rest.every((term) =>
      term.atom.kind === "char" && disjoint(term.atom.set, separatorSet)
    );
    const variable = rest.filter((term) => term.min !== term.max).length;
    const minLength = rest.reduce((sum, term) => sum + term.min, 0);
    if (separated && variable <= 1 && minLength >= 1) return true;
  }
  return false;
}

/** Deepest nesting of groups, counting unescaped `(` outside classes. */
function groupDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === "\\") index++;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "(") deepest = Math.max(deepest, ++depth);
    else if (char === ")") depth--;
  }
  return deepest;
}

function checkTerms(alternatives: readonly (readonly Term[])[]): PatternProblem | undefined {
  for (const terms of alternatives) {
    for (const term of terms) {
      if (term.atom.kind !== "group") continue;
      if (term.max > 1 && !unambiguousBody(term.atom.alternatives)) return "nested";
      const inner = checkTerms(term.atom.alternatives);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** Every character a term can match. */
function termSet(term: Term): CharSet {
  const atom = term.atom;
  if (atom.kind === "char") return atom.set;
  if (atom.kind === "assertion") return [];
  return normalize(atom.alternatives.flatMap((terms) => terms.flatMap((t) => [...termSet(t)])));
}

/** Fewest characters a term consumes. */
function minWidth(term: Term): number {
  const atom = term.atom;
  if (atom.kind === "assertion") return 0;
  const one = atom.kind === "char" ? 1 : Math.min(
    ...atom.alternatives.map((terms) => terms.reduce((sum, t) => sum + minWidth(t), 0)),
  );
  return term.min * one;
}

/** Estimated degree of a term alone: 1 when it repeats without bound, else its inner degree. */
function termDegree(term: Term): number {
  const atom = term.atom;
  if (atom.kind === "assertion") return 0;
  const inner = atom.kind === "group" ? alternativesDegree(atom.alternatives, true) : 0;
  return term.max === Infinity ? Math.max(inner, 1) : inner;
}

function alternativesDegree(
  alternatives: readonly (readonly Term[])[],
  anchored: boolean,
): number {
  return Math.max(0, ...alternatives.map((terms) => sequenceDegree(terms, anchored)));
}

/**
 * Estimates the polynomial degree of backtracking in one sequence: unbounded terms whose
 * character sets overlap can trade characters, and each such term in a chain multiplies the
 * ways to split a failing text by its length (`a*a*a*` is cubic). A mandatory term whose
 * characters none of the chain can match ends the chain. An unanchored pattern starts with an
 * implicit unbounded term over every character (the search for a start position).
 */
function sequenceDegree(terms: readonly Term[], anchored: boolean): number {
  const starts = terms[0]?.atom.kind === "assertion" && terms[0].atom.start;
  let chain: { set: CharSet; degree: number }[] = anchored || starts
    ? []
    : [{ set: ANY, degree: 1 }];
  let worst = 0;
  for (const term of terms) {
    if (term.atom.kind === "assertion") continue;
    const set = termSet(term);
    // A term that must consume a character none of the chain can match ends the chain; one
    // that may match nothing (`(?:)`, `a?`) does not.
    if (minWidth(term) >= 1 && chain.every((link) => disjoint(link.set, set))) chain = [];
    const own = termDegree(term);
    if (own === 0) continue;
    const before = chain.filter((link) => !disjoint(link.set, set)).map((link) => link.degree);
    const degree = own + Math.max(0, ...before);
    worst = Math.max(worst, degree);
    chain.push({ set, degree });
  }
  return worst;
}

/**
 * Returns why `pattern` is unsafe, or `undefined` when it is admitted. Rules, in order: at most
 * `maxLength` UTF-16 units; compiles with the `u` flag; no backreferences (`\1`, `\k<name>`);
 * no lookaround; no modifier groups (`(?i:...)`); groups nested at most 32 deep; every group
 * repeated more than once (`*`, `+`, `{n,}`, `{n,m}` with m > 1) has a body that splits text
 * into iterations in one way only (no exponential backtracking); and at most two unbounded
 * repetitions that can trade characters in a row (at worst quadratic; `^a*a*a*$` is refused).
 */
export function patternProblem(pattern: string, maxLength: number): PatternProblem | undefined {
  if (pattern.length > maxLength) return "too_long";
  try {
    new RegExp(pattern, "u");
  } catch {
    return "invalid";
  }
  // The source compiled with `u`, so its syntax is strict (no lone `{`, `}` or `]`, every
  // escape well formed, no octal), which keeps the reader small; its depth is bounded by
  // `MAX_GROUP_DEPTH`.
  if (groupDepth(pattern) > MAX_GROUP_DEPTH) return "nested";
  try {
    const alternatives = new PatternReader(pattern).read();
    return checkTerms(alternatives) ??
      (alternativesDegree(alternatives, false) > MAX_DEGREE ? "polynomial" : undefined);
  } catch (reason) {
    if (reason === "backreference" || reason === "lookaround" || reason === "modifier") {
      return reason;
    }
    throw reason;
  }
}

/**
 * Whether an admitted pattern may backtrack quadratically (estimated degree 2): two unbounded
 * repetitions that can trade characters, counting an unanchored start as one. Such a pattern
 * is tested on a bounded prefix only; the others run in linear time.
 */
export function isQuadratic(pattern: string): boolean {
  return alternativesDegree(new PatternReader(pattern).read(), false) >= 2;
}
