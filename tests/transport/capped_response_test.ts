import assert from "node:assert/strict";
import { CappedResponse } from "../../src/transport/capped_response.ts";

const original = () =>
  new Response("unread", {
    status: 201,
    statusText: "Made",
    headers: {
      "content-type": "application/json; charset=utf-8",
      "mcp-session-id": "s-1",
      "x-extra": "yes",
    },
  });

Deno.test("CappedResponse: the original's status and headers over the new body", async () => {
  const source = original();
  const response = new CappedResponse(new TextEncoder().encode('{"a":1}'), source);
  assert.ok(response instanceof Response);
  assert.equal(response.status, 201);
  assert.equal(response.statusText, "Made");
  assert.equal(response.ok, true);
  assert.equal(response.headers, source.headers);
  assert.equal(response.headers.get("mcp-session-id"), "s-1");
  assert.equal(response.headers.get("x-extra"), "yes");
  assert.deepEqual(await response.json(), { a: 1 });
  assert.equal(response.bodyUsed, true);
  await source.body?.cancel();
});

Deno.test("CappedResponse: blob() keeps the content type; clone() keeps body and headers", async () => {
  const source = original();
  const response = new CappedResponse("text body", source);
  const copy = response.clone();
  assert.ok(copy instanceof CappedResponse);
  assert.equal(copy.headers.get("x-extra"), "yes");
  assert.equal(await copy.text(), "text body");
  const blob = await response.blob();
  // The MIME type as a blob serializes it.
  assert.equal(blob.type, "application/json;charset=utf-8");
  assert.equal(await blob.text(), "text body");
  assert.throws(() => response.clone(), TypeError);
  await source.body?.cancel();
});

Deno.test("CappedResponse: a null body and no content type", async () => {
  const source = new Response(null, { status: 204 });
  const response = new CappedResponse(null, source);
  assert.equal(response.status, 204);
  assert.equal(response.body, null);
  assert.equal(response.headers.get("content-type"), null);
  assert.equal(await response.text(), "");
});
