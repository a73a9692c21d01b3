// A fleet: two `sluice serve` processes on one PostgreSQL store, behind no balancer but each
// reached by its own client, in front of one real write server. The same write sent to both
// meets one approval; approved once, it is dispatched once whichever instance the retries hit
// (both at once), and the upstream's ledger shows one call.
import assert from "node:assert/strict";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { openStore } from "../support/open_store.ts";
import { connectClient, IDE_TOKEN, outcomeOf } from "./setup.ts";
import { startGateway } from "./gateway_process.ts";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { ModernClient } from "./modern_client.ts";

/** A 2025-11-25 client with task support (the v1 SDK's `experimental.tasks`). */
async function v1TasksClient(url: URL): Promise<V1Client> {
  const client = new V1Client({ name: "fleet-tasks", version: "0" }, {
    capabilities: { tasks: { list: {}, cancel: {} } },
  });
  await client.connect(
    new V1Transport(url, { requestInit: { headers: { authorization: `Bearer ${IDE_TOKEN}` } } }),
  );
  return client;
}

/** `tasks/get` on `client` until the task is no longer working. */
async function v1UntilEnded(client: V1Client, taskId: string): Promise<{ status: string }> {
  const start = Date.now();
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status !== "working") return task;
    if (Date.now() - start > 20_000) throw new Error(`task ${taskId} still working`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Two `sluice serve` processes on one fresh PostgreSQL database, in front of one write server
 * (`records.write_record`, approvals needed); `run` gets them, then everything is stopped.
 */
async function withFleet(
  run: (fleet: {
    readonly gateways: readonly Awaited<ReturnType<typeof startGateway>>[];
    readonly db: string;
    readonly ledger: string;
  }) => Promise<void>,
): Promise<void> {
  const postgres = await startPostgres();
  const ws = await createWriteWorkspace();
  const upstream = await startWriteServerHttp(ws, "success");
  const gateways: Awaited<ReturnType<typeof startGateway>>[] = [];
  try {
    const db = await postgres.createDatabase();
    await (await openStore(db)).close();
    const config = `${ws.root}/serve.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        servers: [{ id: "records", url: upstream.url }],
        allow: ["records.write_record"],
        // A fleet settles at start-up only claims older than any dispatch still in flight.
        serve: {
          clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }],
          recover: { olderThanMs: 120_000 },
          limits: { taskPollMs: 50 },
        },
      }),
    );
    gateways.push(await startGateway(config, db), await startGateway(config, db));
    await run({ gateways, db, ledger: ws.ledger });
  } finally {
    for (const gateway of gateways) await gateway.stop();
    await upstream.stop();
    await ws.remove();
    await postgres.stop();
  }
}

if (postgresAvailable()) {
  Deno.test("serve fleet: two gateways on one PostgreSQL store; one write approved once, dispatched once", async () => {
    await withFleet(async ({ gateways, db, ledger }) => {
      const [a, b] = await Promise.all(gateways.map((g) => connectClient(g.url, IDE_TOKEN)));
      const args = { key: "fleet-1", value: VALUE };
      const call = (client: typeof a) =>
        client.callTool({ name: "records__write_record", arguments: args });
      try {
        const viaA = outcomeOf(await call(a));
        const viaB = outcomeOf(await call(b));
        assert.equal(viaA.errorCode, "approval_pending");
        assert.equal(viaB.approvalId, viaA.approvalId, "one approval, whichever instance");
        const store = await openStore(db);
        try {
          assert.equal((await store.list()).length, 1);
          await store.approve(viaA.approvalId as string, { by: "alice" });
        } finally {
          await store.close();
        }
        // Retries hit both instances at once: exactly one dispatch.
        const results = (await Promise.all([call(a), call(b), call(a), call(b)])).map(outcomeOf);
        const committed = results.filter((outcome) =>
          outcome.errorCode === undefined && outcome.effect === "committed"
        );
        assert.ok(committed.length >= 1, JSON.stringify(results));
        for (const outcome of results) {
          assert.equal(outcome.approvalId, viaA.approvalId);
          assert.ok(
            outcome.errorCode === undefined || outcome.errorCode === "approval_already_claimed",
            JSON.stringify(outcome),
          );
        }
        assert.equal(receivedFor(await readLedger(ledger), args.key).length, 1);
        const final = await openStore(db);
        try {
          assert.equal((await final.get(viaA.approvalId as string))?.state, "committed");
        } finally {
          await final.close();
        }
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  Deno.test("serve fleet: a task made on gateway A is polled on gateway B (tasks/get, tasks/result, and 2026-07-28 tasks/get); approved once, dispatched once", async () => {
    await withFleet(async ({ gateways, db, ledger }) => {
      const [a, b] = await Promise.all(gateways.map((g) => v1TasksClient(g.url)));
      const modernB = new ModernClient(gateways[1]!.url, IDE_TOKEN);
      const args = { key: "fleet-task", value: VALUE };
      try {
        // The client asks gateway A for the write as a task.
        let taskId: string | undefined;
        const stream = a.experimental.tasks.callToolStream(
          { name: "records__write_record", arguments: args },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        for await (const message of stream) {
          if (message.type === "taskCreated") {
            taskId = message.task.taskId;
            break;
          }
        }
        assert.ok(taskId !== undefined);
        // Gateway B never saw the call, yet answers for the task from the shared store.
        const onB = await b.experimental.tasks.getTask(taskId);
        assert.equal(onB.taskId, taskId);
        assert.equal(onB.status, "working");
        const modern = (await modernB.request("tasks/get", { taskId })).result!;
        assert.equal(modern.status, "working", JSON.stringify(modern));
        assert.equal(receivedFor(await readLedger(ledger), args.key).length, 0);

        const store = await openStore(db);
        try {
          assert.equal((await store.get(taskId))?.state, "pending", "the task is the approval");
          await store.approve(taskId, { by: "alice" });
        } finally {
          await store.close();
        }
        // Both gateways' tasks see the decision; one claim dispatches, once.
        const [endedA, endedB] = await Promise.all([
          v1UntilEnded(a, taskId),
          v1UntilEnded(b, taskId),
        ]);
        assert.equal(endedA.status, "completed", JSON.stringify(endedA));
        assert.equal(endedB.status, "completed", JSON.stringify(endedB));
        const resultB = await b.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        assert.equal(outcomeOf(resultB).effect, "committed", JSON.stringify(resultB));
        assert.equal(outcomeOf(resultB).approvalId, taskId);
        const modernEnded = await modernB.untilEnded(taskId);
        assert.equal(modernEnded.status, "completed");
        assert.equal(outcomeOf(modernEnded.result as object).effect, "committed");
        assert.equal(receivedFor(await readLedger(ledger), args.key).length, 1);
        const final = await openStore(db);
        try {
          assert.equal((await final.get(taskId))?.state, "committed");
        } finally {
          await final.close();
        }
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
