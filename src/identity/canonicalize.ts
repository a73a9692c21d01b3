import { DEFAULT_JSON_LIMITS, type JsonLimits } from "./json.ts";
import { type JsonErrorCode, JsonValueError } from "./errors.ts";
import { toPointer } from "./pointer.ts";
import { resolveLimits } from "./limits.ts";
import { isDeeplyFrozen } from "./freeze.ts";

const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;
/**
 * A character RFC 8785 escapes (controls, quote, backslash) or a surrogate code unit (paired
 * or not). Without the `u` flag the class matches UTF-16 code units, which is what is wanted.
 */
// deno-lint-ignore no-control-regex
const needsCare = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * Carries a refusal out of the walk; each container on the way out adds its member's reference
 * token, so the hot path never tracks the path of values that are fine.
 */
class Refusal {
  readonly tokens: (string | number)[] = [];
  readonly code: JsonErrorCode;
  readonly message: string;
  constructor(code: JsonErrorCode, message: string) {
    this.code = code;
    this.message = message;
  }
}

/** Adds the reference token of the member a refusal came out of. */
function within(error: unknown, token: string | number): unknown {
  if (error instanceof Refusal) error.tokens.push(token);
  return error;
}

/** Index of the first container that is also one of its own ancestors, or -1. */
function firstRepeat(chain: readonly object[]): number {
  const seen = new Set<object>();
  for (let index = 0; index < chain.length; index++) {
    if (seen.has(chain[index])) return index;
    seen.add(chain[index]);
  }
  return -1;
}

/** A container's canonical text with what writing it counted against the bounds. */
interface Written {
  readonly text: string;
  readonly nodes: number;
  /** Its own nesting: 1 for a container of scalars. */
  readonly depth: number;
  /** The UTF-16 length of its strings and numbers (what `#length` counts). */
  readonly length: number;
}

/**
 * The canonical text of each deeply frozen container written whole before (nothing in it can
 * change, so neither can its text): a snapshot's schemas are written for their checks, their
 * digests and the snapshot's digest, and each is walked once. Small containers are not kept.
 */
const written = new WeakMap<object, Written>();

/** The shortest text worth keeping for a frozen container. */
const KEPT_TEXT = 256;

/** Walks one value, writing its RFC 8785 form; refuses anything that is not plain JSON. */
class Canonicalizer {
  readonly #limits: JsonLimits;
  /** The containers being written, by depth: a cycle shows up as a repeat here. */
  readonly #stack: object[] = [];
  #nodes = 0;
  /** The deepest container written. */
  #depth = 0;
  /** UTF-16 length of the strings and numbers written so far: a lower bound on the output. */
  #length = 0;

  constructor(limits: JsonLimits) {
    this.#limits = limits;
  }

  #fail(code: JsonErrorCode, message: string): never {
    throw new Refusal(code, message);
  }

  #count(text: string): string {
    if ((this.#length += text.length) > this.#limits.maxBytes) {
      this.#fail("json_too_large", `value is larger than ${this.#limits.maxBytes} bytes`);
    }
    return text;
  }

  #string(value: string): string {
    // Most strings have no character to escape and no surrogate: one scan proves it, and they
    // are quoted as they are. The rest take the careful path.
    if (!needsCare.test(value)) return this.#count(`"${value}"`);
    // Lone surrogates cannot be encoded as UTF-8, so their digest would be ambiguous.
    if (!value.isWellFormed()) this.#fail("json_lone_surrogate", "string has a lone surrogate");
    // JSON.stringify escapes exactly as RFC 8785 section 3.2.2.2 requires.
    return this.#count(JSON.stringify(value));
  }

  write(value: unknown, depth: number): string {
    if (++this.#nodes > this.#limits.maxNodes) {
      this.#fail("json_too_many_nodes", `value has more than ${this.#limits.maxNodes} nodes`);
    }
    switch (typeof value) {
      case "string":
        return this.#string(value);
      case "number":
        if (!Number.isFinite(value)) {
          this.#fail("json_non_finite_number", "number is NaN or infinite");
        }
        // ECMAScript's Number-to-String is the serialization RFC 8785 mandates; -0 becomes 0.
        return this.#count(value === 0 ? "0" : String(value));
      case "boolean":
        return value ? "true" : "false";
      case "undefined":
        return this.#fail("json_undefined", "undefined is not JSON");
      case "function":
        return this.#fail("json_function", "a function is not JSON");
      case "symbol":
        return this.#fail("json_symbol", "a symbol is not JSON");
      case "bigint":
        return this.#fail("json_bigint", "a bigint is not JSON");
    }
    if (value === null) return "null";
    return this.#container(value as object, depth + 1);
  }

  #container(value: object, depth: number): string {
    if (!isDeeplyFrozen(value)) return this.#walk(value, depth);
    const known = written.get(value);
    if (known !== undefined) {
      // Counted as walking it would count; over a bound, it is walked for the exact refusal.
      const deepest = depth + known.depth - 1;
      if (
        deepest <= this.#limits.maxDepth &&
        this.#nodes + known.nodes - 1 <= this.#limits.maxNodes &&
        this.#length + known.length <= this.#limits.maxBytes
      ) {
        this.#nodes += known.nodes - 1;
        this.#length += known.length;
        if (deepest > this.#depth) this.#depth = deepest;
        return known.text;
      }
      return this.#walk(value, depth);
    }
    const [nodes, length, outer] = [this.#nodes, this.#length, this.#depth];
    this.#depth = depth;
    const text = this.#walk(value, depth);
    const own = this.#depth - depth + 1;
    if (outer > this.#depth) this.#depth = outer;
    if (text.length >= KEPT_TEXT) {
      written.set(value, {
        text,
        nodes: this.#nodes - nodes + 1,
        depth: own,
        length: this.#length - length,
      });
    }
    return text;
  }

  #walk(value: object, depth: number): string {
    if (depth > this.#limits.maxDepth) {
      // Every cycle nests without end, so it ends here; `run` tells a cycle from mere depth.
      this.#stack[depth - 1] = value;
      this.#stack.length = depth;
      this.#fail("json_too_deep", `value is nested deeper than ${this.#limits.maxDepth}`);
    }
    if (depth > this.#depth) this.#depth = depth;
    const proto = Object.getPrototypeOf(value);
    const isArray = Array.isArray(value);
    if (isArray ? proto !== arrayPrototype : proto !== objectPrototype && proto !== null) {
      this.#fail("json_non_plain_object", "only plain objects and arrays are JSON");
    }
    if (Object.getOwnPropertySymbols(value).length > 0) {
      this.#fail("json_symbol", "an object with symbol keys is not JSON");
    }
    this.#stack[depth - 1] = value;
    return isArray
      ? this.#array(value as unknown[], depth)
      : this.#object(value as Record<string, unknown>, depth);
  }

  #array(value: unknown[], depth: number): string {
    let out = "[";
    let index = 0;
    try {
      for (; index < value.length; index++) {
        // A hole in a sparse array reads as undefined and is refused like one.
        out += (index > 0 ? "," : "") + this.write(value[index], depth);
      }
    } catch (error) {
      throw within(error, index);
    }
    return out + "]";
  }

  #object(value: Record<string, unknown>, depth: number): string {
    // RFC 8785 sorts keys by UTF-16 code units, which is the default string sort.
    const keys = Object.keys(value).sort();
    let out = "{";
    let index = 0;
    try {
      for (; index < keys.length; index++) {
        const key = keys[index];
        out += (index > 0 ? "," : "") + this.#string(key) + ":" + this.write(value[key], depth);
      }
    } catch (error) {
      throw within(error, keys[index]);
    }
    return out + "}";
  }

  /** Runs the walk, turning a refusal into the public error with its JSON Pointer. */
  run(value: unknown): CanonicalForm {
    try {
      return { text: this.write(value, 0), nodes: this.#nodes, depth: this.#depth };
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const tokens = error.tokens.reverse();
      const closing = error.code === "json_too_deep" ? firstRepeat(this.#stack) : -1;
      if (closing >= 0) {
        // Reported where the cycle closes: the member whose value is one of its ancestors.
        throw new JsonValueError(
          "json_cycle",
          toPointer(tokens.slice(0, closing)),
          "value contains a cycle",
        );
      }
      throw new JsonValueError(error.code, toPointer(tokens), error.message);
    }
  }
}

/** Below this length a loop is cheaper than a call into the encoder. */
const SHORT_TEXT = 64;
/** UTF-16 units encoded per piece: at 3 bytes each at most, a piece always fits the scratch. */
const PIECE = 5_461;
const encoder = new TextEncoder();
/** Scratch space `utf8Length` encodes into; its content is never read. */
const scratch = new Uint8Array(3 * PIECE);

/**
 * Counts the UTF-8 bytes of a well-formed string without allocating a copy: short strings by
 * a loop, long ones by encoding pieces of them into a fixed scratch buffer (the runtime's
 * encoder is many times faster than a loop on large text; bounded pieces, because an encoder
 * may copy all the text it is given before it stops at the end of the buffer).
 *
 * @category Identity
 */
export function utf8Length(text: string): number {
  if (text.length >= SHORT_TEXT) {
    let bytes = 0;
    for (let offset = 0; offset < text.length;) {
      let end = Math.min(offset + PIECE, text.length);
      // A surrogate pair stays in one piece (apart, each half would count as U+FFFD).
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
      bytes += encoder.encodeInto(text.substring(offset, end), scratch).written;
      offset = end;
    }
    return bytes;
  }
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff) index++, bytes += 2; // pair: 2 units, 4 bytes
    else bytes += 2;
  }
  return bytes;
}

/**
 * A value's canonical text, with the counts its bounds were checked against.
 *
 * @category Identity
 */
export interface CanonicalForm {
  /** The RFC 8785 text, as {@link canonicalize} returns it. */
  readonly text: string;
  /** Its JSON nodes: objects, arrays, members and primitives. */
  readonly nodes: number;
  /** Its deepest nesting of arrays and objects (a scalar has depth 0). */
  readonly depth: number;
}

/**
 * {@link canonicalize}, returning the counts beside the text, so that a value's bounds can be
 * checked again against other limits without walking it again.
 *
 * @category Identity
 */
export function canonicalForm(value: unknown, limits: Partial<JsonLimits> = {}): CanonicalForm {
  const bounds = resolveLimits(DEFAULT_JSON_LIMITS, limits);
  const form = new Canonicalizer(bounds).run(value);
  if (!withinBytes(form.text, bounds.maxBytes)) {
    throw new JsonValueError(
      "json_too_large",
      "",
      `value is larger than ${bounds.maxBytes} bytes`,
    );
  }
  return form;
}

/**
 * Whether a text's UTF-8 encoding has at most `maxBytes` bytes (counted only when its length
 * does not already say so).
 *
 * @category Identity
 */
export function withinBytes(text: string, maxBytes: number): boolean {
  return text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes;
}

/**
 * Serializes a plain JSON value with the RFC 8785 JSON Canonicalization Scheme: object keys
 * sorted by UTF-16 code units, no whitespace, ECMAScript number formatting.
 *
 * Anything that is not plain JSON (undefined, functions, symbols, bigint, NaN, ±Infinity,
 * lone surrogates in strings or keys, cycles, Dates, Maps and other non-plain objects) is
 * refused with a {@link JsonValueError}, never coerced. The value is bounded by `limits`
 * (defaults in {@link DEFAULT_JSON_LIMITS}; a limit that is NaN or negative throws a
 * `RangeError`); nesting deeper than `maxDepth` is refused before
 * recursion goes further, so a 100,000-deep array cannot overflow the stack.
 *
 * @example
 * ```ts
 * import { canonicalize } from "@sluice/mcp";
 * canonicalize({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 *
 * @category Identity
 */
export function canonicalize(value: unknown, limits: Partial<JsonLimits> = {}): string {
  return canonicalForm(value, limits).text;
}
