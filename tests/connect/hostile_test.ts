// Hostile servers at the protocol level, each a real local server scripted per JSON-RPC
// method (the transport suite covers fetch-level misbehaviour). Each case must end with its
// code within the deadline plus 10%, and the host must stay healthy: a good server still
// works afterwards in the same process, and the sanitizers find nothing left running.
import assert from "node:assert/strict";
import { connect, type Connection } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import {
  result,
  type ScriptedHandlers,
  startScriptedServer,
  tool,
} from "../support/connect_servers.ts";

const DEADLINE_MS = 1_500;
const BOUND_MS = DEADLINE_MS * 1.1;

const OPTIONS = {
  id: "h",
  allow: ["echo"],
  preApproved: ["echo"],
  limits: { timeoutMs: DEADLINE_MS },
  transport: { dangerouslyAllowLoopback: true, timeoutMs: DEADLINE_MS },
} as const;

/** Connects to a scripted server; returns the connection, the server and the elapsed ms. */
async function connectTo(handlers: ScriptedHandlers, maxResponseBytes?: number) {
  const server = startScriptedServer(handlers);
  const start = performance.now();
  const connection = await connect(server.url, {
    ...OPTIONS,
    transport: { ...OPTIONS.transport, ...(maxResponseBytes ? { maxResponseBytes } : {}) },
  });
  return { server, connection, elapsed: performance.now() - start };
}

/** The host is healthy: a well-behaved server works from this process right afterwards. */
async function assertHostHealthy(): Promise<void> {
  const good = await startHttpServer();
  let connection: Connection | undefined;
  try {
    connection = await connect(good.url, { ...OPTIONS });
    assert.deepEqual(await connection.toolkit.call("h__echo", { message: "alive" }), {
      text: ["alive"],
      structured: null,
    });
  } finally {
    await connection?.close();
    await good.close();
  }
}

function setupFailure(connection: Connection): string | undefined {
  return connection.report().servers[0].errorCode;
}

Deno.test("a handshake that stalls ends in mcp_timeout within the deadline", async () => {
  for (const method of ["server/discover", "initialize"]) {
    const { server, connection, elapsed } = await connectTo({ [method]: () => "stall" });
    try {
      assert.equal(setupFailure(connection), "mcp_timeout", method);
      assert.ok(elapsed < BOUND_MS, `${method}: ${elapsed} ms`);
      assert.ok(elapsed >= DEADLINE_MS * 0.9, `${method}: ended early at ${elapsed} ms`);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("invalid JSON: in the handshake and in a call, each with its code", async () => {
  const notJson = () =>
    new Response("{ this is not json", { headers: { "content-type": "application/json" } });
  {
    const { server, connection, elapsed } = await connectTo({ initialize: notJson });
    try {
      assert.equal(setupFailure(connection), "mcp_handshake_failed");
      assert.ok(elapsed < BOUND_MS, `${elapsed} ms`);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  {
    const { server, connection } = await connectTo({ "tools/call": notJson });
    try {
      assert.equal(setupFailure(connection), undefined);
      const start = performance.now();
      const envelope = await connection.toolkit.call("h__echo", {});
      assert.equal(envelope.errorCode, "mcp_protocol_error");
      assert.ok(performance.now() - start < BOUND_MS);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("a wrong JSON-RPC id ends in mcp_timeout within the deadline (list and call)", async () => {
  const wrongId = () =>
    Response.json({ jsonrpc: "2.0", id: 987_654, result: { tools: [], content: [] } });
  {
    const { server, connection, elapsed } = await connectTo({ "tools/list": wrongId });
    try {
      assert.equal(setupFailure(connection), "mcp_timeout");
      assert.ok(elapsed < BOUND_MS, `${elapsed} ms`);
      assert.deepEqual(connection.report().skipped.map((entry) => entry.code), ["mcp_timeout"]);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  {
    const { server, connection } = await connectTo({ "tools/call": wrongId });
    try {
      const start = performance.now();
      const envelope = await connection.toolkit.call("h__echo", {});
      const elapsed = performance.now() - start;
      assert.equal(envelope.errorCode, "mcp_timeout");
      assert.ok(elapsed < BOUND_MS && elapsed >= DEADLINE_MS * 0.9, `${elapsed} ms`);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});

Deno.test("an oversized tool list: too many tools, and too many bytes for the cap", async () => {
  const many = Array.from({ length: 300 }, (_, i) => tool(`t${i}`));
  {
    const { server, connection, elapsed } = await connectTo({
      "tools/list": (request) => result(request, { tools: [tool("echo"), ...many] }),
    });
    try {
      assert.equal(setupFailure(connection), "mcp_too_many_tools");
      assert.ok(elapsed < BOUND_MS, `${elapsed} ms`);
      const [skipped] = connection.report().skipped;
      assert.equal(skipped.code, "mcp_too_many_tools");
      assert.match(skipped.reason, /limits\.maxTools/);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  {
    const padded = [tool("echo"), tool("big", { description: "x".repeat(200_000) })];
    const { server, connection, elapsed } = await connectTo({
      "tools/list": (request) => result(request, { tools: padded }),
    }, 64 * 1024);
    try {
      assert.equal(setupFailure(connection), "transport_response_too_large");
      assert.ok(elapsed < BOUND_MS, `${elapsed} ms`);
      assert.match(connection.report().skipped[0].reason, /transport\.maxResponseBytes/);
    } finally {
      await connection.close();
      await server.close();
    }
  }
  await assertHostHealthy();
});
