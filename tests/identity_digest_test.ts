/**
 * `digestText` keeps the last few results (a write hashes the same canonical arguments twice in
 * a row): whatever the order of repeats and evictions, every answer equals an independent
 * SHA-256 of the text, and texts over the remembered size are still hashed correctly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { digestText } from "../src/identity/mod.ts";

/** An independent SHA-256, not through the code under test. */
async function reference(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return "sha256:" + Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("digestText: repeats and evictions always answer the text's own digest", async () => {
  // Texts that differ in one character, so a wrong remembered answer cannot pass.
  const texts = Array.from({ length: 20 }, (_, index) => `{"key":"k${index}","value":"v"}`);
  texts.push("x".repeat(16 * 1024 + 1), "x".repeat(16 * 1024 + 2));
  const expected = new Map<string, string>();
  for (const text of texts) expected.set(text, await reference(text));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(texts.length - 1), { minLength: 1, maxLength: 60 }),
      async (order) => {
        for (const index of order) {
          assert.equal(await digestText(texts[index]), expected.get(texts[index]));
        }
      },
    ),
    { numRuns: 50 },
  );
});
