// `sluice serve` end to end: the official v2 SDK client downstream, the repo's read fixture and
// write fixture (its own process and ledger) upstream. The client sees only allowed tools under
// their local names, a read runs, a write waits for approval and comes back committed once a
// person approved in the store, exactly once however often the client sends it again.
import assert from "node:assert/strict";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { REMOTE_SECRET } from "../../fixtures/read_tools.ts";
import {
  connectClient,
  IDE_TOKEN,
  outcomeOf,
  SERVED_NAMES,
  startEndpoint,
  textOf,
} from "./setup.ts";

Deno.test("serve: the client lists the allowed tools under local names, with their admitted schemas", async () => {
  const endpoint = await startEndpoint();
  try {
    for (const legacy of [false, true]) {
      const client = await connectClient(endpoint.url, IDE_TOKEN, legacy);
      try {
        assert.equal(
          client.getNegotiatedProtocolVersion(),
          legacy ? "2025-11-25" : "2026-07-28",
        );
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name), SERVED_NAMES);
        const served = endpoint.served.connection.toolkit.tools;
        for (const tool of tools) {
          const admitted = served.find((entry) => entry.name === tool.name)!;
          assert.deepEqual(tool.inputSchema, admitted.inputSchema, tool.name);
          assert.equal(tool.description, admitted.description);
        }
      } finally {
        await client.close();
      }
    }
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve: a read runs through the gate; bad arguments are refused locally with sluice's words", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    try {
      const echo = await client.callTool({ name: "docs__echo", arguments: { message: "hi" } });
      assert.deepEqual(textOf(echo), ["hi"]);
      assert.equal(echo.isError, undefined);
      const add = await client.callTool({ name: "docs__add", arguments: { a: 2, b: 3 } });
      assert.deepEqual(add.structuredContent, { sum: 5 });

      const bad = await client.callTool({ name: "docs__echo", arguments: { message: 7 } });
      assert.equal(bad.isError, true);
      assert.equal(outcomeOf(bad).errorCode, "mcp_invalid_arguments");
      assert.match(textOf(bad).join("\n"), /\/message \(type\)/);

      const unknown = await client.callTool({ name: "docs__image", arguments: {} });
      assert.equal(outcomeOf(unknown).errorCode, "unknown_tool");
    } finally {
      await client.close();
    }
    const calls = endpoint.events.filter((event) => event.kind === "call");
    assert.ok(calls.length >= 4);
    assert.ok(calls.every((event) => event.kind === "call" && event.client === "ide"));
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve: remote error text never reaches the client, in results or events", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    try {
      for (const name of ["docs__is_error", "docs__throws"]) {
        const result = await client.callTool({ name, arguments: {} });
        assert.equal(result.isError, true, name);
        assert.ok(typeof outcomeOf(result).errorCode === "string", name);
        assert.ok(!JSON.stringify(result).includes(REMOTE_SECRET), name);
      }
    } finally {
      await client.close();
    }
    assert.ok(!JSON.stringify(endpoint.events).includes(REMOTE_SECRET));
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve: a write awaits approval, then the retried call commits once and later retries never dispatch", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    const args = { key: "k1", value: VALUE };
    try {
      const pending = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(pending.isError, true);
      const first = outcomeOf(pending);
      assert.equal(first.errorCode, "approval_pending");
      assert.equal(first.effect, "not_started");
      const approvalId = first.approvalId as string;
      assert.match(textOf(pending).join("\n"), new RegExp(`Approval id: ${approvalId}`));
      assert.equal(pending.structuredContent, undefined, "no remote text, no result");

      // Sent again before anyone decided: the same approval, still pending, nothing sent.
      const again = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(again).approvalId, approvalId);
      assert.equal(outcomeOf(again).errorCode, "approval_pending");
      assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "k1").length, 0);

      // The approval names the client in its run id; a person approves it as the inbox would.
      const record = await endpoint.store.get(approvalId);
      assert.equal(record?.state, "pending");
      assert.equal(record?.runId, "serve:ide:default");
      await endpoint.store.approve(approvalId, { by: "alice" });

      // The client retries concurrently: one dispatch; the retries sent while it ran wait for
      // it and get its result.
      const retries = await Promise.all(
        [0, 1, 2].map(() => client.callTool({ name: "records__write_record", arguments: args })),
      );
      for (const result of retries) {
        assert.equal(result.isError, undefined);
        const structured = result.structuredContent as { written: boolean; key: string };
        assert.equal(structured.written, true);
        assert.equal(structured.key, "k1");
        assert.equal(outcomeOf(result).effect, "committed");
        assert.equal(outcomeOf(result).approvalId, approvalId);
      }
      // A retry after it finished meets the used approval: its recorded outcome, no result.
      const later = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(later).errorCode, "approval_already_claimed");
      assert.equal(outcomeOf(later).effect, "committed");
      assert.match(textOf(later).join("\n"), /never run twice/);

      assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "k1").length, 1);
      assert.equal((await endpoint.store.get(approvalId))?.state, "committed");
    } finally {
      await client.close();
    }
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve: the client's own _meta run and call ids name a separate call, and a denial is final", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    const args = { key: "k2", value: VALUE };
    const meta = { "io.sluice/runId": "chat-7", "io.sluice/callId": "tool-call-1" };
    try {
      const pending = await client.callTool({
        name: "records__write_record",
        arguments: args,
        _meta: meta,
      });
      const approvalId = outcomeOf(pending).approvalId as string;
      const record = await endpoint.store.get(approvalId);
      assert.equal(record?.runId, "serve:ide:chat-7");
      assert.equal(record?.callId, "tool-call-1");
      await endpoint.store.deny(approvalId, { by: "alice" });
      const denied = await client.callTool({
        name: "records__write_record",
        arguments: args,
        _meta: meta,
      });
      assert.equal(outcomeOf(denied).errorCode, "approval_denied");
      assert.equal(outcomeOf(denied).effect, "not_started");
      assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "k2").length, 0);
    } finally {
      await client.close();
    }
  } finally {
    await endpoint.close();
  }
});
