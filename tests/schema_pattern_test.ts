import assert from "node:assert/strict";
import { checkSchema, compileSchema } from "../mod.ts";

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
      "[",
      "a{",
      "\\p{NotAProperty}",
      "\\-", // an identity escape is a syntax error with `u`
    ]
  ) {
    assert.equal(patternCode(pattern), "schema_pattern_unsafe", pattern);
  }
});

Deno.test("patterns of star height one are admitted", () => {
  for (
    const pattern of [
      "^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
      "^([/_.\\-A-Za-z0-9=, ()!])+$", // from kubernetes-mcp-server
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(foo|bar)$",
      "^(https?)://",
      "^(\\+|-)?\\d+$",
      "^(ab){2}$", // repeats, but the body neither repeats nor alternates
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
