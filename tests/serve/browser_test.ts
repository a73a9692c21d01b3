// The end to end: a real MCP client with task support (the v1 SDK's experimental tasks,
// over the 2025 fallback) calls a write through `sluice serve` as a task and polls it, while a
// person approves the write in the inbox mounted on the same server, in Chromium (Debian's
// headless Chromium driven by playwright-core). The task completes with the committed result,
// and the write server's ledger shows the call once.
//
// In CI the test always runs, so a missing Chromium fails it; elsewhere it runs when Chromium is
// installed.
import assert from "node:assert/strict";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { oneTimeLogin } from "../../inbox.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { serve } from "../../serve.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { browserTestsRun, launchChromium } from "../support/inbox_browser.ts";
import { CLIENTS, IDE_TOKEN, outcomeOf, startUpstreams } from "./setup.ts";

Deno.test({
  name:
    "serve in Chromium: a write approved in the mounted inbox commits once while the client polls its task",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const upstreams = await startUpstreams();
    const store = await LibsqlApprovalStore.open(upstreams.db);
    const login = oneTimeLogin({ person: "alice", basePath: "/inbox" });
    const served = await serve({
      servers: upstreams.servers,
      allow: ["records.write_record"],
      store,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      serve: {
        clients: [CLIENTS[0]],
        limits: { taskPollMs: 100 },
        inbox: { authorize: login.authorize },
      },
    });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => login.handle(request) ?? served.fetch(request),
    );
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const client = new V1Client({ name: "browser-test", version: "0" }, {
      capabilities: { tasks: { list: {}, cancel: {} } },
    });
    await client.connect(
      new V1Transport(new URL("/mcp", origin), {
        requestInit: { headers: { authorization: `Bearer ${IDE_TOKEN}` } },
      }),
    );
    const browser = await launchChromium();
    const key = "serve-browser-1";
    try {
      // The client calls the write as a task and keeps polling until the result arrives.
      const polled: string[] = [];
      const outcome = (async () => {
        const stream = client.experimental.tasks.callToolStream(
          { name: "records__write_record", arguments: { key, value: VALUE } },
          CallToolResultSchema,
          { task: { ttl: 120_000 } },
        );
        for await (const message of stream) {
          if (message.type === "taskStatus") polled.push(message.task.status);
          if (message.type === "result") return message.result;
          if (message.type === "error") throw message.error;
        }
        throw new Error("the stream ended without a result");
      })();

      // A person signs in with the one-time link and approves the write in the page.
      const page = await browser.newPage();
      await page.goto(`${origin}${login.loginPath}`);
      const row = page.locator("tr[data-id]");
      await row.first().waitFor({ timeout: 20_000 });
      const approvalId = await row.first().getAttribute("data-id");
      assert.ok(approvalId);
      assert.equal(receivedFor(await readLedger(upstreams.ws.ledger), key).length, 0);
      await row.first().locator("a").click();
      await page.waitForURL(`**/inbox/approvals/${approvalId}`);
      assert.deepEqual(JSON.parse((await page.textContent("#arguments")) ?? ""), {
        key,
        value: VALUE,
      });
      await page.click("#approve");
      await page.locator("#notice").waitFor();
      assert.match((await page.textContent("#notice")) ?? "", /Approved by alice/);

      const result = await outcome;
      assert.ok(polled.length > 0, "the client polled while the write waited");
      assert.ok(polled.every((status) => status === "working" || status === "completed"));
      assert.equal(result.isError, undefined);
      assert.equal(outcomeOf(result).effect, "committed");
      assert.equal(outcomeOf(result).approvalId, approvalId);
      assert.equal(receivedFor(await readLedger(upstreams.ws.ledger), key).length, 1);
      const record = await store.get(approvalId);
      assert.equal(record?.state, "committed");
      assert.equal(record?.decision?.by, "alice");
      assert.equal(record?.runId, "serve:ide:default");
    } finally {
      await browser.close();
      await client.close();
      await served.close();
      await server.shutdown();
      await store.close();
      await upstreams.close();
    }
  },
});
