// The approval outlives the endpoint: a write left pending by one `serve()` process is found by
// the next one on the same libSQL store file, and the client's retry (same arguments, so the same
// run and call ids) commits it once on the upstream's ledger.
// A task made by the first endpoint is answered by the next one the same way: its id is the
// approval id.
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { serve } from "../../serve.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { ModernClient } from "./modern_client.ts";
import { approveInFile, CLIENTS, connectClient, IDE_TOKEN, outcomeOf } from "./setup.ts";

async function endpoint(recordsUrl: string, db: string) {
  const store = await LibsqlApprovalStore.open(db);
  const served = await serve({
    servers: [{ id: "records", url: recordsUrl }],
    allow: ["records.write_record"],
    store,
    transport: { dangerouslyAllowLoopback: true },
    serve: { clients: [CLIENTS[0]], limits: { taskPollMs: 50 } },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  return {
    url: new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    store,
    async close() {
      await served.close();
      await server.shutdown();
      await store.close();
    },
  };
}

Deno.test("serve restart: a pending write recorded by one endpoint commits once through the next", async () => {
  const ws = await createWriteWorkspace();
  const records = await startWriteServerHttp(ws, "success");
  const db = `${ws.root}/approvals.db`;
  const args = { key: "r1", value: VALUE };
  try {
    const first = await endpoint(records.url, db);
    let approvalId: string;
    try {
      const client = await connectClient(first.url, IDE_TOKEN);
      const pending = await client.callTool({ name: "records__write_record", arguments: args });
      approvalId = outcomeOf(pending).approvalId as string;
      assert.equal(outcomeOf(pending).errorCode, "approval_pending");
      await client.close();
    } finally {
      await first.close();
    }
    await approveInFile(db, approvalId);
    const second = await endpoint(records.url, db);
    try {
      const client = await connectClient(second.url, IDE_TOKEN);
      const done = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(done).approvalId, approvalId);
      assert.equal(outcomeOf(done).effect, "committed");
      const again = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(again).errorCode, "approval_already_claimed");
      await client.close();
      assert.equal((await second.store.get(approvalId))?.state, "committed");
    } finally {
      await second.close();
    }
    assert.equal(receivedFor(await readLedger(ws.ledger), "r1").length, 1);
  } finally {
    await records.stop();
    await ws.remove();
  }
});

Deno.test("serve restart: a task (2026-07-28 extension) outlives its endpoint; the next one on the libSQL file answers it and runs the approved write once", async () => {
  const ws = await createWriteWorkspace();
  const records = await startWriteServerHttp(ws, "success");
  const db = `${ws.root}/approvals.db`;
  const args = { key: "r2", value: VALUE };
  try {
    const first = await endpoint(records.url, db);
    let taskId: string;
    try {
      const created = (await new ModernClient(first.url, IDE_TOKEN).request("tools/call", {
        name: "records__write_record",
        arguments: args,
      })).result!;
      assert.equal(created.resultType, "task");
      taskId = created.taskId as string;
    } finally {
      await first.close();
    }
    await approveInFile(db, taskId);
    const second = await endpoint(records.url, db);
    try {
      const client = new ModernClient(second.url, IDE_TOKEN);
      const ended = await client.untilEnded(taskId);
      assert.equal(ended.status, "completed", JSON.stringify(ended));
      const result = ended.result as { structuredContent?: { key: string }; _meta: object };
      assert.equal(outcomeOf(result).effect, "committed");
      assert.equal(result.structuredContent?.key, "r2");
      assert.equal((await second.store.get(taskId))?.state, "committed");
    } finally {
      await second.close();
    }
    assert.equal(receivedFor(await readLedger(ws.ledger), "r2").length, 1);
  } finally {
    await records.stop();
    await ws.remove();
  }
});
