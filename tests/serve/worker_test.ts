// `sluice serve` on Workers: the endpoint as a Worker's fetch handler, bundled for workerd and
// run in Miniflare with a real D1 database as the approval store, in front of the write fixture
// (its own process and ledger). The v2 SDK client downstream lists the tools, a write waits for
// approval, is approved in the same D1 database, and the retried call, sent to a second Worker on
// that database, commits once.
import assert from "node:assert/strict";
import { startD1Worker } from "../support/d1_rpc.ts";
import { WORKER_CLIENT } from "../support/serve_worker.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { ModernClient } from "./modern_client.ts";
import { connectClient, outcomeOf } from "./setup.ts";

/** Points each Worker (an isolate of its own on the same D1 database) at the upstream. */
async function configureWorkers(bases: readonly (string | URL)[], upstream: string | URL) {
  for (const base of bases) {
    const configured = await fetch(new URL("/configure", base), {
      method: "POST",
      body: JSON.stringify({ upstream: String(upstream) }),
    });
    assert.deepEqual(await configured.json(), { configured: true });
  }
}

Deno.test("serve on Workers: a fetch handler with D1 in workerd; a write approved in D1 commits once", async () => {
  const ws = await createWriteWorkspace();
  const upstream = await startWriteServerHttp(ws, "success");
  const worker = await startD1Worker(1, "tests/support/serve_worker.ts");
  try {
    // Two Workers (isolates of their own) on the same D1 database, as behind a load balancer.
    await configureWorkers([worker.url, worker.approverUrl], upstream.url);
    const url = new URL("/mcp", worker.url);
    const unauthorized = await fetch(url, { method: "POST", body: "{}" });
    assert.equal(unauthorized.status, 401);
    await unauthorized.body?.cancel();
    const client = await connectClient(url, WORKER_CLIENT.token);
    const args = { key: "worker-1", value: VALUE };
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ["records__read_record", "records__write_record"],
      );
      const pending = outcomeOf(
        await client.callTool({ name: "records__write_record", arguments: args }),
      );
      assert.equal(pending.errorCode, "approval_pending");
      const approved = await fetch(new URL("/approve", worker.url), {
        method: "POST",
        body: JSON.stringify({ id: pending.approvalId }),
      });
      assert.deepEqual(await approved.json(), { state: "approved" });
      // The retry reaches the other Worker: the same approval, one dispatch.
      const other = await connectClient(new URL("/mcp", worker.approverUrl), WORKER_CLIENT.token);
      try {
        const committed = await other.callTool({ name: "records__write_record", arguments: args });
        assert.equal(outcomeOf(committed).effect, "committed");
        assert.equal(outcomeOf(committed).approvalId, pending.approvalId);
        assert.equal((committed.structuredContent as { key: string }).key, "worker-1");
      } finally {
        await other.close();
      }
      const again = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(again).errorCode, "approval_already_claimed");
      assert.equal(receivedFor(await readLedger(ws.ledger), args.key).length, 1);
    } finally {
      await client.close();
    }
  } finally {
    await worker.stop();
    await upstream.stop();
    await ws.remove();
  }
});

Deno.test("serve on Workers: a task (2026-07-28 extension) made on one Worker is answered by another from D1 once approved; committed once", async () => {
  const ws = await createWriteWorkspace();
  const upstream = await startWriteServerHttp(ws, "success");
  const worker = await startD1Worker(1, "tests/support/serve_worker.ts");
  try {
    await configureWorkers([worker.url, worker.approverUrl], upstream.url);
    const a = new ModernClient(new URL("/mcp", worker.url), WORKER_CLIENT.token);
    const b = new ModernClient(new URL("/mcp", worker.approverUrl), WORKER_CLIENT.token);
    const args = { key: "worker-task", value: VALUE };
    const created = (await a.request("tools/call", {
      name: "records__write_record",
      arguments: args,
    })).result!;
    assert.equal(created.resultType, "task", JSON.stringify(created));
    const taskId = created.taskId as string;
    // Each request is its own endpoint on Workers: the other Worker finds the task in D1.
    const working = (await b.request("tasks/get", { taskId })).result!;
    assert.equal(working.status, "working", JSON.stringify(working));
    const approved = await fetch(new URL("/approve", worker.url), {
      method: "POST",
      body: JSON.stringify({ id: taskId }),
    });
    assert.deepEqual(await approved.json(), { state: "approved" });
    // The poll after the decision claims and runs the call within its own request.
    const ended = await b.untilEnded(taskId);
    assert.equal(ended.status, "completed", JSON.stringify(ended));
    const result = ended.result as { structuredContent?: { key: string }; _meta: object };
    assert.equal(outcomeOf(result).effect, "committed");
    assert.equal(result.structuredContent?.key, "worker-task");
    const again = (await a.request("tasks/get", { taskId })).result!;
    assert.equal(again.status, "completed");
    assert.equal(receivedFor(await readLedger(ws.ledger), args.key).length, 1);
  } finally {
    await worker.stop();
    await upstream.stop();
    await ws.remove();
  }
});
