import assert from "node:assert/strict";
import { checkSchema, compileSchema, PATTERN_INPUT_LIMIT } from "../mod.ts";

function patternCode(pattern: string): string | undefined {
  const result = checkSchema({ type: "string", pattern });
  if (result.ok) return undefined;
  assert.equal(result.problems.length, 1);
  assert.equal(result.problems[0].keyword, "pattern");
  assert.equal(result.problems[0].path, "/pattern");
  return result.problems[0].code;
}

Deno.test("classic exponential patterns are refused", () => {
  for (
    const evil of [
      "^(a+)+$",
      "^(a*)*$",
      "(a|a)*",
      "^(a|aa)+$",
      "^([a-z]+)*$",
      "((ab)+)+",
      "^(\\w+\\s?)*$",
      "(x+x+)+y",
      "^(a{1,3}){2,}$",
      "^((a+))+$",
      "^(?:a+)+$",
      "^(?<word>a+)+$",
      "^(a+?)+?$",
      "^(a+){2}$",
      "^(a?a?)+$", // optional terms: iterations of one or two characters
      "^(=+a*)+$", // the rest may be empty, so separator runs split anywhere
      "^(a+=a+)+$", // separator in the middle: the text between separators splits anywhere
      "^(=a+a+)+$", // two variable terms after the separator
      "^(\\w+\\.?)+$", // optional separator
      "^(.+,)+$", // `.` matches the separator too
      "^([a-z]+[a-z0-9])+$",
      "^(\\d+\\D?)+$",
      "^(a|b)+$", // alternation in a repeated group is refused even when harmless
      "^((a,)+)+$", // groups inside a repeated group
    ]
  ) {
    assert.equal(patternCode(evil), "schema_pattern_unsafe", evil);
  }
});

Deno.test("backreferences, lookaround and patterns that do not compile with u are refused", () => {
  for (
    const pattern of [
      "^(a)\\1$",
      "^(?<q>['\"]).*\\k<q>$",
      "^(?=a)a$",
      "^(?!a)b$",
      "(?<=a)b",
      "(?<!a)b",
      "(?i:a)", // a modifier would change the character sets the check relies on
      "[",
      "a{",
      "\\p{NotAProperty}",
      "\\-", // an identity escape is a syntax error with `u`
    ]
  ) {
    assert.equal(patternCode(pattern), "schema_pattern_unsafe", pattern);
  }
});

Deno.test("patterns whose repetition splits text one way only are admitted", () => {
  for (
    const pattern of [
      "^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
      // kubernetes-mcp-server's field selector: each iteration starts at a run of `=!,`.
      "^[.\\-A-Za-z0-9]+([=!,]{1,2}[./\\-A-Za-z0-9]+)+$",
      // zod 4's email, date-time and uuid patterns, as fastmcp publishes them.
      "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
      "^(?:\\d{4}-(?:0[1-9]|1[0-2])-\\d{2})T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?Z$",
      "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$",
      "^([a-z]+\\.)+[a-z]+$",
      "^(\\d{3})+$", // fixed-length iterations
      "^(?:[^,]+,)*[^,]+$", // a negated class is disjoint from its separator
      "^(\\s*,[a-z]+)*$",
      "^([/_.\\-A-Za-z0-9=, ()!])+$", // from kubernetes-mcp-server
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(foo|bar)$",
      "^(https?)://",
      "^(\\+|-)?\\d+$",
      "^(ab){2}$", // repeated, but every term has a fixed count
      "^[(+*)]+$", // quantifier characters inside a class are literals
      "^\\(a+\\)+$", // escaped parentheses are literals, not a group
      "^\\u{1F600}+$",
      "^(?:[a-z]|)$",
      "",
    ]
  ) {
    assert.equal(patternCode(pattern), undefined, pattern);
  }
});

Deno.test("a refused pattern is refused wherever it stands", () => {
  const result = checkSchema({
    type: "object",
    properties: { a: { type: "string", pattern: "^(a+)+$" } },
    propertyNames: { pattern: "(x|x)*" },
  });
  assert.deepEqual(result.ok ? [] : result.problems, [
    { code: "schema_pattern_unsafe", keyword: "pattern", path: "/properties/a/pattern" },
    { code: "schema_pattern_unsafe", keyword: "pattern", path: "/propertyNames/pattern" },
  ]);
});

Deno.test("an admitted pattern is asserted with the u flag", () => {
  const validate = compileSchema({ type: "string", pattern: "^\\p{Lu}\\u{1F600}$" });
  assert.equal(validate("A😀").valid, true);
  assert.equal(validate("a😀").valid, false);
});

Deno.test("the separator check reads escapes and classes as character sets", () => {
  // `\\x2c` is a comma, so it is no separator for a class that contains one.
  assert.equal(patternCode("^([a-z,]+\\x2c)+$"), "schema_pattern_unsafe");
  assert.equal(patternCode("^([a-z]+\\x2c)+$"), undefined);
  // `\\u{1F600}` vs a class holding it, and a surrogate pair written as two escapes.
  assert.equal(patternCode("^([a-z\\u{1F600}]+\\uD83D\\uDE00)+$"), "schema_pattern_unsafe");
  assert.equal(patternCode("^([a-z]+\\uD83D\\uDE00)+$"), undefined);
  // `\\s` overlaps a literal space; `\\d` does not overlap `-`.
  assert.equal(patternCode("^(\\s+ )+$"), "schema_pattern_unsafe");
  assert.equal(patternCode("^(\\d+-)+$"), undefined);
  // A range that spans the separator.
  assert.equal(patternCode("^([+-/]+,)+$"), "schema_pattern_unsafe");
  assert.equal(patternCode("^([+-/]+:)+$"), undefined);
});

Deno.test("patterns nested deeper than 32 groups are refused before they are read", () => {
  assert.equal(patternCode("(".repeat(33) + "a" + ")".repeat(33)), "schema_pattern_unsafe");
  assert.equal(patternCode("(".repeat(32) + "a" + ")".repeat(32)), undefined);
});

Deno.test("chains of three unbounded repetitions that trade characters are refused", () => {
  for (
    const pattern of [
      "^a*a*a*$",
      "^\\d+\\d*\\d+x",
      "\\w+\\s*\\w+!", // unanchored: the search for a start is a third term
      "^(?:a*a*)a*$",
      "^(a*)(a*)(a*)$",
      "^[a-z]+-?[a-z]+-?[a-z]+$",
    ]
  ) {
    assert.equal(patternCode(pattern), "schema_pattern_unsafe", pattern);
  }
  for (
    const pattern of [
      "^\\w+\\s*\\w+$", // anchored: quadratic at worst
      "\\s+$", // unanchored, one term: quadratic at worst
      "a+b+c+", // disjoint neighbours do not chain
      "^[a-z]+-[a-z]+-[a-z]+$", // mandatory `-` ends each chain
      "^a*b?a*$",
    ]
  ) {
    assert.equal(patternCode(pattern), undefined, pattern);
  }
});

Deno.test("a quadratic pattern is tested on at most PATTERN_INPUT_LIMIT code points", () => {
  // Unanchored with an unbounded class: the search for a start and `[b😀]*` trade characters.
  const quadratic = compileSchema({ type: "string", pattern: "a[b😀]*$" });
  assert.equal(quadratic("a" + "b".repeat(PATTERN_INPUT_LIMIT - 1)).valid, true);
  // Code points, not UTF-16 units: an astral character counts once.
  assert.equal(quadratic("a" + "😀".repeat(PATTERN_INPUT_LIMIT - 1)).valid, true);
  const long = quadratic("a" + "b".repeat(PATTERN_INPUT_LIMIT));
  assert.deepEqual(long.valid ? [] : long.errors, [
    { code: "value_invalid", path: "", keyword: "pattern" },
  ]);
  // A linear pattern (anchored, one unbounded class) is tested on the whole string.
  const linear = compileSchema({ type: "string", pattern: "^a[b😀]*$" });
  assert.equal(linear("a" + "b".repeat(20_000)).valid, true);
  // zod's base64 pattern is linear, so large payloads still validate.
  const base64 = compileSchema({
    type: "string",
    pattern: "^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$",
  });
  assert.equal(base64("QUJD".repeat(10_000)).valid, true);
  assert.equal(base64("QUJD".repeat(10_000) + "Q").valid, false);
  // Search semantics are kept by the bound: an unanchored pattern matches anywhere.
  const search = compileSchema({ type: "string", pattern: "b+|^x" });
  assert.equal(search("aab").valid, true);
  assert.equal(search("xa").valid, true);
  assert.equal(search("ax").valid, false);
  assert.equal(search("a\nb").valid, true);
  // Patterns on property names are bounded the same way.
  const names = compileSchema({ type: "object", propertyNames: { pattern: "k+" } });
  assert.equal(names({ ["k".repeat(PATTERN_INPUT_LIMIT)]: 1 }).valid, true);
  assert.equal(names({ ["k".repeat(PATTERN_INPUT_LIMIT + 1)]: 1 }).valid, false);
});

Deno.test("a repetition that may match nothing does not end a chain", () => {
  // Found by fuzzing: `(?:)` and `()+` consume nothing, so `a+` on both sides still trade.
  for (const pattern of ["a+(?:)a+a[^a].", "\\wa*(?:)+a*,", "x*()a*(?:b?)a*!"]) {
    assert.equal(patternCode(pattern), "schema_pattern_unsafe", pattern);
  }
  assert.equal(patternCode("^a+(?:-)a+$"), undefined);
});
