/**
 * What the keyword checks of a walk ask of it: charging the budget, recording a failure at the
 * current instance location, and evaluating subschemas below or at the instance. `walk.ts`
 * implements it; the object, array and scalar keywords are functions of it.
 *
 * @module
 */
import type { Matcher, Schema } from "./tree.ts";

/**
 * Which properties (by name) or items (by index) of one instance count as evaluated, for
 * `unevaluated*`. cfworker gives each in-place branch an object whose prototype is its parent's;
 * a branch here starts as a copy of its parent's set, which reads the same, since a parent gains
 * nothing while its branch runs, and costs no walk up a chain on every read and merge.
 */
export type Evaluated = Set<string | number>;

/**
 * One failing keyword, where it failed: its instance location as reference tokens.
 *
 * @category Schema profile
 */
export interface Failure {
  /** The keyword (`false` for a false boolean subschema). */
  readonly keyword: string;
  /** The reference tokens of the failing instance's location. */
  readonly tokens: readonly (string | number)[];
}

/** The steps of one walk that keyword checks use. */
export interface Walker {
  /** Charges `units` to the budget; throws `OUT_OF_BUDGET` past it. */
  charge(units: number): void;
  /** Records `keyword` failing at the current location (unless failures are discarded). */
  fail(keyword: string): void;
  /** Tests `text` against a pattern, charging for its length and program size. */
  test(matcher: Matcher, text: string): boolean;
  /** Evaluates `schema` on `instance` at the current location. */
  evaluate(schema: Schema, instance: unknown, evaluated: Evaluated | undefined): boolean;
  /** Evaluates `child` (`instance[token]`, or a property name) at `token` below here. */
  below(schema: Schema, child: unknown, token: string | number): boolean;
  /**
   * Evaluates member `key` of `instance` for `keyword`: a success annotates it as evaluated, a
   * failure records `keyword` here.
   */
  member(
    schema: Schema,
    instance: Record<string, unknown>,
    key: string,
    evaluated: Evaluated | undefined,
    keyword: string,
  ): boolean;
  /** How many failures are recorded so far, to {@link Walker.forget} a branch's later. */
  mark(): number;
  /** Forgets the failures recorded after `mark`. */
  forget(mark: number): void;
}
