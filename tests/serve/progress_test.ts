// Upstream progress relayed through `sluice serve`: a real upstream on the official v2 server
// SDK (fixtures/client_requests_server.ts, its `slow` tool reports progress with a terminal
// escape and a bidi control in the message) behind the gateway, and a real v2 SDK client
// downstream, in the 2026-07-28 and the 2025-11-25 era. A call with a progress token hears the
// upstream's progress under its own token, its message escaped as remote text; a call without
// one hears nothing. Over stdio (the carrier `sluice serve --stdio` uses) the same holds.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { PROGRESS_MESSAGE } from "../../fixtures/client_requests_server.ts";
import { remoteText } from "../../mod.ts";
import { startRequestsGateway, withLinkedRelay } from "./requests_gateway.ts";

const TOKEN = "progress-token-0123456789abcdef0123456789abcdef";

async function v2Client(url: URL, legacy: boolean): Promise<Client> {
  const client = new Client({ name: "progress-test", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: legacy ? "legacy" : "auto" },
  });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

for (const legacy of [false, true]) {
  const era = legacy ? "2025-11-25" : "2026-07-28";
  Deno.test(`progress: a ${era} v2 SDK client's call hears the upstream's progress, escaped`, async () => {
    const gateway = await startRequestsGateway(TOKEN, ["slow"]);
    const client = await v2Client(gateway.url, legacy);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), era);
      const heard: Record<string, unknown>[] = [];
      const result = await client.callTool(
        { name: "up__slow", arguments: { steps: 3, ms: 20 } },
        { onprogress: (progress) => heard.push({ ...progress }) },
      );
      assert.notEqual(result.isError, true);
      assert.deepEqual(heard.map((p) => [p.progress, p.total]), [[1, 3], [2, 3], [3, 3]]);
      for (const progress of heard) {
        // Remote text: bounded and escaped as connect() escapes it, no raw control left.
        assert.equal(progress.message, remoteText(PROGRESS_MESSAGE).text);
        assert.ok(!String(progress.message).includes("\u001b"));
        assert.ok(!String(progress.message).includes("\u202e"));
      }
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  Deno.test(`progress: a ${era} call without a progress token hears none`, async () => {
    const gateway = await startRequestsGateway(TOKEN, ["slow"]);
    const client = await v2Client(gateway.url, legacy);
    try {
      const heard: unknown[] = [];
      // Every progress notification that reaches this client is recorded here.
      client.setNotificationHandler("notifications/progress", (notification) => {
        heard.push(notification);
      });
      const result = await client.callTool({ name: "up__slow", arguments: { steps: 3, ms: 20 } });
      assert.notEqual(result.isError, true);
      // The upstream did report progress (the gateway's own token), none reached the client.
      await gateway.upstream.waitFor((event) => event.event === "progress_token");
      await gateway.upstream.waitFor((event) => event.event === "completed");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(heard, []);
    } finally {
      await client.close();
      await gateway.close();
    }
  });
}

Deno.test("progress: over stdio, a 2025 client's call hears the upstream's progress under its token", async () => {
  await withLinkedRelay("slow", {}, () => {}, async (client) => {
    const heard: Record<string, unknown>[] = [];
    await client.callTool(
      { name: "up__slow", arguments: { steps: 2, ms: 20 } },
      { onprogress: (progress) => heard.push({ ...progress }) },
    );
    assert.deepEqual(heard.map((p) => [p.progress, p.total]), [[1, 2], [2, 2]]);
    assert.equal(heard[0]!.message, remoteText(PROGRESS_MESSAGE).text);
  });
});

Deno.test("progress: relayed progress never extends the tool's deadline", async () => {
  // 400 ms of total deadline; the upstream reports progress every 60 ms for 40 steps.
  const gateway = await startRequestsGateway(TOKEN, ["slow"], { timeoutMs: 400 });
  const client = await v2Client(gateway.url, false);
  try {
    const heard: unknown[] = [];
    const result = await client.callTool(
      { name: "up__slow", arguments: { steps: 40, ms: 60 } },
      { onprogress: (progress) => heard.push(progress), timeout: 30_000 },
    );
    // The call ended at its deadline with sluice's error, progress heard until then.
    assert.equal(result.isError, true);
    assert.ok(heard.length > 0 && heard.length < 40, `heard ${heard.length}`);
    const seen = await gateway.upstream.waitFor((event) => event.event === "cancelled");
    assert.equal(seen.tool, "slow");
    assert.equal(gateway.upstream.seen.some((event) => event.event === "completed"), false);
  } finally {
    await client.close();
    await gateway.close();
  }
});
