/**
 * The validator of `sluice.schema/v1`: a checked schema compiled once into a tree of nodes
 * (references resolved, patterns compiled for RE2, enum members indexed), and the walk of one
 * value over that tree.
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
 * schema and value: see {@link COSTS}.
 *
 * @module
 */
import type { RE2JS } from "re2js";
import type { JsonObject, JsonValue } from "../identity/json.ts";
import { SchemaUnsupportedError } from "./errors.ts";
import { compilePattern } from "./pattern.ts";

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

/** A compiled subschema: a node, or a boolean schema. */
type Schema = SchemaNode | boolean;

/** A pattern compiled for RE2 and its program size (for its cost). */
interface Matcher {
  readonly re: RE2JS;
  readonly instructions: number;
}

/**
 * Which properties (by name) or items (by index) of one instance count as evaluated, for
 * `unevaluated*`. cfworker gives each in-place branch an object whose prototype is its parent's;
 * a branch here starts as a copy of its parent's set, which reads the same, since a parent gains
 * nothing while its branch runs, and costs no walk up a chain on every read and merge.
 */
type Evaluated = Set<string | number>;

const NULL = 1;
const BOOLEAN = 2;
const OBJECT = 4;
const ARRAY = 8;
const NUMBER = 16;
const STRING = 32;
const INTEGER = 64;
const TYPE_BITS: Readonly<Record<string, number>> = {
  null: NULL,
  boolean: BOOLEAN,
  object: OBJECT,
  array: ARRAY,
  number: NUMBER,
  string: STRING,
  integer: INTEGER,
};

/** One object subschema, with only what validation reads. Every field is set in the constructor. */
class SchemaNode {
  ref: Schema | undefined = undefined;
  /** Bits of the `type` keyword; 0 when absent. */
  types = 0;
  hasConst = false;
  constValue: unknown = undefined;
  /** `enum`'s scalar members, compared by `===` (a Set's SameValueZero is the same on JSON). */
  enumScalars: Set<unknown> | undefined = undefined;
  /** `enum`'s object and array members, compared deeply with object and array values. */
  enumContainers: unknown[] | undefined = undefined;
  not: Schema | undefined = undefined;
  anyOf: Schema[] | undefined = undefined;
  allOf: Schema[] | undefined = undefined;
  oneOf: Schema[] | undefined = undefined;
  if: Schema | undefined = undefined;
  then: Schema | undefined = undefined;
  else: Schema | undefined = undefined;
  /** Any of the keywords above: most nodes of real schemas have none. */
  inPlace = false;
  required: string[] | undefined = undefined;
  minProperties: number | undefined = undefined;
  maxProperties: number | undefined = undefined;
  propertyNames: Schema | undefined = undefined;
  dependentRequired: [string, string[]][] | undefined = undefined;
  dependentSchemas: [string, Schema][] | undefined = undefined;
  properties: Map<string, Schema> | undefined = undefined;
  /** The same members as a list, walked when the value has more members than `properties`. */
  propertyList: [string, Schema][] | undefined = undefined;
  patternProperties: [Matcher, Schema][] | undefined = undefined;
  additionalProperties: Schema | undefined = undefined;
  unevaluatedProperties: Schema | undefined = undefined;
  /** Any object keyword. */
  forObjects = false;
  /** An object keyword that reads the value's member names. */
  readsKeys = false;
  minItems: number | undefined = undefined;
  maxItems: number | undefined = undefined;
  prefixItems: Schema[] | undefined = undefined;
  items: Schema | undefined = undefined;
  contains: Schema | undefined = undefined;
  minContains: number | undefined = undefined;
  maxContains: number | undefined = undefined;
  unevaluatedItems: Schema | undefined = undefined;
  forArrays = false;
  minimum: number | undefined = undefined;
  maximum: number | undefined = undefined;
  exclusiveMinimum: number | undefined = undefined;
  exclusiveMaximum: number | undefined = undefined;
  multipleOf: number | undefined = undefined;
  forNumbers = false;
  minLength: number | undefined = undefined;
  maxLength: number | undefined = undefined;
  pattern: Matcher | undefined = undefined;
  forStrings = false;
}

/**
 * A schema compiled for validation.
 *
 * @category Schema profile
 */
export interface CompiledTree {
  /** The root subschema. */
  readonly root: Schema;
  /** Whether any subschema has `unevaluatedProperties` or `unevaluatedItems`. */
  readonly tracksEvaluated: boolean;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Builds the tree of one checked schema (a private copy: nothing of it is kept by reference). */
class TreeBuilder {
  readonly #definitions = new Map<string, Schema>();
  readonly #anchors = new Map<string, string>();
  readonly #matchers = new Map<string, Matcher>();
  readonly #root: JsonObject;
  tracksEvaluated = false;

  constructor(root: JsonObject) {
    this.#root = root;
  }

  #defined = false;

  build(): CompiledTree {
    return this.subtree(this.#root);
  }

  /** The tree of `schema`, a subschema of the root whose references resolve in the root. */
  subtree(schema: JsonValue): CompiledTree {
    this.#define();
    const root = this.#schema(schema);
    return { root, tracksEvaluated: this.tracksEvaluated };
  }

  #define(): void {
    if (this.#defined) return;
    this.#defined = true;
    // Every definition gets its node first, so references resolve without recursing into them.
    const pending: [SchemaNode, JsonObject][] = [];
    for (const container of ["$defs", "definitions"] as const) {
      const definitions = this.#root[container];
      if (!isObject(definitions)) continue;
      for (const [name, definition] of Object.entries(definitions)) {
        const key = `#/${container}/${name}`;
        if (typeof definition === "boolean") {
          this.#definitions.set(key, definition);
          continue;
        }
        const node = new SchemaNode();
        this.#definitions.set(key, node);
        pending.push([node, definition as JsonObject]);
        const anchor = (definition as JsonObject).$anchor;
        if (typeof anchor === "string") this.#anchors.set(`#${anchor}`, key);
      }
    }
    for (const [node, definition] of pending) this.#fill(node, definition);
  }

  #schema(value: JsonValue): Schema {
    if (typeof value === "boolean") return value;
    const node = new SchemaNode();
    this.#fill(node, value as JsonObject);
    return node;
  }

  #schemas(values: JsonValue): Schema[] {
    return (values as JsonValue[]).map((value) => this.#schema(value));
  }

  #matcher(source: string): Matcher {
    let matcher = this.#matchers.get(source);
    if (matcher === undefined) {
      const compiled = compilePattern(source, Infinity);
      // checkSchema admitted the pattern, so it compiles; fail closed if it ever did not.
      if (!compiled.ok) throw new SchemaUnsupportedError([]);
      matcher = { re: compiled.matcher, instructions: compiled.instructions };
      this.#matchers.set(source, matcher);
    }
    return matcher;
  }

  #resolve(ref: string): Schema {
    const target = this.#definitions.get(this.#anchors.get(ref) ?? ref);
    // checkSchema admitted the reference, so it resolves; fail closed if it ever did not.
    if (target === undefined) throw new SchemaUnsupportedError([]);
    return target;
  }

  #fill(node: SchemaNode, schema: JsonObject): void {
    for (const [keyword, value] of Object.entries(schema)) {
      switch (keyword) {
        case "$ref":
          node.ref = this.#resolve(value as string);
          node.inPlace = true;
          break;
        case "type":
          for (const name of typeof value === "string" ? [value] : value as string[]) {
            node.types |= TYPE_BITS[name];
          }
          node.inPlace = true;
          break;
        case "const":
          node.hasConst = true;
          node.constValue = value;
          node.inPlace = true;
          break;
        case "enum":
          node.enumScalars = new Set(
            (value as JsonValue[]).filter((member) =>
              typeof member !== "object" || member === null
            ),
          );
          node.enumContainers = (value as JsonValue[]).filter((member) =>
            typeof member === "object" && member !== null
          );
          node.inPlace = true;
          break;
        case "not":
        case "if":
        case "then":
        case "else":
          node[keyword] = this.#schema(value);
          node.inPlace = true;
          break;
        case "anyOf":
        case "allOf":
        case "oneOf":
          node[keyword] = this.#schemas(value);
          node.inPlace = true;
          break;
        case "required":
          node.required = value as string[];
          node.forObjects = true;
          break;
        case "minProperties":
        case "maxProperties":
          node[keyword] = value as number;
          node.forObjects = node.readsKeys = true;
          break;
        case "propertyNames":
        case "additionalProperties":
          node[keyword] = this.#schema(value);
          node.forObjects = node.readsKeys = true;
          break;
        case "unevaluatedProperties":
          node.unevaluatedProperties = this.#schema(value);
          node.forObjects = node.readsKeys = true;
          this.tracksEvaluated = true;
          break;
        case "dependentRequired":
          node.dependentRequired = Object.entries(value as Record<string, string[]>);
          node.forObjects = true;
          break;
        case "dependentSchemas":
          node.dependentSchemas = Object.entries(value as JsonObject).map((
            [name, sub],
          ) => [name, this.#schema(sub)]);
          node.forObjects = true;
          break;
        case "properties":
          node.propertyList = Object.entries(value as JsonObject).map((
            [name, sub],
          ) => [name, this.#schema(sub)]);
          node.properties = new Map(node.propertyList);
          node.forObjects = true;
          break;
        case "patternProperties":
          node.patternProperties = Object.entries(value as JsonObject).map((
            [source, sub],
          ) => [this.#matcher(source), this.#schema(sub)]);
          node.forObjects = node.readsKeys = true;
          break;
        case "minItems":
        case "maxItems":
        case "minContains":
        case "maxContains":
          node[keyword] = value as number;
          node.forArrays = true;
          break;
        case "prefixItems":
          node.prefixItems = this.#schemas(value);
          node.forArrays = true;
          break;
        case "items":
        case "contains":
          node[keyword] = this.#schema(value);
          node.forArrays = true;
          break;
        case "unevaluatedItems":
          node.unevaluatedItems = this.#schema(value);
          node.forArrays = true;
          this.tracksEvaluated = true;
          break;
        case "minimum":
        case "maximum":
        case "exclusiveMinimum":
        case "exclusiveMaximum":
        case "multipleOf":
          node[keyword] = value as number;
          node.forNumbers = true;
          break;
        case "minLength":
        case "maxLength":
          node[keyword] = value as number;
          node.forStrings = true;
          break;
        case "pattern":
          node.pattern = this.#matcher(value as string);
          node.forStrings = true;
          break;
          // Annotations, `format` (an annotation in the profile), `$defs`, `$anchor`, `$schema`
          // and `x-mcp-header` assert nothing.
      }
    }
  }
}

/**
 * Compiles a schema that `checkSchema` admitted into the tree the validator walks. The schema
 * is read, never kept: pass a private copy when its values (`const`, `enum`) may change later.
 *
 * @category Schema profile
 */
export function compileTree(schema: JsonObject): CompiledTree {
  return new TreeBuilder(schema).build();
}

/**
 * Compiles subschemas of `root` (a schema `checkSchema` admitted, read and never kept, as by
 * {@link compileTree}) whose references resolve in the root: the definitions are compiled once
 * for every subschema asked for.
 *
 * @category Schema profile
 */
export function subtreeCompiler(root: JsonObject): (schema: JsonValue) => CompiledTree {
  const builder = new TreeBuilder(root);
  return (schema) => builder.subtree(schema);
}

/** Thrown by a walk that ran out of its work budget. */
export const OUT_OF_BUDGET: unique symbol = Symbol("out of budget");

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

/** `decimalInteger` as cfworker has it: the integer coefficient and exponent of a number. */
function decimal(value: number): [bigint, number] {
  const [coefficient, exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fraction = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fraction];
}

/** `multipleOf` on decimal digits, exactly as cfworker decides it (no floating-point remainder). */
function isDecimalMultiple(value: number, divisor: number): boolean {
  const [valueDigits, valueExponent] = decimal(value);
  const [divisorDigits, divisorExponent] = decimal(divisor);
  const difference = valueExponent - divisorExponent;
  return difference >= 0
    ? (valueDigits * 10n ** BigInt(difference)) % divisorDigits === 0n
    : valueDigits % (divisorDigits * 10n ** BigInt(-difference)) === 0n;
}

/** Code points of a string, a lone surrogate counting as one (what `minLength` counts). */
function codePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/**
 * One walk of a value over a compiled tree. `failures` collects what fails (`null` while the
 * failures would be discarded: under `not` and in an `if` condition); the walk throws
 * {@link OUT_OF_BUDGET} once its charges pass `limit`.
 *
 * @category Schema profile
 */
export class Walk {
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
    const valid = walk.#evaluate(tree.root, value, walk.#fresh());
    return valid ? null : failures;
  }

  #charge(units: number): void {
    if ((this.units += units) > this.#limit) throw OUT_OF_BUDGET;
  }

  #fail(keyword: string): void {
    if (this.#failures === null) return;
    let length = 0;
    for (const token of this.#tokens) length += 1 + String(token).length;
    this.#charge(COSTS.error + Math.floor(length / COSTS.errorPointerCharacters));
    this.#failures.push({ keyword, tokens: this.#tokens.slice() });
  }

  /** A fresh annotation record, when any `unevaluated*` keyword reads them. */
  #fresh(): Evaluated | undefined {
    return this.#tracks ? new Set() : undefined;
  }

  /** A branch's annotations: its parent's so far (see {@link Evaluated}). */
  #branch(parent: Evaluated): Evaluated {
    this.#charge(parent.size * COSTS.member);
    return new Set(parent);
  }

  /** Adds a branch's or a condition's annotations to its parent's. */
  #merge(parent: Evaluated, branch: Evaluated): void {
    this.#charge(branch.size * COSTS.member);
    for (const key of branch) parent.add(key);
  }

  #test(matcher: Matcher, text: string): boolean {
    this.#charge(
      COSTS.patternTest +
        Math.floor(text.length * matcher.instructions / COSTS.patternInstructionCharacters),
    );
    return matcher.re.test(text);
  }

  /** Evaluates `instance[token]` (or `child`, for a property name) at `token` below here. */
  #below(schema: Schema, child: unknown, token: string | number): boolean {
    this.#tokens.push(token);
    const valid = this.#evaluate(schema, child, this.#fresh());
    this.#tokens.pop();
    return valid;
  }

  /**
   * Evaluates member `key` of `instance` for `keyword`: a success annotates it as evaluated, a
   * failure records `keyword` here.
   */
  #member(
    schema: Schema,
    instance: Record<string, unknown>,
    key: string,
    evaluated: Evaluated | undefined,
    keyword: string,
  ): boolean {
    if (this.#below(schema, instance[key], key)) {
      evaluated?.add(key);
      return true;
    }
    this.#fail(keyword);
    return false;
  }

  /** Runs `schema` with failures discarded, as cfworker does under `not` and in `if`. */
  #quietly(schema: Schema, instance: unknown, evaluated: Evaluated | undefined): boolean {
    const failures = this.#failures;
    this.#failures = null;
    try {
      return this.#evaluate(schema, instance, evaluated);
    } finally {
      this.#failures = failures;
    }
  }

  #evaluate(schema: Schema, instance: unknown, evaluated: Evaluated | undefined): boolean {
    this.#charge(COSTS.evaluation);
    if (schema === true) return true;
    if (schema === false) {
      this.#fail("false");
      return false;
    }
    let valid = schema.inPlace ? this.#inPlace(schema, instance, evaluated) : true;
    switch (typeof instance) {
      case "object":
        if (instance === null) break;
        if (Array.isArray(instance)) {
          if (schema.forArrays && !this.#array(schema, instance, evaluated)) valid = false;
        } else if (
          schema.forObjects &&
          !this.#object(schema, instance as Record<string, unknown>, evaluated)
        ) {
          valid = false;
        }
        break;
      case "number":
        if (schema.forNumbers && !this.#number(schema, instance)) valid = false;
        break;
      case "string":
        if (schema.forStrings && !this.#string(schema, instance)) valid = false;
        break;
    }
    return valid;
  }

  /** The in-place keywords (`$ref` to `if`), in cfworker's order. */
  #inPlace(node: SchemaNode, instance: unknown, evaluated: Evaluated | undefined): boolean {
    let valid = true;
    if (node.ref !== undefined && !this.#evaluate(node.ref, instance, evaluated)) {
      valid = false;
      this.#fail("$ref");
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
        this.#fail("type");
      }
    }
    if (node.hasConst) {
      const same = container
        ? this.#deepEqual(instance, node.constValue)
        : instance === node.constValue;
      if (!same) {
        valid = false;
        this.#fail("const");
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
        this.#fail("enum");
      }
    }
    if (node.not !== undefined) {
      if (this.#quietly(node.not, instance, this.#fresh())) {
        valid = false;
        this.#fail("not");
      }
    }
    const tracks = evaluated !== undefined;
    const annotated: Evaluated[] = [];
    if (node.anyOf !== undefined) {
      const mark = this.#failures?.length ?? 0;
      let any = false;
      for (const sub of node.anyOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.#evaluate(sub, instance, branch)) {
          any = true;
          if (branch) annotated.push(branch);
        }
      }
      if (any) {
        if (this.#failures !== null) this.#failures.length = mark;
      } else {
        valid = false;
        this.#fail("anyOf");
      }
    }
    if (node.allOf !== undefined) {
      let all = true;
      for (const sub of node.allOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.#evaluate(sub, instance, branch)) {
          if (branch) annotated.push(branch);
        } else {
          all = false;
        }
      }
      if (!all) {
        valid = false;
        this.#fail("allOf");
      }
    }
    if (node.oneOf !== undefined) {
      const mark = this.#failures?.length ?? 0;
      let matches = 0;
      for (const sub of node.oneOf) {
        const branch = evaluated && this.#branch(evaluated);
        if (this.#evaluate(sub, instance, branch)) {
          matches++;
          if (branch) annotated.push(branch);
        }
      }
      if (matches === 1) {
        if (this.#failures !== null) this.#failures.length = mark;
      } else {
        valid = false;
        this.#fail("oneOf");
      }
    }
    if (tracks && container) { for (const branch of annotated) this.#merge(evaluated, branch); }
    if (node.if !== undefined) {
      const condition = this.#fresh();
      if (this.#quietly(node.if, instance, condition)) {
        if (tracks) this.#merge(evaluated, condition!);
        if (node.then !== undefined && !this.#evaluate(node.then, instance, evaluated)) {
          valid = false;
          this.#fail("if");
        }
      } else if (node.else !== undefined && !this.#evaluate(node.else, instance, evaluated)) {
        valid = false;
        this.#fail("if");
      }
    }
    return valid;
  }

  /** cfworker's `deepCompareStrict`, charging each pair of values compared. */
  #deepEqual(a: unknown, b: unknown): boolean {
    this.#charge(COSTS.member);
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
      this.#charge(2 * keys.length * COSTS.member);
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

  #object(
    node: SchemaNode,
    instance: Record<string, unknown>,
    evaluated: Evaluated | undefined,
  ): boolean {
    let valid = true;
    if (node.required !== undefined) {
      this.#charge(node.required.length * COSTS.member);
      for (const key of node.required) {
        if (!Object.hasOwn(instance, key)) {
          valid = false;
          this.#fail("required");
        }
      }
    }
    const keys = node.readsKeys ? Object.keys(instance) : undefined;
    if (node.minProperties !== undefined && keys!.length < node.minProperties) {
      valid = false;
      this.#fail("minProperties");
    }
    if (node.maxProperties !== undefined && keys!.length > node.maxProperties) {
      valid = false;
      this.#fail("maxProperties");
    }
    if (node.propertyNames !== undefined) {
      for (const key of keys!) {
        if (!this.#below(node.propertyNames, key, key)) {
          valid = false;
          this.#fail("propertyNames");
        }
      }
    }
    if (node.dependentRequired !== undefined) {
      for (const [key, needed] of node.dependentRequired) {
        this.#charge(COSTS.member);
        if (!Object.hasOwn(instance, key)) continue;
        this.#charge(needed.length * COSTS.member);
        for (const other of needed) {
          if (!Object.hasOwn(instance, other)) {
            valid = false;
            this.#fail("dependentRequired");
          }
        }
      }
    }
    if (node.dependentSchemas !== undefined) {
      for (const [key, sub] of node.dependentSchemas) {
        this.#charge(COSTS.member);
        if (Object.hasOwn(instance, key) && !this.#evaluate(sub, instance, evaluated)) {
          valid = false;
          this.#fail("dependentSchemas");
        }
      }
    }
    const properties = node.properties;
    if (properties !== undefined) {
      // Whichever side is smaller is walked; the pairs evaluated are the same.
      if (keys !== undefined && keys.length < properties.size) {
        this.#charge(keys.length * COSTS.member);
        for (const key of keys) {
          const sub = properties.get(key);
          if (sub !== undefined && !this.#member(sub, instance, key, evaluated, "properties")) {
            valid = false;
          }
        }
      } else {
        this.#charge(properties.size * COSTS.member);
        for (const [key, sub] of node.propertyList!) {
          if (
            Object.hasOwn(instance, key) &&
            !this.#member(sub, instance, key, evaluated, "properties")
          ) {
            valid = false;
          }
        }
      }
    }
    // Names some pattern matched: with `properties`, what `additionalProperties` skips.
    let matched: Set<string> | undefined;
    if (node.patternProperties !== undefined) {
      if (node.additionalProperties !== undefined) matched = new Set();
      for (const [matcher, sub] of node.patternProperties) {
        for (const key of keys!) {
          if (!this.#test(matcher, key)) continue;
          matched?.add(key);
          if (!this.#member(sub, instance, key, evaluated, "patternProperties")) valid = false;
        }
      }
    }
    const rest = node.additionalProperties ?? node.unevaluatedProperties;
    if (rest !== undefined) {
      // cfworker reads unevaluatedProperties only without additionalProperties.
      const additional = node.additionalProperties !== undefined;
      this.#charge(keys!.length * COSTS.member);
      for (const key of keys!) {
        if (
          additional ? properties?.has(key) || matched?.has(key) : evaluated!.has(key)
        ) {
          continue;
        }
        const keyword = additional ? "additionalProperties" : "unevaluatedProperties";
        if (!this.#member(rest, instance, key, evaluated, keyword)) valid = false;
      }
    }
    return valid;
  }

  #array(node: SchemaNode, instance: unknown[], evaluated: Evaluated | undefined): boolean {
    let valid = true;
    const length = instance.length;
    if (node.maxItems !== undefined && length > node.maxItems) {
      valid = false;
      this.#fail("maxItems");
    }
    if (node.minItems !== undefined && length < node.minItems) {
      valid = false;
      this.#fail("minItems");
    }
    let index = 0;
    if (node.prefixItems !== undefined) {
      const prefix = Math.min(node.prefixItems.length, length);
      for (; index < prefix; index++) {
        const ok = this.#below(node.prefixItems[index], instance[index], index);
        evaluated?.add(index);
        if (!ok) {
          valid = false;
          this.#fail("prefixItems");
        }
      }
    }
    if (node.items !== undefined) {
      for (; index < length; index++) {
        const ok = this.#below(node.items, instance[index], index);
        evaluated?.add(index);
        if (!ok) {
          valid = false;
          this.#fail("items");
        }
      }
    }
    if (node.contains !== undefined && !this.#contains(node, instance, evaluated)) valid = false;
    if (node.unevaluatedItems !== undefined) {
      this.#charge((length - index) * COSTS.member);
      for (; index < length; index++) {
        if (evaluated!.has(index)) continue;
        const ok = this.#below(node.unevaluatedItems, instance[index], index);
        evaluated!.add(index);
        if (!ok) {
          valid = false;
          this.#fail("unevaluatedItems");
        }
      }
    }
    return valid;
  }

  /** `contains` with `minContains` and `maxContains`, as cfworker decides and reports them. */
  #contains(node: SchemaNode, instance: unknown[], evaluated: Evaluated | undefined): boolean {
    const { minContains, maxContains } = node;
    const length = instance.length;
    if (length === 0 && minContains === undefined) {
      this.#fail("contains");
      return false;
    }
    if (minContains !== undefined && length < minContains) {
      this.#fail("minContains");
      return false;
    }
    const mark = this.#failures?.length ?? 0;
    let contained = 0;
    for (let index = 0; index < length; index++) {
      if (this.#below(node.contains!, instance[index], index)) {
        evaluated?.add(index);
        contained++;
      }
    }
    // The items' failures stay only when too few items matched a `minContains`.
    if (contained >= (minContains || 0) && this.#failures !== null) this.#failures.length = mark;
    if (minContains === undefined && contained === 0) {
      this.#fail("contains");
      return false;
    }
    if (minContains !== undefined && contained < minContains) {
      this.#fail("minContains");
      return false;
    }
    if (maxContains !== undefined && contained > maxContains) {
      this.#fail("maxContains");
      return false;
    }
    return true;
  }

  #multipleOf(value: number, divisor: number): boolean {
    // Between safe integers the remainder is exact, and the answer the same.
    if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
    this.#charge(COSTS.decimalMultiple);
    return isDecimalMultiple(value, divisor);
  }

  #number(node: SchemaNode, instance: number): boolean {
    let valid = true;
    if (node.minimum !== undefined && instance < node.minimum) {
      valid = false;
      this.#fail("minimum");
    }
    if (node.maximum !== undefined && instance > node.maximum) {
      valid = false;
      this.#fail("maximum");
    }
    if (node.exclusiveMinimum !== undefined && instance <= node.exclusiveMinimum) {
      valid = false;
      this.#fail("exclusiveMinimum");
    }
    if (node.exclusiveMaximum !== undefined && instance >= node.exclusiveMaximum) {
      valid = false;
      this.#fail("exclusiveMaximum");
    }
    if (node.multipleOf !== undefined && !this.#multipleOf(instance, node.multipleOf)) {
      valid = false;
      this.#fail("multipleOf");
    }
    return valid;
  }

  #string(node: SchemaNode, instance: string): boolean {
    let valid = true;
    const { minLength, maxLength } = node;
    if (minLength !== undefined || maxLength !== undefined) {
      // A string has between ceil(units / 2) and units code points: count only in between.
      const units = instance.length;
      const least = Math.ceil(units / 2);
      let length = -1;
      const count = (): number => {
        if (length < 0) {
          this.#charge(Math.floor(units / COSTS.lengthCharacters));
          length = codePoints(instance);
        }
        return length;
      };
      if (
        minLength !== undefined &&
        (units < minLength || (least < minLength && count() < minLength))
      ) {
        valid = false;
        this.#fail("minLength");
      }
      if (
        maxLength !== undefined &&
        (least > maxLength || (units > maxLength && count() > maxLength))
      ) {
        valid = false;
        this.#fail("maxLength");
      }
    }
    if (node.pattern !== undefined && !this.#test(node.pattern, instance)) {
      valid = false;
      this.#fail("pattern");
    }
    return valid;
  }
}
