// The AI SDK's own MCP client (`@ai-sdk/mcp`) as the downstream of `sluice serve`: it lists the
// served tools with its token, turns them into an AI SDK tool set and calls a read tool; a
// write comes back awaiting approval in sluice's words, the ledger untouched.
import assert from "node:assert/strict";
import { createMCPClient } from "@ai-sdk/mcp";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import {
  IDE_TOKEN,
  outcomeOf,
  READER_TOKEN,
  SERVED_NAMES,
  startEndpoint,
  textOf,
} from "./setup.ts";

Deno.test("serve: the AI SDK's MCP client lists and calls a read tool through serve", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await createMCPClient({
      transport: {
        type: "http",
        url: endpoint.url.href,
        headers: { authorization: `Bearer ${IDE_TOKEN}` },
      },
    });
    try {
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), SERVED_NAMES);
      const tools = await client.tools();
      const echo = await tools.docs__echo.execute!({ message: "from the AI SDK" }, {
        toolCallId: "c1",
        messages: [],
        context: {},
      });
      assert.deepEqual(textOf(echo as { content: unknown }), ["from the AI SDK"]);

      const write = await client.callTool({
        name: "records__write_record",
        arguments: { key: "ai1", value: VALUE },
      });
      assert.equal(write.isError, true);
      assert.equal(outcomeOf(write).errorCode, "approval_pending");
      assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "ai1").length, 0);
    } finally {
      await client.close();
    }
    const reader = await createMCPClient({
      transport: {
        type: "http",
        url: endpoint.url.href,
        headers: { authorization: `Bearer ${READER_TOKEN}` },
      },
    });
    try {
      assert.deepEqual(Object.keys(await reader.tools()), ["docs__echo"]);
    } finally {
      await reader.close();
    }
  } finally {
    await endpoint.close();
  }
});
