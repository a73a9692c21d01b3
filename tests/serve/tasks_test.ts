// MCP tasks through `sluice serve`, at 2025-11-25 and with the 2026-07-28 Tasks extension (the
// last tests). At 2025-11-25: a real MCP client with task support
// (the v1 SDK's `experimental.tasks`, over the 2025 fallback) calls a write as a task, polls
// `tasks/get` while it waits for a person, and receives the result once the approval is decided
// in the store; the write commits once on the upstream's ledger however often the client sends
// the call again (as a task or not). `tasks/list`, `tasks/cancel` and per-client isolation
// answer as the tasks utility says, and a client that sends no task keeps the immediate answer.
import assert from "node:assert/strict";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { RELATED_TASK_META_KEY } from "../../src/serve/tasks.ts";
import { ModernClient, TASKS } from "./modern_client.ts";
import {
  connectClient,
  IDE_TOKEN,
  outcomeOf,
  READER_TOKEN,
  startEndpoint,
  textOf,
} from "./setup.ts";

const WRITE = "records__write_record";

async function v1Client(url: URL, token: string): Promise<V1Client> {
  const client = new V1Client({ name: "tasks-test", version: "0" }, {
    capabilities: { tasks: { list: {}, cancel: {} } },
  });
  await client.connect(
    new V1Transport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The approval id a working task's status message names. */
function approvalIdOf(statusMessage: string | undefined): string | undefined {
  return /Approval id: ([^\s.]+)/.exec(statusMessage ?? "")?.[1];
}

Deno.test("serve tasks: a write as a task; the client polls; the result arrives once a person approves; committed once", async () => {
  const endpoint = await startEndpoint({ limits: { taskPollMs: 50 } });
  const client = await v1Client(endpoint.url, IDE_TOKEN);
  const args = { key: "t1", value: VALUE };
  try {
    assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call);
    const tools = (await client.listTools()).tools as {
      name: string;
      execution?: { taskSupport?: string };
    }[];
    const write = tools.find((tool) => tool.name === WRITE);
    assert.equal(write?.execution?.taskSupport, "optional");
    assert.equal(tools.find((tool) => tool.name === "docs__echo")?.execution, undefined);

    const messages: { type: string; task?: { taskId: string; status: string } }[] = [];
    let approvalId: string | undefined;
    const stream = client.experimental.tasks.callToolStream(
      { name: WRITE, arguments: args },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    let result: Record<string, unknown> | undefined;
    for await (const message of stream) {
      messages.push(message as never);
      if (message.type === "taskCreated" || message.type === "taskStatus") {
        const task = message.task;
        // Working, and nothing sent upstream, while the task waits for the person.
        if (approvalId === undefined) {
          assert.equal(task.status, "working");
          assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "t1").length, 0);
        }
        const named = approvalIdOf(task.statusMessage);
        if (named !== undefined && approvalId === undefined) {
          approvalId = named;
          assert.equal((await endpoint.store.get(approvalId))?.state, "pending");
          // The client retries the task-augmented call: the same task, no second approval.
          const again = await client.request(
            { method: "tools/call", params: { name: WRITE, arguments: args, task: {} } },
            (await import("@modelcontextprotocol/sdk/types.js")).CreateTaskResultSchema,
          );
          assert.equal(again.task.taskId, task.taskId);
          await endpoint.store.approve(approvalId, { by: "alice" });
        }
      }
      if (message.type === "result") result = message.result as Record<string, unknown>;
      if (message.type === "error") assert.fail(String(message.error));
    }
    assert.equal(messages[0].type, "taskCreated");
    assert.ok(messages.some((message) => message.type === "taskStatus"), "the client polled");
    assert.ok(approvalId !== undefined);
    assert.equal(result?.isError, undefined);
    assert.deepEqual((result?.structuredContent as { key: string }).key, "t1");
    assert.equal(outcomeOf(result!).effect, "committed");
    const taskId = messages[0].task!.taskId;
    assert.deepEqual(
      (result?._meta as Record<string, unknown>)["io.modelcontextprotocol/related-task"],
      { taskId },
    );

    // Sent again after the task ended, with or without a task: never a second dispatch.
    const task = await client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, "completed");
    const plain = await client.callTool({ name: WRITE, arguments: args });
    assert.equal(outcomeOf(plain).errorCode, "approval_already_claimed");
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "t1").length, 1);
    assert.equal((await endpoint.store.get(approvalId!))?.state, "committed");

    // tasks/list has it; a finished task cannot be cancelled; another client cannot see it.
    const listed = await client.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((entry: { taskId: string }) => entry.taskId === taskId));
    await assert.rejects(() => client.experimental.tasks.cancelTask(taskId), /-32602|ended/);
    const reader = await v1Client(endpoint.url, READER_TOKEN);
    try {
      await assert.rejects(() => reader.experimental.tasks.getTask(taskId), /not found/i);
      assert.deepEqual((await reader.experimental.tasks.listTasks()).tasks, []);
    } finally {
      await reader.close();
    }
    const event = endpoint.events.find((entry) => entry.kind === "call" && entry.taskId === taskId);
    assert.equal(event?.kind === "call" ? event.effect : undefined, "committed");
  } finally {
    await client.close();
    await endpoint.close();
  }
});

Deno.test("serve tasks: a cancelled task stops waiting; approving later dispatches nothing; a read is not a task", async () => {
  const endpoint = await startEndpoint({ limits: { taskPollMs: 50 } });
  const client = await v1Client(endpoint.url, IDE_TOKEN);
  const { CreateTaskResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
  try {
    const created = await client.request(
      {
        method: "tools/call",
        params: { name: WRITE, arguments: { key: "t2", value: VALUE }, task: { ttl: 5_000 } },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    assert.equal(created.task.ttl, 5_000);
    let approvalId: string | undefined;
    for (let polls = 0; approvalId === undefined && polls < 200; polls++) {
      approvalId = approvalIdOf((await client.experimental.tasks.getTask(taskId)).statusMessage);
      if (approvalId === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(approvalId !== undefined, "the task names its approval");
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, "cancelled");
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.equal(outcomeOf(result).errorCode, "serve_task_cancelled");
    await endpoint.store.approve(approvalId!, { by: "alice" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "t2").length, 0);
    assert.equal((await endpoint.store.get(approvalId!))?.state, "approved");

    // A read as a task: method not found, as the tasks utility says; as a plain call it runs.
    await assert.rejects(
      () =>
        client.request(
          {
            method: "tools/call",
            params: { name: "docs__echo", arguments: { message: "x" }, task: {} },
          },
          CreateTaskResultSchema,
        ),
      /-32601|does not run as a task/,
    );
    await assert.rejects(() => client.experimental.tasks.getTask("no-such-task"), /not found/i);
  } finally {
    await client.close();
    await endpoint.close();
  }
});

Deno.test("serve tasks: a 2026-07-28 client without tasks gets the immediate pending answer, no task", async () => {
  const endpoint = await startEndpoint();
  const client = await connectClient(endpoint.url, IDE_TOKEN);
  try {
    assert.equal(client.getServerCapabilities()?.tasks, undefined);
    const { tools } = await client.listTools();
    assert.equal(
      (tools.find((tool) => tool.name === WRITE) as { execution?: unknown }).execution,
      undefined,
    );
    const pending = await client.callTool({ name: WRITE, arguments: { key: "t3", value: VALUE } });
    assert.equal(outcomeOf(pending).errorCode, "approval_pending");
  } finally {
    await client.close();
    await endpoint.close();
  }
});

// The 2026-07-28 Tasks extension (SEP-2663), spoken on the wire by `ModernClient` (the v2 SDK
// client 2.4.0 has no tasks support at 2026-07-28).

Deno.test("serve tasks (2026-07-28 extension): a write is a task named by its approval id; tasks/get inlines the committed result once a person approves; committed once", async () => {
  const endpoint = await startEndpoint({ limits: { taskPollMs: 50 } });
  const client = new ModernClient(endpoint.url, IDE_TOKEN);
  const args = { key: "m1", value: VALUE };
  try {
    const created = await client.request("tools/call", { name: WRITE, arguments: args });
    const task = created.result!;
    assert.equal(task.resultType, "task", JSON.stringify(created));
    assert.equal(typeof task.taskId, "string");
    assert.equal(task.status, "working");
    assert.equal(task.ttlMs, 24 * 60 * 60 * 1000);
    assert.equal(task.pollIntervalMs, 50);
    for (const legacy of ["ttl", "pollInterval", "task", "result", "error"]) {
      assert.ok(!(legacy in task), `no ${legacy} on a CreateTaskResult`);
    }
    const taskId = task.taskId as string;
    // The task is the approval: any instance on the store finds it by that id.
    assert.equal((await endpoint.store.get(taskId))?.state, "pending");
    const working = (await client.request("tasks/get", { taskId })).result!;
    assert.equal(working.status, "working");
    assert.equal(working.resultType, "complete");
    assert.match(String(working.statusMessage), new RegExp(taskId));
    // The same call again is the same task; nothing reached the upstream.
    const again = await client.request("tools/call", { name: WRITE, arguments: args });
    assert.equal(again.result!.taskId, taskId);
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), args.key).length, 0);

    await endpoint.store.approve(taskId, { by: "alice" });
    const ended = await client.untilEnded(taskId);
    assert.equal(ended.status, "completed", JSON.stringify(ended));
    const result = ended.result as { content: unknown[]; isError?: boolean; _meta: object };
    assert.equal(result.isError, undefined);
    assert.equal(outcomeOf(result).effect, "committed");
    assert.equal(outcomeOf(result).approvalId, taskId);
    assert.ok(!(RELATED_TASK_META_KEY in result._meta), "no related-task _meta inlined");
    assert.ok(!("error" in ended));
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), args.key).length, 1);
    assert.equal((await endpoint.store.get(taskId))?.state, "committed");

    // Cancelling an ended task is acknowledged (idempotent), an empty result.
    const ack = await client.request("tasks/cancel", { taskId });
    assert.deepEqual(Object.keys(ack.result!).filter((key) => key !== "_meta"), ["resultType"]);
    assert.equal((await client.request("tasks/get", { taskId })).result!.status, "completed");
    // The 2025 methods do not exist at 2026-07-28; unknown and other clients' ids are -32602.
    assert.equal((await client.request("tasks/result", { taskId })).error?.code, -32601);
    assert.equal((await client.request("tasks/list", {})).error?.code, -32601);
    assert.equal((await client.request("tasks/get", { taskId: "no-such" })).error?.code, -32602);
    const reader = new ModernClient(endpoint.url, READER_TOKEN);
    assert.equal((await reader.request("tasks/get", { taskId })).error?.code, -32602);
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), args.key).length, 1);
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve tasks (2026-07-28 extension): without the extension tasks/* is -32021 and a write answers at once; a denied write's task completes with isError; cancel stops the wait", async () => {
  const endpoint = await startEndpoint({ limits: { taskPollMs: 50 } });
  const plain = new ModernClient(endpoint.url, IDE_TOKEN, false);
  const client = new ModernClient(endpoint.url, IDE_TOKEN);
  try {
    const gated = await plain.request("tasks/get", { taskId: "any" });
    assert.equal(gated.error?.code, -32021);
    assert.deepEqual(
      (gated.error?.data as { requiredCapabilities?: unknown }).requiredCapabilities,
      { extensions: { [TASKS]: {} } },
    );
    const pending = (await plain.request("tools/call", {
      name: WRITE,
      arguments: { key: "m2", value: VALUE },
    })).result!;
    assert.equal(pending.resultType, "complete");
    assert.equal(pending.taskId, undefined);
    assert.equal(outcomeOf(pending).errorCode, "approval_pending");
    // A read meets no approval: it answers at once, never a task.
    const read = (await client.request("tools/call", {
      name: "docs__echo",
      arguments: { message: "hi" },
    })).result!;
    assert.equal(read.resultType, "complete");

    const denied = (await client.request("tools/call", {
      name: WRITE,
      arguments: { key: "m3", value: VALUE },
    })).result!;
    assert.equal(denied.resultType, "task");
    await endpoint.store.deny(denied.taskId as string, { by: "alice" });
    const ended = await client.untilEnded(denied.taskId as string);
    // A refused call is a call with an outcome (completed, isError), not a protocol failure.
    assert.equal(ended.status, "completed");
    assert.equal((ended.result as { isError?: boolean }).isError, true);
    assert.equal(outcomeOf(ended.result as object).errorCode, "approval_denied");

    const waiting = (await client.request("tools/call", {
      name: WRITE,
      arguments: { key: "m4", value: VALUE },
    })).result!;
    const taskId = waiting.taskId as string;
    assert.equal((await client.request("tasks/cancel", { taskId })).result?.resultType, "complete");
    assert.equal((await client.request("tasks/get", { taskId })).result!.status, "cancelled");
    // Approving after the cancel dispatches nothing through the task.
    await endpoint.store.approve(taskId, { by: "alice" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receivedFor(await readLedger(endpoint.ws.ledger), "m4").length, 0);
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve tasks: an operator's task tool (taskTools) runs as a task for clients that negotiated tasks, answers at once for others; `required` refuses a 2026-07-28 client without the extension", async () => {
  const endpoint = await startEndpoint({
    limits: { taskPollMs: 50 },
    taskTools: { docs__echo: "optional", docs__add: "required" },
  });
  const modern = new ModernClient(endpoint.url, IDE_TOKEN);
  const plain = new ModernClient(endpoint.url, IDE_TOKEN, false);
  const legacy = await v1Client(endpoint.url, IDE_TOKEN);
  try {
    const created = (await modern.request("tools/call", {
      name: "docs__echo",
      arguments: { message: "as a task" },
    })).result!;
    assert.equal(created.resultType, "task");
    const ended = await modern.untilEnded(created.taskId as string);
    assert.equal(ended.status, "completed");
    assert.deepEqual(textOf(ended.result as { content: unknown }), ["as a task"]);
    // No approval behind it: the task lives here, and the store holds nothing.
    assert.equal((await endpoint.store.list()).length, 0);

    const direct = (await plain.request("tools/call", {
      name: "docs__echo",
      arguments: { message: "at once" },
    })).result!;
    assert.equal(direct.resultType, "complete");
    assert.deepEqual(textOf(direct), ["at once"]);
    const refused = await plain.request("tools/call", {
      name: "docs__add",
      arguments: { a: 1, b: 2 },
    });
    assert.equal(refused.error?.code, -32021);

    // A 2025-11-25 client's task-augmented call of the same tool is a task too.
    const tools = (await legacy.listTools()).tools as {
      name: string;
      execution?: { taskSupport?: string };
    }[];
    assert.equal(
      tools.find((tool) => tool.name === "docs__echo")?.execution?.taskSupport,
      "optional",
    );
    assert.equal(
      tools.find((tool) => tool.name === "docs__add")?.execution?.taskSupport,
      "required",
    );
    let taskId: string | undefined;
    for await (
      const message of legacy.experimental.tasks.callToolStream(
        { name: "docs__add", arguments: { a: 2, b: 3 } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )
    ) {
      if (message.type === "taskCreated") taskId = message.task.taskId;
      if (message.type === "result") assert.deepEqual(textOf(message.result), ['{"sum":5}']);
    }
    assert.ok(taskId !== undefined);
  } finally {
    await legacy.close();
    await endpoint.close();
  }
});

Deno.test("serve tasks: taskTools that is not a map to optional or required is serve_config_invalid", async () => {
  await assert.rejects(
    () => startEndpoint({ taskTools: { docs__echo: "always" as never } }),
    (error: unknown) => (error as { code?: string }).code === "serve_config_invalid",
  );
});
