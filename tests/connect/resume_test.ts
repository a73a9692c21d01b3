/**
 * SSE resumption (SEP-1699 polling): on a 2025 era, a reply stream the server closes after a
 * priming event is resumed with `Last-Event-ID` (the same request, never a second one), within
 * the call's deadline. On 2026-07-28 a broken stream ends the call with its code and nothing is
 * sent again.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connect, type FetchFunction } from "../../mod.ts";
import {
  MODERN_HANDLERS,
  result,
  startScriptedServer,
  startSdkExample,
} from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true } as const;

/** A fetch that records the method and `Last-Event-ID` of every request that leaves. */
function recordingFetch(): { fetch: FetchFunction; sent: { method: string; resume: boolean }[] } {
  const sent: { method: string; resume: boolean }[] = [];
  const fetch: FetchFunction = (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, resume: request.headers.has("last-event-id") });
    return globalThis.fetch(request);
  };
  return { fetch, sent };
}

Deno.test("2025 era: the SDK's SSE polling example completes through connect(), resumed once with Last-Event-ID", async () => {
  const server = await startSdkExample("ssePollingExample");
  try {
    // The plain v2 client, for the reference time.
    const client = new Client({ name: "plain", version: "0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: "legacy" },
    });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    const plainStart = performance.now();
    const plain = await client.callTool({ name: "long-task", arguments: {} });
    const plainMs = performance.now() - plainStart;
    await client.close();
    assert.equal(
      (plain.content as { text: string }[])[0].text,
      "Long task completed successfully!",
    );

    const { fetch, sent } = recordingFetch();
    const connection = await connect(server.url, {
      id: "poll",
      allow: ["long-task"],
      preApproved: ["long-task"],
      transport: { ...LOOPBACK, fetch },
    });
    try {
      const start = performance.now();
      const envelope = await connection.toolkit.call("poll__long-task", {});
      const sluiceMs = performance.now() - start;
      assert.deepEqual(envelope, { text: ["Long task completed successfully!"], structured: null });
      const posts = sent.filter((entry) => entry.method === "POST").length;
      const resumes = sent.filter((entry) => entry.method === "GET" && entry.resume).length;
      assert.equal(resumes, 1, "one resumption of the same reply stream");
      // Not a retry: only one tools/call POST beyond the handshake and the listing.
      assert.ok(posts <= 5, `posts: ${posts}`);
      console.log(
        `plain v2 client ${Math.round(plainMs)} ms, connect() ${Math.round(sluiceMs)} ms`,
      );
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("2026-07-28: a reply stream closed after a priming event ends the call; nothing is sent again", async () => {
  const server = startScriptedServer({
    ...MODERN_HANDLERS,
    "tools/call": () =>
      new Response("id: evt-1\nretry: 50\ndata: \n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
  });
  const { fetch, sent } = recordingFetch();
  const connection = await connect(server.url, {
    id: "s",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: { ...LOOPBACK, fetch },
  });
  try {
    const envelope = await connection.toolkit.call("s__echo", {});
    assert.equal(envelope.errorCode, "mcp_protocol_error");
    assert.equal(server.requests.filter((entry) => entry.method === "tools/call").length, 1);
    assert.equal(sent.filter((entry) => entry.method === "GET").length, 0, "no resumption");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("2026-07-28: a read the host opted in is sent once more when its stream breaks; others are not", async () => {
  let calls = 0;
  const server = startScriptedServer({
    ...MODERN_HANDLERS,
    "tools/call": (request) => {
      // The first answer breaks after a priming event; the second one is complete.
      if (++calls === 1) {
        return new Response("id: evt-1\ndata: \n\n", {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return result(request, {
        content: [{ type: "text", text: "again" }],
        resultType: "complete",
      });
    },
  });
  const connection = await connect(server.url, {
    id: "s",
    allow: ["echo"],
    preApproved: ["echo"],
    resendOnBrokenStream: ["echo"],
    transport: LOOPBACK,
  });
  try {
    assert.deepEqual(await connection.toolkit.call("s__echo", {}), {
      text: ["again"],
      structured: null,
    });
    assert.equal(calls, 2, "sent once more, as a new request");
  } finally {
    await connection.close();
    await server.close();
  }
  await assert.rejects(
    () => connect(server.url, { allow: ["echo"], resendOnBrokenStream: ["echo"] }),
    (error: Error & { code?: string }) => error.code === "connect_not_allowed",
  );
});
