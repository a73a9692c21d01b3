// The stdio transport's framing and stderr capture on their own: lines split across chunks, the
// frame cap at its exact boundary, and the stderr tail bounded and escaped.
import assert from "node:assert/strict";
import { FrameReader } from "../../src/transport/stdio/frames.ts";
import { escapeForOperator, StderrTail } from "../../src/transport/stdio/stderr_tail.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (lines: Uint8Array[] | "too_large") =>
  lines === "too_large" ? lines : lines.map((line) => new TextDecoder().decode(line));

Deno.test("FrameReader: lines split across chunks come out whole, in order", () => {
  const reader = new FrameReader(16);
  assert.deepEqual(text(reader.push(bytes("ab"))), []);
  assert.deepEqual(text(reader.push(bytes("c\nde\n\nf"))), ["abc", "de", ""]);
  assert.deepEqual(text(reader.push(bytes("g\n"))), ["fg"]);
});

Deno.test("FrameReader: a line of exactly the cap passes; one byte more is too_large", () => {
  assert.deepEqual(text(new FrameReader(4).push(bytes("abcd\n"))), ["abcd"]);
  const reader = new FrameReader(4);
  assert.deepEqual(text(reader.push(bytes("abc"))), []);
  assert.equal(reader.push(bytes("de")), "too_large", "refused before it is buffered");
  assert.equal(new FrameReader(4).push(bytes("abcde\n")), "too_large");
});

Deno.test("StderrTail: keeps the last bytes, counts them all, escapes controls", () => {
  const tail = new StderrTail(8);
  for (let i = 0; i < 100; i++) tail.push(bytes("0123456789"));
  assert.equal(tail.totalBytes, 1000);
  assert.equal(tail.text(), "23456789");
  const none = new StderrTail(0);
  none.push(bytes("secret"));
  assert.equal(none.text(), "");
  assert.equal(none.totalBytes, 6);
  assert.equal(
    escapeForOperator("a\x1b[31mb\u202ec\u{E0041}\nd\te"),
    "a\\u{1b}[31mb\\u{202e}c\\u{e0041}\nd\te",
  );
});
