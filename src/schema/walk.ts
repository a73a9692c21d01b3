/**
 * The walk of one value over a compiled tree (`tree.ts`) of `sluice.schema/v1`.
 *
 * The walk answers exactly what `@cfworker/json-schema` 4.1.6 answers for the keywords the
 * profile admits (run as 2020-12, all errors collected), which sluice validated with before
 * and which the tests keep as the reference: the same keywords evaluated in the same order,
 * the same failing keyword at the same instance location, the same annotations for
 * `unevaluatedProperties` and `unevaluatedItems` (each in-place applicator's branch starts from
 * the annotations its parent already made, as cfworker's prototype chains read). What it does
 * not do is build anything for a value that conforms: no instance location strings, no error
 * objects, no result per subschema. A location is a stack of reference tokens, copied only when
 * a keyword fails; annotations are tracked only when the schema has an `unevaluated*` keyword
 * to read them.
 *
 * Every step is charged to a work budget, so one validation's time is bounded whatever the
 * schema and value: see {@link COSTS}. The in-place keywords are here; the keywords of objects,
 * arrays, numbers and strings are in their own modules, functions of the {@link Walker}.
 *
 * @module
 */
import { arrayKeywords } from "./array_keywords.ts";
import { COSTS, OUT_OF_BUDGET } from "./costs.ts";
import { objectKeywords } from "./object_keywords.ts";
import { numberKeywords, stringKeywords } from "./scalar_keywords.ts";
import {
  ARRAY,
  BOOLEAN,
  type CompiledTree,
  INTEGER,
  type Matcher,
  NULL,
  NUMBER,
  OBJECT,
  type Schema,
  type SchemaNode,
  STRING,
} from "./tree.ts";
import type { Evaluated, Failure, Walker } from "./walker.ts";

/**
 * One walk of a value over a compiled tree. `failures` collects what fails (`null` while the
 * failures would be discarded: under `not` and in an `if` condition); the walk throws
 * {@link OUT_OF_BUDGET} once its charges pass `limit`.
 *
 * @category Schema profile
 */
export class Walk implements Walker {
  /** Units charged so far. */
  units = 0;
  readonly #limit: number;
  readonly #tracks: boolean;
  /** The current instance location. */
  readonly #tokens: (string | number)[] = [];
  #failures: Failure[] | null = [];

  constructor(tree: CompiledTree, limit: number) {
    this.#limit = limit;
    this.#tracks = tree.tracksEvaluated;
  }

  /** Walks `value` over `tree`: `null` when it conforms, else every failure recorded. */
  static run(tree: CompiledTree, value: unknown, limit: number): Failure[] | null {
    const walk = new Walk(tree, limit);
    const failures = walk.#failures!;
    const valid = walk.evaluate(tree.root, value, walk.#fresh());
    return valid ? null : failures;
  }

  /** Charges `units`; throws {@link OUT_OF_BUDGET} past the limit. */
  charge(units: number): void {
    if ((this.units += units) > this.#limit) throw OUT_OF_BUDGET;
  }

  /** Records `keyword` failing here, copying the location (unless failures are discarded). */
  fail(keyword: string): void {
    if (this.#failures === null) return;
    let length = 0;
    for (const token of this.#tokens) length += 1 + String(token).length;
    this.charge(COSTS.error + Math.floor(length / COSTS.errorPointerCharacters));
    this.#failures.push({ keyword, tokens: this.#tokens.slice() });
  }

  /** A fresh annotation record, when any `unevaluated*` keyword reads them. */
  #fresh(): Evaluated | undefined {
    return this.#tracks ? new Set() : undefined;
  }

  /** A branch's annotations: its parent's so far (see {@link Evaluated}). */
  #branch(parent: Evaluated): Evaluated {
    this.charge(parent.size * COSTS.member);
    return new Set(parent);
  }

  /** Adds a branch's or a condition's annotations to its parent's. */
  #merge(parent: Evaluated, branch: Evaluated): void {
    this.charge(branch.size * COSTS.member);
    for (const key of branch) parent.add(key);
  }

  /** Tests a pattern, charged for the text's length times the pattern's program size. */
  test(matcher: Matcher, text: string): boolean {
    this.charge(
      COSTS.patternTest +
        Math.floor(text.length * matcher.instructions / COSTS.patternInstructionCharacters),
    );
    return matcher.re.test(text);
  }

  /** Evaluates `instance[token]` (or `child`, for a property name) at `token` below here. */
  below(schema: Schema, child: unknown, token: string | number): boolean {
    this.#tokens.push(token);
    const valid = this.evaluate(schema, child, this.#fresh());
    this.#tokens.pop();
    return valid;
  }

  /** See {@link Walker.member}. */
  member(
    schema: Schema,
    instance: Record<string, unknown>,
    key: string,
    evaluated: Evaluated | undefined,
    keyword: string,
  ): boolean {
    if (this.below(schema, instance[key], key)) {
      evaluated?.add(key);
      return true;
    }
    this.fail(keyword);
    return false;
  }

  /** How many failures are recorded so far. */
  mark(): number {
    return this.#failures?.length ?? 0;
  }

  /** Forgets the failures recorded after `mark` (a branch that did not decide the result). */
  forget(mark: number): void {
    if (this.#failures !== null) this.#failures.length = mark;
  }

  /** Runs `schema` with failures discarded, as cfworker does under `not` and in `if`. */
  #quietly(schema: Schema, instance: unknown, evaluated: Evaluated | undefined): boolean {
    const failures = this.#failures;
    this.#failures = null;
    try {
      return this.evaluate(schema, instance, evaluated);
    } finally {
      this.#failures = failures;
    }
  }

  /** Evaluates `schema` on `instance` here: in-place keywords, then those of its type. */
  evaluate(schema: Schema, instance: unknown, evaluated: Evaluated | undefined): boolean {
    this.charge(COSTS.evaluation);
    if (schema === true) return true;
    if (schema === false) {
      this.fail("false");
      return false;
    }
    let valid = schema.inPlace ? this.#inPlace(schema, instance, evaluated) : true;
    switch (typeof instance) {
      case "object":
        if (instance === null) break;
        if (Array.isArray(instance)) {
          if (schema.forArrays && !arrayKeywords(this, schema, instance, evaluated)) valid = false;
        } else if (
          schema.forObjects &&
          !objectKeywords(this, schema, instance as Record<string, unknown>, evaluated)
        ) {
          valid = false;
        }
        break;
      case "number":
        if (schema.forNumbers && !numberKeywords(this, schema, instance)) valid = false;
        break;
      case "string":
        if (schema.forStrings && !stringKeywords(this, schema, instance)) valid = false;
        break;
    }
    return valid;
  }

  /** The in-place keywords (`$ref` to `if`), in cfworker's order. */
  #inPlace(node: SchemaNode, instance: unknown, evaluated: Evaluated | undefined): boolean {
    const asserted = this.#assertions(node, instance, evaluated);
    const applied = this.#applicators(node, instance, evaluated);
    return this.#conditional(node, instance, evaluated) && asserted && applied;
  }

  /** `$ref`, `type`, `const`, `enum` and `not`. */
  #assertions(node: SchemaNode, instance: unknown, evaluated: Evaluated | undefined): boolean {
    let valid = true;
    if (node.ref !== undefined && !this.evaluate(node.ref, instance, evaluated)) {
      valid = false;
      this.fail("$ref");
    }
    const container = typeof instance === "object" && instance !== null;
    if (node.types !== 0) {
      const bit = instance === null
        ? NULL
        : container
        ? Array.isArray(instance) ? ARRAY : OBJECT
        : typeof instance === "string"
        ? STRING
        : typeof instance === "number"
        ? NUMBER
        : BOOLEAN;
      const integral = bit === NUMBER && (node.types & INTEGER) !== 0 &&
        Number.isInteger(instance);
      if ((node.types & bit) === 0 && !integral) {
        valid = false;
        this.fail("type");
      }
    }
    if (node.hasConst) {
      const same = container
        ? this.#deepEqual(instance, node.constValue)
        : instance === node.constValue;
      if (!same) {
        valid = false;
        this.fail("const");
      }
    }
    if (node.enumScalars !== undefined) {
      let found = false;
      if (container) {
        for (const member of node.enumContainers!) {
          if (this.#deepEqual(instance, member)) {
            found = true;
            break;
          }
        }
      } else {
        found = node.enumScalars.has(instance);
      }
      if (!found) {
        valid = false;
        this.fail("enum");
      }
    }
    if (node.not !== undefined) {
      if (this.#quietly(node.not, instance, this.#fresh())) {
        valid = false;
        this.fail("not");
      }
    }
    return valid;
  }

  /** `anyOf`, `allOf` and `oneOf`; the annotations of the branches that passed are merged. */
  #applicators(node: SchemaNode, instance: unknown, evaluated: Evaluated | undefined): boolean {
    let valid = true;
    const container = typeof instance === "object" && instance !== null;
    const tracks = evaluated !== undefined;
    const annotated: Evaluated[] = [];
    if (node.anyOf !== undefined) {
      const mark = this.mark();
      let any = false;
      for (const sub of node.anyOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.evaluate(sub, instance, branch)) {
          any = true;
          if (branch) annotated.push(branch);
        }
      }
      if (any) {
        this.forget(mark);
      } else {
        valid = false;
        this.fail("anyOf");
      }
    }
    if (node.allOf !== undefined) {
      let all = true;
      for (const sub of node.allOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.evaluate(sub, instance, branch)) {
          if (branch) annotated.push(branch);
        } else {
          all = false;
        }
      }
      if (!all) {
        valid = false;
        this.fail("allOf");
      }
    }
    if (node.oneOf !== undefined) {
      const mark = this.mark();
      let matches = 0;
      for (const sub of node.oneOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.evaluate(sub, instance, branch)) {
          matches++;
          if (branch) annotated.push(branch);
        }
      }
      if (matches === 1) {
        this.forget(mark);
      } else {
        valid = false;
        this.fail("oneOf");
      }
    }
    if (tracks && container) { for (const branch of annotated) this.#merge(evaluated, branch); }
    return valid;
  }

  /** `if`, then `then` or `else`. */
  #conditional(node: SchemaNode, instance: unknown, evaluated: Evaluated | undefined): boolean {
    let valid = true;
    const tracks = evaluated !== undefined;
    if (node.if !== undefined) {
      const condition = this.#fresh();
      if (this.#quietly(node.if, instance, condition)) {
        if (tracks) this.#merge(evaluated, condition!);
        if (node.then !== undefined && !this.evaluate(node.then, instance, evaluated)) {
          valid = false;
          this.fail("if");
        }
      } else if (node.else !== undefined && !this.evaluate(node.else, instance, evaluated)) {
        valid = false;
        this.fail("if");
      }
    }
    return valid;
  }

  /** cfworker's `deepCompareStrict`, charging each pair of values compared. */
  #deepEqual(a: unknown, b: unknown): boolean {
    this.charge(COSTS.member);
    if (typeof a !== typeof b) return false;
    const arrayA = Array.isArray(a);
    if (arrayA !== Array.isArray(b)) return false;
    if (arrayA) {
      const left = a as unknown[];
      const right = b as unknown[];
      if (left.length !== right.length) return false;
      for (let index = 0; index < left.length; index++) {
        if (!this.#deepEqual(left[index], right[index])) return false;
      }
      return true;
    }
    if (typeof a === "object") {
      if (!a || !b) return a === b;
      const keys = Object.keys(a);
      // Listing both objects' names is a step per name of each.
      this.charge(2 * keys.length * COSTS.member);
      if (keys.length !== Object.keys(b).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(b, key)) return false;
        if (
          !this.#deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
        ) {
          return false;
        }
      }
      return true;
    }
    return a === b;
  }
}
