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

const bytesOf = (text: string): ArrayBuffer => new TextEncoder().encode(text).buffer;

Deno.test("CappedResponse: bytes read whole answer json() once; a second read is refused", async () => {
  const source = original();
  const response = new CappedResponse(bytesOf('{"a":1}'), source);
  assert.equal(response.status, 201);
  assert.equal(response.headers, source.headers);
  assert.equal(response.bodyUsed, false);
  assert.deepEqual(await response.json(), { a: 1 });
  assert.equal(response.bodyUsed, true);
  await assert.rejects(response.text(), TypeError);
  await assert.rejects(response.json(), TypeError);
  assert.throws(() => response.clone(), TypeError);
  await source.body?.cancel();
});

Deno.test("CappedResponse: bytes read whole, as text, bytes, and a JSON syntax error", async () => {
  assert.equal(await new CappedResponse(bytesOf("plain"), original()).text(), "plain");
  const raw = await new CappedResponse(bytesOf("ab"), original()).bytes();
  assert.deepEqual([...raw], [97, 98]);
  const buffer = await new CappedResponse(bytesOf("ab"), original()).arrayBuffer();
  assert.equal(buffer.byteLength, 2);
  await assert.rejects(new CappedResponse(bytesOf("{not json"), original()).json(), SyntaxError);
});

Deno.test("CappedResponse: bytes read whole, through body, blob() and clone()", async () => {
  const streamed = new CappedResponse(bytesOf("streamed"), original());
  assert.ok(streamed.body instanceof ReadableStream);
  const reader = streamed.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "streamed");
  assert.equal(streamed.bodyUsed, true);
  await assert.rejects(streamed.text(), TypeError);

  const blob = await new CappedResponse(bytesOf("blob"), original()).blob();
  assert.equal(blob.type, "application/json;charset=utf-8");
  assert.equal(await blob.text(), "blob");

  const response = new CappedResponse(bytesOf('{"b":2}'), original());
  const copy = response.clone();
  assert.ok(copy instanceof CappedResponse);
  assert.equal(copy.headers.get("x-extra"), "yes");
  assert.deepEqual(await copy.json(), { b: 2 });
  assert.deepEqual(await response.json(), { b: 2 });
});
