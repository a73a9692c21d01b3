/**
 * Decides whether a `pattern` may run against model-supplied strings. The validator compiles
 * it as `new RegExp(pattern, "u")` on a backtracking engine, so a pattern is admitted only when
 * its matching cannot blow up exponentially.
 *
 * @module
 */

/** Why a pattern was refused; `undefined` from {@link patternProblem} means it is admitted. */
export type PatternProblem = "too_long" | "invalid" | "backreference" | "lookaround" | "nested";

interface Group {
  /** The body holds a quantifier that repeats (max above 1) or an alternation. */
  ambiguous: boolean;
}

/**
 * Returns why `pattern` is unsafe, or `undefined` when it is admitted. Rules, in order: at most
 * `maxLength` UTF-16 units; compiles with the `u` flag; no backreferences (`\1`, `\k<name>`);
 * no lookaround; and star height at most 1: a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}`
 * with m > 1) may not apply to a group whose body holds a repeating quantifier or an
 * alternation. That last rule removes the nested and overlapping repetition behind exponential
 * backtracking (`^(a+)+$`, `(a|a)*`).
 */
export function patternProblem(pattern: string, maxLength: number): PatternProblem | undefined {
  if (pattern.length > maxLength) return "too_long";
  try {
    new RegExp(pattern, "u");
  } catch {
    return "invalid";
  }
  // The source compiled with `u`, so its syntax is strict: a lone `{`, `}` or `]` cannot occur
  // and every escape is well formed, which keeps this scan small.
  const stack: Group[] = [{ ambiguous: false }];
  let lastWasGroup: Group | undefined;
  let index = 0;
  const top = () => stack[stack.length - 1];
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === "\\") {
      const next = pattern[index + 1];
      if (/[1-9]/.test(next) || next === "k") return "backreference";
      // `\u{...}`, `\p{...}` and `\P{...}` carry braces that are not a quantifier.
      const braced = "upP".includes(next) && pattern[index + 2] === "{";
      index = braced ? pattern.indexOf("}", index) + 1 : index + 2;
      lastWasGroup = undefined;
      continue;
    }
    if (char === "[") {
      index++;
      while (pattern[index] !== "]") index += pattern[index] === "\\" ? 2 : 1;
      index++;
      lastWasGroup = undefined;
      continue;
    }
    if (char === "(") {
      if (pattern[index + 1] === "?") {
        const kind = pattern.slice(index + 2, index + 4);
        if (kind[0] === "=" || kind[0] === "!" || kind === "<=" || kind === "<!") {
          return "lookaround";
        }
      }
      stack.push({ ambiguous: false });
      index++;
      lastWasGroup = undefined;
      continue;
    }
    if (char === ")") {
      const group = stack.pop()!;
      // An ambiguous group makes its enclosing group ambiguous too.
      if (group.ambiguous) top().ambiguous = true;
      lastWasGroup = group;
      index++;
      continue;
    }
    if (char === "|") {
      top().ambiguous = true;
      index++;
      lastWasGroup = undefined;
      continue;
    }
    const quantifier = readQuantifier(pattern, index);
    if (quantifier) {
      if (quantifier.repeats) {
        if (lastWasGroup?.ambiguous) return "nested";
        top().ambiguous = true;
      }
      index = quantifier.end;
      lastWasGroup = undefined;
      continue;
    }
    lastWasGroup = undefined;
    index++;
  }
  return undefined;
}

/** Reads a quantifier at `index` (with its lazy `?`), or returns `undefined`. */
function readQuantifier(
  pattern: string,
  index: number,
): { repeats: boolean; end: number } | undefined {
  const char = pattern[index];
  let repeats: boolean;
  let end: number;
  if (char === "*" || char === "+") {
    repeats = true;
    end = index + 1;
  } else if (char === "?") {
    repeats = false;
    end = index + 1;
  } else if (char === "{") {
    // With the `u` flag a `{` is always a quantifier: `{n}`, `{n,}` or `{n,m}`.
    const match = /\{(\d+)(,(\d*))?\}/y;
    match.lastIndex = index;
    const [text, min, comma, max] = match.exec(pattern)!;
    const upper = comma === undefined ? Number(min) : max === "" ? Infinity : Number(max);
    repeats = upper > 1;
    end = index + text.length;
  } else {
    return undefined;
  }
  if (pattern[end] === "?") end++;
  return { repeats, end };
}
