/**
 * Results as the 2026-07-28 revision shapes them, through connect(): a result without
 * `resultType` is complete (the spec's rule), and an `input_required` result that sluice
 * cannot answer is its own code, never a transport error.
 */
import assert from "node:assert/strict";
import { connect, ConnectError, MemoryApprovalStore } from "../../mod.ts";
import {
  initializeResult,
  MODERN_HANDLERS,
  result,
  startScriptedServer,
  tool,
} from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true } as const;

Deno.test("2026-07-28: a result without resultType is complete", async () => {
  const server = startScriptedServer({
    ...MODERN_HANDLERS,
    "tools/call": (request) => result(request, { content: [{ type: "text", text: "bare" }] }),
  });
  const connection = await connect(server.url, {
    id: "s",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: LOOPBACK,
  });
  try {
    assert.equal(connection.report().servers[0].protocolVersion, "2026-07-28");
    assert.deepEqual(await connection.toolkit.call("s__echo", {}), {
      text: ["bare"],
      structured: null,
    });
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("2026-07-28: input_required is mcp_input_required_unsupported; a write so answered is unknown", async () => {
  const server = startScriptedServer({
    ...MODERN_HANDLERS,
    "tools/call": (request) =>
      result(request, {
        resultType: "input_required",
        inputRequests: {
          confirm: { method: "elicitation/create", params: { message: "Sure?" } },
        },
      }),
  });
  const store = new MemoryApprovalStore();
  const connection = await connect(server.url, {
    id: "s",
    allow: ["echo"],
    transport: LOOPBACK,
    approve: () => true,
    store,
    allowNonDurableStoreForTests: true,
  });
  try {
    const envelope = await connection.toolkit.call("s__echo", {});
    assert.equal(envelope.errorCode, "mcp_input_required_unsupported");
    assert.deepEqual(envelope.text, [], "nothing of the server's request reaches the model");
    assert.equal(envelope.effect, "unknown");
    assert.equal((await store.get(envelope.approvalId!))?.state, "unknown");
    // One tools/call: sluice did not answer the input request with a second one.
    assert.equal(server.requests.filter((entry) => entry.method === "tools/call").length, 1);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("a change announced while connect() lists: the report says the server is stale, and so do calls", async () => {
  const server = startScriptedServer({
    "tools/list": (request) => {
      // The list answer rides an SSE stream that first carries a list change.
      const events = [
        { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
        { jsonrpc: "2.0", id: request.id, result: { tools: [tool("echo")] } },
      ].map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join("");
      return new Response(events, { headers: { "content-type": "text/event-stream" } });
    },
  });
  const connection = await connect(server.url, {
    id: "s",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: LOOPBACK,
  });
  try {
    const [report] = connection.report().servers;
    assert.equal(report.status, "ready");
    assert.equal(report.stale, "tools_list_changed");
    assert.equal((await connection.toolkit.call("s__echo", {})).errorCode, "mcp_catalog_stale");
    assert.equal(server.requests.filter((entry) => entry.method === "tools/call").length, 0);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("2025-03-26 only by choice: refused by default, reached with legacyProtocolVersions", async () => {
  const server = startScriptedServer({
    initialize: (request) => result(request, initializeResult("2025-03-26")),
  });
  try {
    await assert.rejects(
      () =>
        connect(server.url, {
          id: "s",
          allow: ["echo"],
          preApproved: ["echo"],
          transport: LOOPBACK,
        }),
      (error) => error instanceof ConnectError && error.code === "mcp_protocol_version_unsupported",
    );
    const reached = await connect(server.url, {
      id: "s",
      allow: ["echo"],
      preApproved: ["echo"],
      transport: LOOPBACK,
      legacyProtocolVersions: ["2025-11-25", "2025-06-18", "2025-03-26"],
    });
    assert.equal(reached.report().servers[0].protocolVersion, "2025-03-26");
    assert.deepEqual(await reached.toolkit.call("s__echo", {}), { text: ["ok"], structured: null });
    await reached.close();
    await assert.rejects(
      () =>
        connect(server.url, {
          allow: ["echo"],
          transport: LOOPBACK,
          legacyProtocolVersions: ["2024-11-05"],
        }),
      (error: Error & { code?: string }) => error.code === "connect_config_invalid",
    );
  } finally {
    await server.close();
  }
});
