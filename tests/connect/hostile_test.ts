// Hostile servers at the protocol level, each a real local server scripted per JSON-RPC
// method (the transport suite covers fetch-level misbehaviour). Each case must end with its
// own code, and the host must stay healthy: a good server still works afterwards in the same
// process, and the sanitizers find nothing left running. No upper time bound is asserted: a
// timeout case proves the deadline fired by its mcp_timeout code (and that it did not end early
// by a lower bound, which load cannot break); every other case runs with a long deadline, so
// waiting for it instead of failing on the bad reply would end in mcp_timeout, not its code.
import assert from "node:assert/strict";
import { connect, ConnectError, type Connection } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import {
  result,
  type ScriptedHandlers,
  startScriptedServer,
  tool,
} from "../../fixtures/connect_servers.ts";

const DEADLINE_MS = 1_500;
/** For the cases that must fail on the reply: waiting for this would end in mcp_timeout. */
const LONG_MS = 60_000;

const OPTIONS = {
  id: "h",
  allow: ["echo"],
  preApproved: ["echo"],
  limits: { timeoutMs: DEADLINE_MS },
  transport: { dangerouslyAllowLoopback: true, timeoutMs: DEADLINE_MS },
} as const;

/** Connects to a scripted server with deadline `timeoutMs`; returns the server, the connection
 * (or the code connect() rejected with) and the elapsed ms (only ever checked as a lower
 * bound). */
async function connectTo(
  handlers: ScriptedHandlers,
  { maxResponseBytes, timeoutMs = DEADLINE_MS }: { maxResponseBytes?: number; timeoutMs?: number } =
    {},
) {
  const server = startScriptedServer(handlers);
  const start = performance.now();
  let connection: Connection | undefined;
  let failure: string | undefined;
  let reason: string | undefined;
  try {
    connection = await connect(server.url, {
      ...OPTIONS,
      limits: { timeoutMs },
      transport: {
        ...OPTIONS.transport,
        timeoutMs,
        ...(maxResponseBytes ? { maxResponseBytes } : {}),
      },
    });
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    failure = error.code;
    reason = error.failures[0].reason;
  }
  return { server, connection, failure, reason, elapsed: performance.now() - start };
}

/** The host is healthy: a well-behaved server works from this process right afterwards. */
async function assertHostHealthy(): Promise<void> {
  const good = await startHttpServer();
  let connection: Connection | undefined;
  try {
    connection = await connect(good.url, { ...OPTIONS });
    assert.deepEqual(await connection!.toolkit.call("h__echo", { message: "alive" }), {
      text: ["alive"],
      structured: null,
    });
  } finally {
    await connection?.close();
    await good.close();
  }
}

Deno.test("a handshake that stalls ends in mcp_timeout at the deadline", async () => {
  for (const method of ["server/discover", "initialize"]) {
    const { server, connection, failure, elapsed } = await connectTo({ [method]: () => "stall" });
    try {
      assert.equal(failure, "mcp_timeout", method);
      assert.ok(elapsed >= DEADLINE_MS * 0.9, `${method}: ended early at ${elapsed} ms`);
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("invalid JSON: in the handshake and in a call, each with its code", async () => {
  const notJson = () =>
    new Response("{ this is not json", { headers: { "content-type": "application/json" } });
  {
    const { server, connection, failure } = await connectTo({ initialize: notJson }, {
      timeoutMs: LONG_MS,
    });
    try {
      assert.equal(failure, "mcp_handshake_failed");
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  {
    const { server, connection, failure } = await connectTo({ "tools/call": notJson }, {
      timeoutMs: LONG_MS,
    });
    try {
      assert.equal(failure, undefined);
      const envelope = await connection!.toolkit.call("h__echo", {});
      assert.equal(envelope.errorCode, "mcp_protocol_error");
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("a wrong JSON-RPC id ends in mcp_timeout at the deadline (list and call)", async () => {
  const wrongId = () =>
    Response.json({ jsonrpc: "2.0", id: 987_654, result: { tools: [], content: [] } });
  {
    const { server, connection, failure, elapsed } = await connectTo({ "tools/list": wrongId });
    try {
      assert.equal(failure, "mcp_timeout");
      assert.ok(elapsed >= DEADLINE_MS * 0.9, `ended early at ${elapsed} ms`);
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  {
    const { server, connection } = await connectTo({ "tools/call": wrongId });
    try {
      const start = performance.now();
      const envelope = await connection!.toolkit.call("h__echo", {});
      const elapsed = performance.now() - start;
      assert.equal(envelope.errorCode, "mcp_timeout");
      assert.ok(elapsed >= DEADLINE_MS * 0.9, `ended early at ${elapsed} ms`);
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("an oversized tool list: too many tools, and too many bytes for the cap", async () => {
  const many = Array.from({ length: 300 }, (_, i) => tool(`t${i}`));
  {
    const { server, connection, failure, reason } = await connectTo({
      "tools/list": (request) => result(request, { tools: [tool("echo"), ...many] }),
    }, { timeoutMs: LONG_MS });
    try {
      assert.equal(failure, "mcp_too_many_tools");
      assert.match(reason!, /limits\.maxTools/);
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  {
    const padded = [tool("echo"), tool("big", { description: "x".repeat(200_000) })];
    const { server, connection, failure, reason } = await connectTo({
      "tools/list": (request) => result(request, { tools: padded }),
    }, { maxResponseBytes: 64 * 1024, timeoutMs: LONG_MS });
    try {
      assert.equal(failure, "transport_response_too_large");
      assert.match(reason!, /transport\.maxResponseBytes/);
    } finally {
      await connection?.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});
