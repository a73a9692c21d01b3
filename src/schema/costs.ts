/**
 * The work budget of a validation: what each step costs, and what a walk throws once its
 * charges pass the budget.
 *
 * @module
 */

/**
 * What each step of a validation costs against `maxEvaluations`. The unit is one subschema
 * evaluation; steps whose time grows with their input are charged in proportion to it, so that
 * no admitted schema and value can make a budget of units last much longer than its count of
 * plain evaluations would (the worst cases found are in docs/schema-profile.md, "Work budget").
 *
 * @category Schema profile
 */
export const COSTS = Object.freeze({
  /** One subschema evaluation (boolean subschemas included). */
  evaluation: 1,
  /** One member visited by a keyword that does not evaluate a subschema for it. */
  member: 1,
  /** One pattern test, before its length: re2js spends a few hundred nanoseconds on any input. */
  patternTest: 8,
  /** One unit more per this many characters times RE2 instructions of a pattern test. */
  patternInstructionCharacters: 32,
  /** One unit more per this many UTF-16 units counted for `minLength` or `maxLength`. */
  lengthCharacters: 8,
  /** A `multipleOf` that is not between safe integers: decimal digits compared as big integers. */
  decimalMultiple: 4,
  /** One failing keyword recorded, before its pointer. */
  error: 2,
  /** One unit more per this many characters of a recorded failure's pointer. */
  errorPointerCharacters: 16,
});

/** Thrown by a walk that ran out of its work budget. */
export const OUT_OF_BUDGET: unique symbol = Symbol("out of budget");
