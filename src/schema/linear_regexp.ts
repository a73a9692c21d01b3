/**
 * Runs `@cfworker/json-schema` with its regular expressions on RE2. cfworker evaluates
 * `pattern` and `patternProperties` by `new RegExp(source, "u").test(text)` inside its own
 * keyword loop, where `patternProperties` also decides which properties count as evaluated for
 * `additionalProperties` and `unevaluatedProperties`; no schema rewrite can take the regular
 * expression out of that loop without changing what it means. So, for the duration of one
 * synchronous validation, the global `RegExp` that cfworker's code names is a stand-in whose
 * `test` runs the RE2 matcher compiled for that source when the schema was admitted. No other
 * code runs during that call; regular expression literals (cfworker's own, everyone's) use the
 * intrinsic constructor and are unaffected; the original is restored in `finally`.
 *
 * @module
 */
import type { RE2JS } from "re2js";

/**
 * Thrown by the stand-in for a source the schema did not admit (which cannot happen).
 *
 * @category Schema profile
 */
export class UnadmittedPattern extends Error {
  constructor() {
    super("a regular expression the profile did not admit was requested");
    this.name = "UnadmittedPattern";
  }
}

/** The validation in progress: its matchers by pattern source, and its evaluation counter. */
let active:
  | { readonly matchers: ReadonlyMap<string, RE2JS>; readonly count: () => void }
  | undefined;

/** The stand-in `RegExp`: only what cfworker calls (`new RegExp(source, "u").test(text)`). */
class LinearRegExp {
  readonly #matcher: RE2JS;
  readonly #count: () => void;

  constructor(source: unknown, flags?: unknown) {
    const matcher = typeof source === "string" && flags === "u"
      ? active?.matchers.get(source)
      : undefined;
    if (matcher === undefined) throw new UnadmittedPattern();
    this.#matcher = matcher;
    this.#count = active!.count;
  }

  test(text: unknown): boolean {
    this.#count();
    return this.#matcher.test(String(text));
  }
}

/**
 * Calls `run` with `globalThis.RegExp` answering for exactly the sources in `matchers`, each by
 * its RE2 matcher, and restores the original afterwards. Without matchers it simply calls `run`.
 * Every match calls `count` first, so a validation's regular expression tests are bounded by its
 * evaluation budget like its subschema evaluations (`patternProperties` tests every name of an
 * object against every pattern, evaluated or not).
 * Throws {@link UnadmittedPattern} from inside `run` if any other source is constructed, and
 * when the global cannot be replaced (a frozen realm), so no ECMA-262 expression ever runs on
 * an admitted pattern.
 *
 * @category Schema profile
 */
export function withLinearRegExp<T>(
  matchers: ReadonlyMap<string, RE2JS>,
  count: () => void,
  run: () => T,
): T {
  if (matchers.size === 0) return run();
  const original = globalThis.RegExp;
  try {
    globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  } catch {
    // A non-writable global (strict code throws): nothing was replaced.
  }
  if (globalThis.RegExp !== (LinearRegExp as unknown)) throw new UnadmittedPattern();
  const previous = active;
  active = { matchers, count };
  try {
    return run();
  } finally {
    globalThis.RegExp = original;
    active = previous;
  }
}
