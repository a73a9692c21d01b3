// A hostile SSE reply reaching connect(): over the byte cap, or an event that is not JSON, with
// the server holding the stream open afterwards. The failure must surface on the offending
// bytes, with its own code, for a toolkit call and for discovery, on both protocol eras; a
// secureFetch of the same body refuses it too. The deadline is long (60 s) and the server never
// closes the stream by itself, so a client that waited instead of failing on the bytes would end
// with a timeout code, not the expected one: the code check is what proves "at once", with no
// timed assertion. How fast it fails is measured by `deno task bench sse_faults`.
import assert from "node:assert/strict";
import { connect, type Connection, secureFetch, TransportError } from "../../mod.ts";
import { setupCode, startScriptedServer, tool } from "../../fixtures/connect_servers.ts";
import {
  hostileParts as partsOver,
  hostileServer,
  type Hostility,
  resultText,
  sseEvent,
  type SseReply,
  sseReply,
} from "../../fixtures/hostile_sse.ts";

/** Far longer than any failure takes, so waiting for it would end with a timeout code. */
const DEADLINE_MS = 60_000;
const CAP = 16 * 1024;

/** The parts of a reply for request `id` that breaks the rule named by `hostility`. */
const hostileParts = (hostility: Hostility, id: unknown, value: unknown) =>
  partsOver(hostility, id, value, CAP);

const EXPECTED: Record<Hostility, { call: string; discovery: string }> = {
  // A transport failure keeps the hardened fetch's own code, in the call envelope as in
  // discovery's report.
  "too large": { call: "transport_response_too_large", discovery: "transport_response_too_large" },
  "not json": { call: "mcp_protocol_error", discovery: "mcp_protocol_error" },
};

const OPTIONS = {
  id: "h",
  allow: ["echo"],
  preApproved: ["echo"],
  limits: { timeoutMs: DEADLINE_MS },
} as const;

function transport(maxResponseBytes: number) {
  return { dangerouslyAllowLoopback: true, timeoutMs: DEADLINE_MS, maxResponseBytes };
}

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  for (const hostility of ["too large", "not json"] as const) {
    Deno.test(`${era}: an SSE call reply ${hostility} fails at once with its code`, async () => {
      const hold = new AbortController();
      const replies: SseReply[] = [];
      const server = await hostileServer(era, "tools/call", (request) => {
        const reply = sseReply(
          hostileParts(hostility, request.id, { content: [{ type: "text", text: "ok" }] }),
          hold.signal,
        );
        replies.push(reply);
        return reply;
      });
      let connection: Connection | undefined;
      try {
        connection = await connect(server.url, { ...OPTIONS, transport: transport(CAP) });
        assert.equal(connection.report().servers[0].protocolVersion, era);
        const envelope = await connection.toolkit.call(
          "h__echo",
          era === "2025-11-25" ? {} : { message: "hi" },
        );
        assert.equal(replies.length, 1);
        await replies[0].written;
        assert.equal(envelope.errorCode, EXPECTED[hostility].call);
      } finally {
        hold.abort();
        await connection?.close();
        await server.close();
      }
    });

    Deno.test(`${era}: an SSE tools/list reply ${hostility} fails discovery at once`, async () => {
      const hold = new AbortController();
      const replies: SseReply[] = [];
      const server = await hostileServer(era, "tools/list", (request) => {
        const reply = sseReply(
          hostileParts(hostility, request.id, { tools: [tool("echo")] }),
          hold.signal,
        );
        replies.push(reply);
        return reply;
      });
      try {
        const code = await setupCode(
          connect(server.url, { ...OPTIONS, transport: transport(CAP) }),
        );
        assert.equal(replies.length, 1);
        await replies[0].written;
        assert.equal(code, EXPECTED[hostility].discovery);
      } finally {
        hold.abort();
        await server.close();
      }
    });
  }
}

Deno.test("a plain secureFetch refuses the same over-cap SSE body on the bytes", async () => {
  const hold = new AbortController();
  let reply: SseReply | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    reply = sseReply(hostileParts("too large", 1, { content: [] }), hold.signal);
    return reply.response;
  });
  try {
    const response = await secureFetch(transport(CAP))(`http://127.0.0.1:${server.addr.port}/`);
    await assert.rejects(response.text(), (error: unknown) => {
      assert.ok(error instanceof TransportError);
      assert.equal(error.code, "transport_response_too_large");
      return true;
    });
    await reply!.written;
  } finally {
    hold.abort();
    await server.shutdown();
  }
});

Deno.test("the over-cap reply is otherwise valid: under the default cap the call succeeds", async () => {
  const hold = new AbortController();
  const server = await hostileServer("2025-11-25", "tools/call", (request) =>
    sseReply(
      hostileParts("too large", request.id, { content: [{ type: "text", text: "ok" }] }),
      hold.signal,
    ));
  let connection: Connection | undefined;
  try {
    connection = await connect(server.url, { ...OPTIONS, transport: transport(1024 * 1024) });
    assert.deepEqual(await connection.toolkit.call("h__echo", {}), {
      text: ["ok"],
      structured: null,
    });
  } finally {
    hold.abort();
    await connection?.close();
    await server.close();
  }
});

Deno.test("a reply stream that ends without the answer fails the call at once", async () => {
  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    const hold = new AbortController();
    hold.abort(); // every reply closes right after its parts
    const replies: SseReply[] = [];
    const server = await hostileServer(era, "tools/call", () => {
      const reply = sseReply([": priming\n\n", sseEvent(resultText(424242, {}))], hold.signal);
      replies.push(reply);
      return reply;
    });
    let connection: Connection | undefined;
    try {
      connection = await connect(server.url, { ...OPTIONS, transport: transport(CAP) });
      const envelope = await connection.toolkit.call(
        "h__echo",
        era === "2025-11-25" ? {} : { message: "hi" },
      );
      // Waiting for the 60 s deadline instead would end in mcp_timeout.
      assert.equal(envelope.errorCode, "mcp_protocol_error", era);
      await replies[0].written;
    } finally {
      await connection?.close();
      await server.close();
    }
  }
});

Deno.test("concurrent calls: only the call whose reply fails fails; the others succeed", async () => {
  for (const hostility of ["too large", "not json"] as const) {
    const hold = new AbortController();
    const seen: Headers[] = [];
    let calls = 0;
    const server = startScriptedServer({
      "tools/call": (request) => {
        seen.push(request.headers);
        const value = { content: [{ type: "text", text: `ok ${request.id}` }] };
        // The second call gets the hostile reply; a "not json" one then closes (with several
        // replies being read the bad event cannot be attributed, the end of its stream can).
        if (++calls !== 2) {
          return sseReply([": priming\n\n", sseEvent(resultText(request.id, value))], hold.signal)
            .response;
        }
        const closing = new AbortController();
        const reply = sseReply(
          hostileParts(hostility, request.id, value),
          hostility === "not json" ? closing.signal : hold.signal,
        );
        reply.written.then(() => setTimeout(() => closing.abort(), 20));
        return reply.response;
      },
    });
    let connection: Connection | undefined;
    try {
      connection = await connect(server.url, { ...OPTIONS, transport: transport(CAP) });
      // The hostile stream stays open (or closes only after its bad bytes): a call that waited
      // for the 60 s deadline would end in mcp_timeout, not its own code.
      const envelopes = await Promise.all(
        [0, 1, 2].map(() => connection!.toolkit.call("h__echo", {})),
      );
      assert.deepEqual(
        envelopes.map((envelope) => envelope.errorCode ?? "ok"),
        ["ok", EXPECTED[hostility].call, "ok"],
        hostility,
      );
      // The tag that ties a fetch to its request never leaves the process.
      for (const headers of seen) assert.equal(headers.get("x-sluice-reply"), null);
    } finally {
      hold.abort();
      await connection?.close();
      await server.close();
    }
  }
});
