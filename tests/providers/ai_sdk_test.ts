// The AI SDK adapter in a real generateText tool loop: the AI SDK's own scripted model
// (MockLanguageModelV4 from ai/test) calls a read tool through an OpenAI strict export (its
// `null` for an omitted optional must arrive at the server as an absent property), then a tool
// that needs approval (the store holds it pending; the model reads the pending text), then a
// tool that does not exist. A real MCP server on loopback logs every JSON-RPC request.
import assert from "node:assert/strict";
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { APPROVAL_TEXT, connect, MemoryApprovalStore } from "../../mod.ts";
import { type AISDKToolResult, toAISDKTools, toolResultOf } from "../../ai-sdk.ts";
import { result, startScriptedServer, tool } from "../../fixtures/connect_servers.ts";
import { answer, toolCall } from "../support/ai_sdk_steps.ts";

const LOOKUP_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string" },
    limit: { type: "integer", minimum: 1 },
  },
  required: ["query"],
  additionalProperties: false,
};

Deno.test("toAISDKTools: a scripted generateText loop runs reads, holds approvals, sends nothing unknown", async () => {
  const server = startScriptedServer({
    "tools/list": (request) =>
      result(request, {
        tools: [
          tool("lookup", { inputSchema: LOOKUP_SCHEMA, annotations: { readOnlyHint: true } }),
          tool("remove", { annotations: { destructiveHint: true } }),
        ],
      }),
    "tools/call": (request) =>
      result(request, { content: [{ type: "text", text: `done ${String(request.params.name)}` }] }),
  });
  const store = new MemoryApprovalStore();
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["lookup", "remove"],
    preApproved: ["lookup"],
    store,
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 5_000 },
  });
  try {
    const tools = toAISDKTools<ToolSet>(connection.toolkit, { provider: "openai", strict: true });
    assert.deepEqual(Object.keys(tools).sort(), ["docs__lookup", "docs__remove"]);
    assert.deepEqual(tools.report.refused, []);
    const model = new MockLanguageModelV4({
      doGenerate: [
        // The strict export made `limit` required and nullable: the model sends null for it.
        toolCall("c1", "docs__lookup", { query: "sluice", limit: null }),
        toolCall("c2", "docs__remove", {}),
        toolCall("c3", "docs__missing", {}),
        answer("finished"),
      ],
    });
    const run = await generateText({ model, tools, stopWhen: stepCountIs(6), prompt: "go" });
    assert.equal(run.text, "finished");
    assert.equal(run.steps.length, 4);

    // What the model was told: the strict schema, and each result.
    const offered = model.doGenerateCalls[0].tools?.find((t) => t.name === "docs__lookup");
    assert.deepEqual(offered && "inputSchema" in offered ? offered.inputSchema : undefined, {
      type: "object",
      properties: {
        query: { type: "string" },
        limit: { type: ["integer", "null"], minimum: 1 },
      },
      required: ["query", "limit"],
      additionalProperties: false,
    });
    const outputs = run.steps.flatMap((step) =>
      step.content.filter((part) => part.type === "tool-result" || part.type === "tool-error")
    );
    assert.deepEqual(
      outputs[0].type === "tool-result" && outputs[0].output,
      {
        status: "ok",
        text: ["done lookup"],
        structured: null,
      } satisfies AISDKToolResult,
    );
    const pending = outputs[1].type === "tool-result"
      ? outputs[1].output as AISDKToolResult
      : undefined;
    assert.equal(pending?.status, "approval_pending");
    assert.deepEqual(pending?.text, [APPROVAL_TEXT.pending]);
    const approvalId = pending?.status === "approval_pending" ? pending.approvalId : undefined;
    assert.equal((await store.get(approvalId!))?.state, "pending");
    // The unknown tool never reaches sluice or the server: the AI SDK reports it to the model.
    assert.equal(outputs[2].type, "tool-error");
    assert.equal(outputs[2].toolName, "docs__missing");

    // The server's own log: exactly one tools/call, for lookup, with `limit` absent.
    const calls = server.requests.filter((r) => r.method === "tools/call");
    assert.deepEqual(calls.map((r) => r.params), [
      { name: "lookup", arguments: { query: "sluice" } },
    ]);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("toolResultOf: errors carry sluice's code and fixed text, never an empty result", () => {
  assert.deepEqual(toolResultOf({ text: [], structured: null, errorCode: "mcp_timeout" }), {
    status: "error",
    errorCode: "mcp_timeout",
    text: ["The tool call did not complete; the error code says why."],
  });
  assert.deepEqual(
    toolResultOf({ text: [APPROVAL_TEXT.denied], structured: null, errorCode: "approval_denied" }),
    { status: "error", errorCode: "approval_denied", text: [APPROVAL_TEXT.denied] },
  );
});

Deno.test("toAISDKTools: a toolkit that throws still yields an error result", async () => {
  const tools = toAISDKTools({
    tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }],
    call: () => Promise.reject(new Error("boom")),
  });
  const out = await tools.t.execute!({}, { toolCallId: "x", messages: [], context: {} } as never);
  assert.deepEqual(out, {
    status: "error",
    errorCode: "mcp_protocol_error",
    text: ["The tool call did not complete; the error code says why."],
  });
});
