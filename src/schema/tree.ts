/**
 * The compiled tree of a `sluice.schema/v1` schema: a checked schema compiled once into nodes
 * that hold only what validation reads (references resolved, patterns compiled for RE2, enum
 * members indexed). `walk.ts` walks a value over it.
 *
 * @module
 */
import type { RE2JS } from "re2js";
import type { JsonObject, JsonValue } from "../identity/json.ts";
import { SchemaUnsupportedError } from "./errors.ts";
import { compilePattern } from "./pattern.ts";

/** A compiled subschema: a node, or a boolean schema. */
export type Schema = SchemaNode | boolean;

/** A pattern compiled for RE2 and its program size (for its cost). */
export interface Matcher {
  readonly re: RE2JS;
  readonly instructions: number;
}

/** Bits of the `type` keyword's names, for one test per instance. */
export const NULL = 1;
export const BOOLEAN = 2;
export const OBJECT = 4;
export const ARRAY = 8;
export const NUMBER = 16;
export const STRING = 32;
export const INTEGER = 64;
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
export class SchemaNode {
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

  /**
   * Sets on `node` what validation reads of `schema`. Annotations, `format` (an annotation in
   * the profile), `$defs`, `$anchor`, `$schema` and `x-mcp-header` assert nothing.
   */
  #fill(node: SchemaNode, schema: JsonObject): void {
    for (const [keyword, value] of Object.entries(schema)) {
      if (this.#fillInPlace(node, keyword, value)) continue;
      if (this.#fillObject(node, keyword, value)) continue;
      if (this.#fillArray(node, keyword, value)) continue;
      this.#fillScalar(node, keyword, value);
    }
  }

  /** The keywords that apply to the instance itself (`$ref` to `if`). */
  #fillInPlace(node: SchemaNode, keyword: string, value: JsonValue): boolean {
    switch (keyword) {
      case "$ref":
        node.ref = this.#resolve(value as string);
        node.inPlace = true;
        return true;
      case "type":
        for (const name of typeof value === "string" ? [value] : value as string[]) {
          node.types |= TYPE_BITS[name];
        }
        node.inPlace = true;
        return true;
      case "const":
        node.hasConst = true;
        node.constValue = value;
        node.inPlace = true;
        return true;
      case "enum":
        node.enumScalars = new Set(
          (value as JsonValue[]).filter((member) => typeof member !== "object" || member === null),
        );
        node.enumContainers = (value as JsonValue[]).filter((member) =>
          typeof member === "object" && member !== null
        );
        node.inPlace = true;
        return true;
      case "not":
      case "if":
      case "then":
      case "else":
        node[keyword] = this.#schema(value);
        node.inPlace = true;
        return true;
      case "anyOf":
      case "allOf":
      case "oneOf":
        node[keyword] = this.#schemas(value);
        node.inPlace = true;
        return true;
    }
    return false;
  }

  /** The keywords of object instances. */
  #fillObject(node: SchemaNode, keyword: string, value: JsonValue): boolean {
    switch (keyword) {
      case "required":
        node.required = value as string[];
        node.forObjects = true;
        return true;
      case "minProperties":
      case "maxProperties":
        node[keyword] = value as number;
        node.forObjects = node.readsKeys = true;
        return true;
      case "propertyNames":
      case "additionalProperties":
        node[keyword] = this.#schema(value);
        node.forObjects = node.readsKeys = true;
        return true;
      case "unevaluatedProperties":
        node.unevaluatedProperties = this.#schema(value);
        node.forObjects = node.readsKeys = true;
        this.tracksEvaluated = true;
        return true;
      case "dependentRequired":
        node.dependentRequired = Object.entries(value as Record<string, string[]>);
        node.forObjects = true;
        return true;
      case "dependentSchemas":
        node.dependentSchemas = Object.entries(value as JsonObject).map((
          [name, sub],
        ) => [name, this.#schema(sub)]);
        node.forObjects = true;
        return true;
      case "properties":
        node.propertyList = Object.entries(value as JsonObject).map((
          [name, sub],
        ) => [name, this.#schema(sub)]);
        node.properties = new Map(node.propertyList);
        node.forObjects = true;
        return true;
      case "patternProperties":
        node.patternProperties = Object.entries(value as JsonObject).map((
          [source, sub],
        ) => [this.#matcher(source), this.#schema(sub)]);
        node.forObjects = node.readsKeys = true;
        return true;
    }
    return false;
  }

  /** The keywords of array instances. */
  #fillArray(node: SchemaNode, keyword: string, value: JsonValue): boolean {
    switch (keyword) {
      case "minItems":
      case "maxItems":
      case "minContains":
      case "maxContains":
        node[keyword] = value as number;
        node.forArrays = true;
        return true;
      case "prefixItems":
        node.prefixItems = this.#schemas(value);
        node.forArrays = true;
        return true;
      case "items":
      case "contains":
        node[keyword] = this.#schema(value);
        node.forArrays = true;
        return true;
      case "unevaluatedItems":
        node.unevaluatedItems = this.#schema(value);
        node.forArrays = true;
        this.tracksEvaluated = true;
        return true;
    }
    return false;
  }

  /** The keywords of numbers and strings. */
  #fillScalar(node: SchemaNode, keyword: string, value: JsonValue): boolean {
    switch (keyword) {
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf":
        node[keyword] = value as number;
        node.forNumbers = true;
        return true;
      case "minLength":
      case "maxLength":
        node[keyword] = value as number;
        node.forStrings = true;
        return true;
      case "pattern":
        node.pattern = this.#matcher(value as string);
        node.forStrings = true;
        return true;
    }
    return false;
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
