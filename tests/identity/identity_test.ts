/**
 * Identity: RFC 8785 canonical form and its SHA-256 digest.
 *
 * Expected outputs come from RFC 8785 (section 3.2.2 sample object, section 3.2.3 sorting
 * example, appendix B number table) or are written by hand; digests are checked against
 * `node:crypto`, an implementation independent of both hash paths under test (JavaScript for
 * small inputs, `crypto.subtle` for large ones).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { digestText, SCRIPT_HASH_MAX_BYTES } from "../../src/identity/digest.ts";
import { utf8Length } from "../../src/identity/canonicalize.ts";
import {
  canonicalize,
  DEFAULT_JSON_LIMITS,
  digest,
  type JsonErrorCode,
  type JsonLimits,
  JsonValueError,
  SluiceError,
} from "../../mod.ts";

/** SHA-256 of the UTF-8 text, computed by Node's crypto rather than by the code under test. */
function independentDigest(text: string): string {
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}

/** Asserts that `canonicalize` refuses `value` with `code` at the JSON Pointer `path`. */
function assertRefused(
  value: unknown,
  code: JsonErrorCode,
  path: string,
  limits?: Partial<JsonLimits>,
): void {
  assert.throws(
    () => canonicalize(value, limits),
    (error: unknown) => {
      assert.ok(error instanceof JsonValueError, `expected JsonValueError, got ${error}`);
      assert.ok(error instanceof SluiceError);
      assert.equal(error.code, code);
      assert.equal(error.path, path);
      return true;
    },
  );
}

/** Decodes the 16 hex digits of an IEEE-754 binary64 bit pattern. */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
}

/** An array nested `depth` levels deep, built without recursion. */
function nestedArray(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

// ---------------------------------------------------------------------------------------------
// RFC 8785 examples

Deno.test("RFC 8785 section 3.2.2: the sample object canonicalizes exactly", () => {
  // The RFC's input text, parsed, so its number spellings (1E30, 4.50, 2e-3) are the RFC's own.
  const input = String.raw`{
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  }`;
  const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,` +
    String.raw`1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  assert.equal(canonicalize(JSON.parse(input)), expected);
});

Deno.test("RFC 8785 section 3.2.3: keys sort by UTF-16 code units", () => {
  const input = {
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis",
  };
  const expected = '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
    '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
    '"\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
  assert.equal(canonicalize(input), expected);
  // U+1F600 (surrogates D83D DE00) sorts before U+FB33 by code unit, though after it by code
  // point: this is the case a code-point sort gets wrong.
  assert.ok(expected.indexOf("\ud83d\ude00") < expected.indexOf("\ufb33"));
});

/** RFC 8785 appendix B: IEEE-754 bit pattern and its canonical text. */
const numberTable: readonly [string, string][] = [
  ["0000000000000000", "0"],
  ["8000000000000000", "0"],
  ["0000000000000001", "5e-324"],
  ["8000000000000001", "-5e-324"],
  ["7fefffffffffffff", "1.7976931348623157e+308"],
  ["ffefffffffffffff", "-1.7976931348623157e+308"],
  ["4340000000000000", "9007199254740992"],
  ["c340000000000000", "-9007199254740992"],
  ["4430000000000000", "295147905179352830000"],
  ["44b52d02c7e14af5", "9.999999999999997e+22"],
  ["44b52d02c7e14af6", "1e+23"],
  ["44b52d02c7e14af7", "1.0000000000000001e+23"],
  ["444b1ae4d6e2ef4e", "999999999999999700000"],
  ["444b1ae4d6e2ef4f", "999999999999999900000"],
  ["444b1ae4d6e2ef50", "1e+21"],
  ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
  ["3eb0c6f7a0b5ed8d", "0.000001"],
  ["41b3de4355555553", "333333333.3333332"],
  ["41b3de4355555554", "333333333.33333325"],
  ["41b3de4355555555", "333333333.3333333"],
  ["41b3de4355555556", "333333333.3333334"],
  ["41b3de4355555557", "333333333.33333343"],
  ["becbf647612f3696", "-0.0000033333333333333333"],
  ["43143ff3c1cb0959", "1424953923781206.2"],
];

Deno.test("RFC 8785 appendix B: every finite number serializes exactly", () => {
  for (const [bits, expected] of numberTable) {
    assert.equal(canonicalize(fromBits(bits)), expected, `bits ${bits}`);
    assert.equal(canonicalize([fromBits(bits)]), `[${expected}]`, `bits ${bits} in an array`);
  }
});

Deno.test("RFC 8785 appendix B: the NaN and Infinity rows are refused", () => {
  for (const bits of ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"]) {
    assertRefused(fromBits(bits), "json_non_finite_number", "");
    assertRefused({ n: fromBits(bits) }, "json_non_finite_number", "/n");
  }
});

Deno.test("strings escape exactly the characters RFC 8785 names", () => {
  const controls = Array.from({ length: 0x20 }, (_, unit) => String.fromCharCode(unit)).join("");
  const escaped = "\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f" +
    "\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019" +
    "\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f";
  assert.equal(canonicalize(controls), `"${escaped}"`);
  // Quote and backslash are escaped; '/', DEL, non-ASCII and astral characters are not.
  assert.equal(
    canonicalize('"\\/\u007f\u00e9\u2028\ud83d\ude00'),
    '"\\"\\\\/\u007f\u00e9\u2028\ud83d\ude00"',
  );
});

// ---------------------------------------------------------------------------------------------
// digest

Deno.test("digest is sha256 of the UTF-8 canonical text, checked with node:crypto", async () => {
  const expectedText = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,` +
    String.raw`1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
  const value = {
    string: '\u20ac$\u000f\nA\'B"\\\\"/',
    numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 1e-27],
    literals: [null, true, false],
  };
  const expected = independentDigest(expectedText);
  assert.match(expected, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await digest(value), expected);
  // A non-ASCII key: the digest covers UTF-8 bytes, not UTF-16 code units.
  assert.equal(await digest({ "\u00f6": "\ud83d\ude00" }), independentDigest('{"ö":"😀"}'));
  // Well-known vector: SHA-256 of the two bytes `{}`.
  assert.equal(
    await digest({}),
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
  );
});

Deno.test("both hash paths agree with node:crypto on each side of the size threshold", async () => {
  // Multi-byte text too: the threshold counts UTF-8 bytes, not UTF-16 code units.
  const sizes = [0, 1, 55, 56, 63, 64, 65, 1000, SCRIPT_HASH_MAX_BYTES - 1, SCRIPT_HASH_MAX_BYTES];
  const texts = [
    ...sizes.map((size) => "a".repeat(size)),
    ...[SCRIPT_HASH_MAX_BYTES + 1, SCRIPT_HASH_MAX_BYTES * 3].map((size) => "b".repeat(size)),
    "\u00e9".repeat(SCRIPT_HASH_MAX_BYTES / 2),
    "\u00e9".repeat(SCRIPT_HASH_MAX_BYTES / 2) + "x",
    "\ud83d\ude00".repeat(SCRIPT_HASH_MAX_BYTES / 4 + 1),
  ];
  for (const text of texts) assert.equal(await digestText(text), independentDigest(text));
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: "binary", maxLength: SCRIPT_HASH_MAX_BYTES / 2 + 64 }),
      async (text) => assert.equal(await digestText(text), independentDigest(text)),
    ),
    { numRuns: 300 },
  );
});

Deno.test("digest reports refusals as a rejected promise, never a synchronous throw", async () => {
  let promise: Promise<string> | undefined;
  assert.doesNotThrow(() => {
    promise = digest({ a: undefined });
  });
  await assert.rejects(promise!, { name: "JsonValueError", code: "json_undefined", path: "/a" });
  await assert.rejects(digest([[1]], { maxDepth: 1 }), { code: "json_too_deep", path: "/0" });
});

Deno.test("utf8Length counts exactly what TextEncoder writes, short and long, across its chunks", () => {
  const encoded = (text: string) => new TextEncoder().encode(text).byteLength;
  // Pairs and 3-byte characters straddling the pieces the long path encodes.
  const texts = [
    "",
    "a",
    "\u00e9\u20ac\ud83d\ude00",
    "x".repeat(5_460) + "\ud83d\ude00".repeat(3),
    "x".repeat(5_459) + "\u20ac".repeat(5) + "y",
    "\u20ac".repeat(5_461 * 3 + 7),
    "\ud83d\ude00".repeat(20_000),
    "l".repeat(1024 * 1024),
  ];
  for (const text of texts) assert.equal(utf8Length(text), encoded(text));
  fc.assert(
    fc.property(
      fc.string({ unit: "grapheme", maxLength: 200 }),
      fc.integer({ min: 0, max: 20_000 }),
      (text, repeat) => {
        const long = text.repeat(Math.min(repeat, Math.ceil(40_000 / (text.length + 1))));
        assert.equal(utf8Length(text), encoded(text));
        assert.equal(utf8Length(long), encoded(long));
      },
    ),
    { numRuns: 1_000 },
  );
});

// ---------------------------------------------------------------------------------------------
// Properties (fast-check, at least 1,000 runs each)

/** JSON values with ASCII strings and with strings over the whole of Unicode. */
const jsonValues = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }),
);

/** Replaces -0 with 0: JSON has one zero and canonical text writes it `0`. */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, withoutNegativeZero(member)]),
    );
  }
  return value;
}

/** Rebuilds every object with its keys inserted in an order drawn from `random`. */
function shuffled(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, random));
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    for (let index = entries.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [entries[index], entries[other]] = [entries[other], entries[index]];
    }
    // fromEntries defines own data properties, so a "__proto__" key stays an ordinary key.
    return Object.fromEntries(entries.map(([key, member]) => [key, shuffled(member, random)]));
  }
  return value;
}

/** A small deterministic PRNG (mulberry32), seeded by fast-check so failures replay. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

type Path = (string | number)[];

/** Paths of every leaf: primitives and empty containers. */
function leafPaths(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((item, index) => leafPaths(item, [...path, index], out));
  } else if (value !== null && typeof value === "object" && Object.keys(value).length > 0) {
    for (const [key, member] of Object.entries(value)) leafPaths(member, [...path, key], out);
  } else {
    out.push(path);
  }
  return out;
}

/** A copy of `value` with the member at `path` replaced; the input is not changed. */
function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    return value.map((item, index) => index === head ? replaceAt(item, rest, replacement) : item);
  }
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map((
      [key, member],
    ) => [key, key === head ? replaceAt(member, rest, replacement) : member]),
  );
}

function memberAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const token of path) current = (current as Record<string | number, unknown>)[token];
  return current;
}

Deno.test("property: canonical form is a fixed point", () => {
  fc.assert(
    fc.property(jsonValues, (value) => {
      const text = canonicalize(value);
      assert.equal(canonicalize(JSON.parse(text)), text);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: key order does not matter", () => {
  fc.assert(
    fc.property(jsonValues, fc.integer(), (value, seed) => {
      assert.equal(canonicalize(shuffled(value, seeded(seed))), canonicalize(value));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: a change to any leaf changes the digest", async () => {
  await fc.assert(
    fc.asyncProperty(jsonValues, fc.nat(), fc.jsonValue({ maxDepth: 2 }), async (
      value,
      pick,
      replacement,
    ) => {
      const paths = leafPaths(value);
      const path = paths[pick % paths.length];
      const before = memberAt(value, path);
      // Only a different JSON value counts as a change (0 and -0 are one value).
      fc.pre(canonicalize(before) !== canonicalize(replacement));
      const changed = replaceAt(value, path, replacement);
      assert.notEqual(await digest(changed), await digest(value));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: canonical text parses back to the input", () => {
  fc.assert(
    fc.property(jsonValues, (value) => {
      assert.deepStrictEqual(JSON.parse(canonicalize(value)), withoutNegativeZero(value));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: canonical form agrees with a naive sorted-key serializer", () => {
  // A second, deliberately naive serializer (JSON.stringify for every scalar, keys sorted with
  // the default sort): guards any optimization of canonicalize against drifting.
  const naive = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(naive).join(",")}]`;
    if (value !== null && typeof value === "object") {
      const object = value as Record<string, unknown>;
      const members = Object.keys(object).sort().map((key) =>
        `${JSON.stringify(key)}:${naive(object[key])}`
      );
      return `{${members.join(",")}}`;
    }
    return JSON.stringify(value);
  };
  fc.assert(
    fc.property(jsonValues, (value) => {
      assert.equal(canonicalize(value), naive(value));
    }),
    { numRuns: 1000 },
  );
});

// ---------------------------------------------------------------------------------------------
// Refused values: each kind with its code and JSON Pointer

Deno.test("refuses undefined as a member, an array item and a sparse-array hole", () => {
  assertRefused(undefined, "json_undefined", "");
  assertRefused({ a: { b: undefined } }, "json_undefined", "/a/b");
  assertRefused([1, undefined], "json_undefined", "/1");
  const sparse: unknown[] = [1];
  sparse[2] = 3; // index 1 is a hole
  assert.equal(1 in sparse, false);
  assertRefused({ list: sparse }, "json_undefined", "/list/1");
  assertRefused(new Array(2), "json_undefined", "/0");
});

Deno.test("refuses functions, symbols and bigints", () => {
  assertRefused({ f() {} }, "json_function", "/f");
  assertRefused([() => 1], "json_function", "/0");
  assertRefused({ s: Symbol("x") }, "json_symbol", "/s");
  assertRefused(Symbol("x"), "json_symbol", "");
  assertRefused({ a: { [Symbol("k")]: 1, b: 2 } }, "json_symbol", "/a");
  assertRefused({ n: 1n }, "json_bigint", "/n");
  assertRefused([0n], "json_bigint", "/0");
});

Deno.test("refuses NaN, Infinity and -Infinity", () => {
  assertRefused({ x: NaN }, "json_non_finite_number", "/x");
  assertRefused([0, Infinity], "json_non_finite_number", "/1");
  assertRefused({ y: [-Infinity] }, "json_non_finite_number", "/y/0");
});

Deno.test("refuses lone surrogates in strings and in keys", () => {
  assertRefused({ s: "a\ud800" }, "json_lone_surrogate", "/s");
  assertRefused({ s: "\udc00b" }, "json_lone_surrogate", "/s");
  assertRefused(["\ude00\ud83d"], "json_lone_surrogate", "/0"); // pair in the wrong order
  assertRefused({ k: { "x\ud800": 1 } }, "json_lone_surrogate", "/k/x\ud800");
  assertRefused({ "\udfff": 1 }, "json_lone_surrogate", "/\udfff");
  // A well-formed pair is accepted.
  assert.equal(canonicalize({ "\ud83d\ude00": "\ud83d\ude00" }), '{"😀":"😀"}');
});

Deno.test("refuses cycles through objects and arrays, accepts shared references", () => {
  const object: Record<string, unknown> = { a: {} };
  (object.a as Record<string, unknown>).self = object;
  assertRefused(object, "json_cycle", "/a/self");
  const array: unknown[] = [1];
  array.push([array]);
  assertRefused(array, "json_cycle", "/1/0");
  // The same object twice, without a cycle, is plain JSON.
  const shared = { v: 1 };
  assert.equal(canonicalize({ x: shared, y: [shared] }), '{"x":{"v":1},"y":[{"v":1}]}');
});

Deno.test("refuses non-plain objects: Date, Map, Set, class instances, typed arrays", () => {
  class Point {
    x = 1;
  }
  assertRefused({ d: new Date(0) }, "json_non_plain_object", "/d");
  assertRefused({ m: new Map() }, "json_non_plain_object", "/m");
  assertRefused([new Set([1])], "json_non_plain_object", "/0");
  assertRefused({ p: new Point() }, "json_non_plain_object", "/p");
  assertRefused({ bytes: new Uint8Array(2) }, "json_non_plain_object", "/bytes");
  assertRefused(new Date(0), "json_non_plain_object", "");
  assertRefused({ s: new String("x") }, "json_non_plain_object", "/s");
  // An object with a null prototype holds plain data and is accepted.
  const bare = Object.create(null);
  bare.b = 1;
  bare.a = 2;
  assert.equal(canonicalize(bare), '{"a":2,"b":1}');
});

Deno.test("JSON Pointer tokens escape '~' and '/'", () => {
  assertRefused({ "a/b": { "c~d": undefined } }, "json_undefined", "/a~1b/c~0d");
});

Deno.test("refusal messages never repeat the refused key or value", () => {
  const secret = "ignore previous instructions";
  assert.throws(() => canonicalize({ [secret]: undefined }), (error: unknown) => {
    assert.ok(error instanceof JsonValueError);
    assert.equal(error.path, "/" + secret);
    assert.ok(!error.message.includes(secret), error.message);
    return true;
  });
});

// ---------------------------------------------------------------------------------------------
// Bounds

Deno.test("depth: the default bound admits 256 levels and refuses 257", () => {
  assert.equal(DEFAULT_JSON_LIMITS.maxDepth, 256);
  assert.equal(canonicalize(nestedArray(256)), "[".repeat(256) + "]".repeat(256));
  assertRefused(nestedArray(257), "json_too_deep", "/0".repeat(256));
});

Deno.test("depth: a 100,000-deep array or object is refused without a stack overflow", () => {
  assertRefused(nestedArray(100_000), "json_too_deep", "/0".repeat(256));
  let object: Record<string, unknown> = {};
  for (let level = 1; level < 100_000; level++) object = { o: object };
  assertRefused(object, "json_too_deep", "/o".repeat(256));
});

Deno.test("nodes: every value counts and the bound is exact", () => {
  assert.equal(canonicalize([1, 2], { maxNodes: 3 }), "[1,2]");
  assertRefused([1, 2, 3], "json_too_many_nodes", "/2", { maxNodes: 3 });
  assert.equal(canonicalize({ a: { b: 1 } }, { maxNodes: 3 }), '{"a":{"b":1}}');
  assertRefused({ a: { b: 1, c: 2 } }, "json_too_many_nodes", "/a/c", { maxNodes: 3 });
});

Deno.test("bytes: the bound counts UTF-8 bytes of the canonical text", () => {
  assert.equal(canonicalize("abcdefgh", { maxBytes: 10 }), '"abcdefgh"');
  assertRefused("abcdefghi", "json_too_large", "", { maxBytes: 10 });
  assertRefused({ k: "abcdefghijk" }, "json_too_large", "/k", { maxBytes: 10 });
  // Four euro signs: 6 UTF-16 units with the quotes, but 14 UTF-8 bytes.
  const euros = "\u20ac".repeat(4);
  assert.equal(canonicalize(euros, { maxBytes: 14 }), `"${euros}"`);
  assertRefused(euros, "json_too_large", "", { maxBytes: 13 });
  assert.equal(canonicalize({ e: euros }, { maxBytes: 20 }), `{"e":"${euros}"}`);
  assertRefused({ e: euros }, "json_too_large", "", { maxBytes: 19 });
  // An astral character: 2 UTF-16 units, 4 UTF-8 bytes.
  assert.equal(canonicalize("😀", { maxBytes: 6 }), '"😀"');
  assertRefused("😀", "json_too_large", "", { maxBytes: 5 });
});

Deno.test("custom limits combine with the defaults; an undefined limit keeps its default", () => {
  assert.equal(canonicalize(nestedArray(3), { maxDepth: 3 }), "[[[]]]");
  assertRefused(nestedArray(4), "json_too_deep", "/0/0/0", { maxDepth: 3 });
  // Other bounds keep their defaults when one is customised.
  assertRefused(nestedArray(300), "json_too_deep", "/0".repeat(256), { maxNodes: 10_000 });
  // A limit given as undefined (e.g. from an absent config entry) must not disable the bound.
  assertRefused(nestedArray(300), "json_too_deep", "/0".repeat(256), { maxDepth: undefined });
  assertRefused([1, 2], "json_too_many_nodes", "/1", { maxDepth: undefined, maxNodes: 2 });
  // NaN or a negative limit would compare false and lift the bound: refused as a programming error.
  assert.throws(() => canonicalize(nestedArray(300), { maxDepth: NaN }), RangeError);
  assert.throws(() => canonicalize([], { maxNodes: -1 }), RangeError);
  // Scalars have depth 0.
  assert.equal(canonicalize(1, { maxDepth: 0 }), "1");
  assertRefused([], "json_too_deep", "", { maxDepth: 0 });
});

Deno.test("a '__proto__' member from JSON.parse is an ordinary key", async () => {
  const value = JSON.parse('{"b":1,"__proto__":{"x":[true]}}');
  const expected = '{"__proto__":{"x":[true]},"b":1}';
  assert.equal(canonicalize(value), expected);
  assert.equal(await digest(value), independentDigest(expected));
});
