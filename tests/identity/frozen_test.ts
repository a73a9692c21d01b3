/**
 * What is derived once from data frozen whole: `deepFreeze` knows which trees it froze whole,
 * the canonical text of a frozen container is written once and reused inside any later value,
 * and a frozen schema is checked once. Each reuse must answer exactly what a walk of an equal,
 * unfrozen value answers, bounds and refusals included.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  canonicalize,
  deepFreeze,
  isDeeplyFrozen,
  type JsonValue,
} from "../../src/identity/mod.ts";
import { checkSchema } from "../../src/schema/check.ts";

/** What canonicalize answers: the text, or the refusal's code and pointer. */
function outcome(value: unknown, limits: Parameters<typeof canonicalize>[1]) {
  try {
    return { text: canonicalize(value, limits) };
  } catch (error) {
    const { code, path } = error as { code: string; path: string };
    return { code, path };
  }
}

Deno.test("deepFreeze: only plain trees frozen all the way down count as deeply frozen", () => {
  const tree = deepFreeze({ a: [{ b: 1 }], c: { d: "x" } });
  assert.ok(isDeeplyFrozen(tree) && isDeeplyFrozen(tree.a) && isDeeplyFrozen(tree.c));
  assert.ok(Object.isFrozen(tree.a[0]));
  // Frozen by hand, one level: not deep, even after deepFreeze froze what it could not.
  const shallow = Object.freeze({ inner: { mutable: true } });
  assert.equal(isDeeplyFrozen(shallow), false);
  deepFreeze(shallow);
  assert.equal(isDeeplyFrozen(shallow), true, "its member is frozen now, so it is whole");
  class Box {
    value = 1;
  }
  const holder = deepFreeze({ box: new Box() });
  assert.equal(isDeeplyFrozen(holder), false, "a class instance is not plain data");
  assert.ok(Object.isFrozen(holder.box));
  assert.equal(isDeeplyFrozen("text"), false);
});

Deno.test("canonicalize: a frozen container's kept text answers exactly what walking it answers, under any bounds", () => {
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 6 }),
      fc.record({
        maxNodes: fc.integer({ min: 1, max: 400 }),
        maxDepth: fc.integer({ min: 1, max: 10 }),
        maxBytes: fc.integer({ min: 1, max: 8_000 }),
      }),
      fc.nat({ max: 3 }),
      (value, limits, wrapping) => {
        // Long enough to be kept; wrapped so the frozen part sits at some depth of a new value.
        const big = { pad: "p".repeat(300), value: value as JsonValue };
        const frozen = deepFreeze(structuredClone(big));
        canonicalize(frozen); // writes and keeps its text (and its children's)
        let withFrozen: unknown = frozen;
        let withPlain: unknown = structuredClone(big);
        for (let level = 0; level < wrapping; level++) {
          withFrozen = { level, inner: [withFrozen] };
          withPlain = { level, inner: [withPlain] };
        }
        assert.deepEqual(outcome(withFrozen, limits), outcome(withPlain, limits));
        assert.deepEqual(outcome(frozen, limits), outcome(structuredClone(big), limits));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("checkSchema: a schema frozen whole is checked once, with the answer a fresh check gives", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "string", pattern: "^[a-z]+$" }, b: { "x-bad": true } },
  };
  const frozen = deepFreeze(structuredClone(schema));
  const first = checkSchema(frozen);
  assert.deepEqual(first, checkSchema(structuredClone(schema)));
  assert.equal(checkSchema(frozen), first, "the same answer, kept");
  assert.notEqual(checkSchema(frozen, { mcpHeaders: true }), first, "options are part of it");
  assert.deepEqual(
    checkSchema(frozen, { limits: { maxBytes: 10 } }),
    checkSchema(structuredClone(schema), { limits: { maxBytes: 10 } }),
  );
});
