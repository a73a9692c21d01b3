/**
 * Quick proofs that the read fixtures and the session harness do what the read suite relies
 * on, over every real path: real handshake and negotiated version, paginated listing with an
 * empty-string cursor, each fixture tool's raw result, the server-side request log, list-change
 * delivery, and (stdio) the server process exiting after close.
 */
import assert from "node:assert/strict";
import { CallToolResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  EVERYTHING_DATA_URI,
  openServerEverything,
  openSession,
  processAlive,
  type RawCallOutcome,
  rawCallTool,
  type RawListPage,
  rawListTools,
  SESSION_KINDS,
  type SessionKind,
  waitFor,
  withSession,
} from "./support/sessions.ts";
import { processGone } from "../fixtures/process.ts";

/** The fixture table in listing order, written out here (not derived from the fixture). */
const TABLE_NAMES = [
  "echo",
  "add",
  "missing_structured",
  "invalid_structured",
  "json_text",
  "image",
  "audio",
  "resource_link",
  "embedded_resource",
  "is_error",
  "slow",
  "oversized",
  "many_blocks",
  "task_required",
  "unsupported_schema",
  "write_like",
  "throws",
  "timeout_code",
  "fixture_change_tools",
];

const EXPECTED_VERSION: Record<SessionKind, string> = {
  "memory-v1": "2025-11-25",
  "memory-v2": "2025-11-25",
  "stdio-v1": "2025-11-25",
  "http-2026": "2026-07-28",
  "http-2025": "2025-11-25",
};

const SECRET = "REMOTE-SECRET-TEXT";

function textOf(result: { content: { type: string; [key: string]: unknown }[] }): string[] {
  return result.content.map((block) => (block.type === "text" ? String(block.text) : ""));
}

for (const kind of SESSION_KINDS) {
  Deno.test(`fixtures ${kind}: handshake, paginated listing with "" cursor, log`, async () => {
    await withSession(kind, { pageSize: 5, emptyCursor: true }, async (session) => {
      assert.equal(session.protocolVersion, EXPECTED_VERSION[kind]);
      const cursors: (string | undefined)[] = [];
      const names: string[] = [];
      let cursor: string | undefined = undefined;
      for (let page = 0; page < 10; page++) {
        cursors.push(cursor);
        const result = await rawListTools(session, cursor);
        assert.ok(result.tools.length <= 5);
        names.push(...result.tools.map((tool) => tool.name));
        if (result.nextCursor === undefined) break;
        cursor = result.nextCursor;
      }
      assert.deepEqual(cursors, [undefined, "", "10", "15"]);
      assert.deepEqual(names, TABLE_NAMES);

      const log = await session.log();
      const lists = log.filter((entry) => entry.method === "tools/list");
      assert.deepEqual(lists.map((entry) => entry.cursor), [undefined, "", "10", "15"]);
      if (kind === "http-2026") {
        assert.equal(log[0].method, "server/discover");
        for (const entry of lists) {
          assert.equal(entry.http?.protocolVersion, "2026-07-28");
          assert.equal(entry.http?.mcpMethod, "tools/list");
        }
      } else {
        const init = log.find((entry) => entry.method === "initialize");
        assert.equal(init?.protocolVersion, "2025-11-25");
      }
    });
  });

  Deno.test(`fixtures ${kind}: every tool returns what it claims`, async () => {
    await withSession(kind, {}, async (session) => {
      const echo = await rawCallTool(session, "echo", { message: "hello" });
      assert.deepEqual(textOf(echo), ["hello"]);
      assert.equal(echo.structuredContent, undefined);

      const add = await rawCallTool(session, "add", { a: 2, b: 3 });
      assert.deepEqual(add.structuredContent, { sum: 5 });

      const missing = await rawCallTool(session, "missing_structured", { a: 2, b: 3 });
      assert.equal(missing.structuredContent, undefined);
      assert.notEqual(missing.isError, true);

      const invalid = await rawCallTool(session, "invalid_structured", { a: 2, b: 3 });
      assert.deepEqual(invalid.structuredContent, { sum: "x" });

      const jsonText = await rawCallTool(session, "json_text", { a: 2, b: 3 });
      assert.equal(jsonText.structuredContent, undefined);
      assert.deepEqual(JSON.parse(textOf(jsonText)[0]), { sum: 5 });

      const kinds = [
        ["image", "image"],
        ["audio", "audio"],
        ["resource_link", "resource_link"],
        ["embedded_resource", "resource"],
      ];
      for (const [tool, blockType] of kinds) {
        const result = await rawCallTool(session, tool);
        assert.deepEqual(result.content.map((block) => block.type), [blockType], tool);
      }

      const failed = await rawCallTool(session, "is_error");
      assert.equal(failed.isError, true);
      assert.ok(textOf(failed)[0].includes(SECRET));

      const oversized = await rawCallTool(session, "oversized", { bytes: 70_000 });
      assert.equal(textOf(oversized)[0].length, 70_000);

      const many = await rawCallTool(session, "many_blocks", { count: 130 });
      assert.equal(many.content.length, 130);

      const slow = await rawCallTool(session, "slow", { ms: 5 });
      assert.deepEqual(textOf(slow), ["slept 5"]);

      await assert.rejects(
        () => rawCallTool(session, "throws"),
        (error: Error) => error.message.includes(SECRET),
      );
      // Both SDKs carry a thrown error's integer code into the JSON-RPC error response.
      await assert.rejects(
        () => rawCallTool(session, "timeout_code"),
        (error: Error & { code?: unknown }) => error.code === -32001,
      );

      const tools = (await rawListTools(session)).tools;
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      // 2026-07-28 deleted `execution` (tasks) from Tool: the v2 SDK's modern codec strips it
      // from the outbound tools/list, so on that era task_required lists as a plain tool.
      assert.deepEqual(
        byName.get("task_required")?.execution,
        kind === "http-2026" ? undefined : { taskSupport: "required" },
      );
      assert.equal(
        byName.get("write_like")?.annotations
          ? (byName.get("write_like")?.annotations as Record<string, unknown>).destructiveHint
          : undefined,
        true,
      );
      const unsupported = byName.get("unsupported_schema")?.inputSchema as {
        properties: { q: Record<string, unknown> };
      };
      assert.equal(unsupported.properties.q["x-vendor"], "acme");
      assert.deepEqual((byName.get("add")?.outputSchema as Record<string, unknown>).required, [
        "sum",
      ]);

      const calls = (await session.log()).filter((entry) => entry.method === "tools/call");
      assert.deepEqual(calls.map((entry) => entry.toolName), [
        "echo",
        "add",
        "missing_structured",
        "invalid_structured",
        "json_text",
        "image",
        "audio",
        "resource_link",
        "embedded_resource",
        "is_error",
        "oversized",
        "many_blocks",
        "slow",
        "throws",
        "timeout_code",
      ]);
    });
  });

  Deno.test(`fixtures ${kind}: changeTools() reaches the client and changes the listing`, async () => {
    await withSession(kind, { listen: true }, async (session) => {
      const before = (await rawListTools(session)).tools.find((tool) => tool.name === "echo");
      let heard = 0;
      const stop = session.onToolsListChanged(() => heard++);
      await session.changeTools();
      assert.ok(await waitFor(() => heard === 1), `${kind}: list_changed not delivered`);
      stop();
      assert.equal(session.listChangedCount(), 1);
      const after = (await rawListTools(session)).tools.find((tool) => tool.name === "echo");
      assert.notEqual(after?.description, before?.description);
      assert.ok(after?.description?.includes("revision 1"));
    });
  });
}

Deno.test("fixtures extra tools: generated tools have ~2 KiB input schemas", async () => {
  await withSession("memory-v2", { extraTools: 3 }, async (session) => {
    const tools = (await rawListTools(session)).tools;
    assert.equal(tools.length, TABLE_NAMES.length + 3);
    const extra = tools.filter((tool) => tool.name.startsWith("extra_"));
    assert.deepEqual(extra.map((tool) => tool.name), ["extra_000", "extra_001", "extra_002"]);
    for (const tool of extra) {
      const size = JSON.stringify(tool.inputSchema).length;
      assert.ok(size > 1800 && size < 2600, `schema size ${size}`);
    }
  });
});

Deno.test("fixtures onlyExtraTools: exactly N tools over stdio, paginated", async () => {
  await withSession(
    "stdio-v1",
    { extraTools: 32, onlyExtraTools: true, pageSize: 10 },
    async (s) => {
      const names: string[] = [];
      let cursor: string | undefined = undefined;
      for (let page = 0; page < 10; page++) {
        const result = await rawListTools(s, cursor);
        names.push(...result.tools.map((tool) => tool.name));
        if (result.nextCursor === undefined) break;
        cursor = result.nextCursor;
      }
      assert.equal(names.length, 32);
      assert.equal(names[0], "extra_000");
      assert.equal(names[31], "extra_031");
    },
  );
});

Deno.test("fixtures reverse: same tools, reversed order", async () => {
  await withSession("memory-v1", { reverse: true }, async (session) => {
    const names = (await rawListTools(session)).tools.map((tool) => tool.name);
    assert.deepEqual(names, [...TABLE_NAMES].reverse());
  });
});

Deno.test("fixtures slow: a client abort cancels the server-side wait", async () => {
  await withSession("memory-v2", {}, async (session) => {
    const controller = new AbortController();
    const pending = rawCallTool(session, "slow", { ms: 60_000 }, { signal: controller.signal });
    await waitFor(async () => (await session.log()).some((entry) => entry.toolName === "slow"));
    controller.abort();
    await assert.rejects(pending);
    const log = await session.log();
    assert.ok(log.some((entry) => entry.method === "notifications/cancelled"));
  });
});

Deno.test("fixtures stdio-v1: the server process exits after close", async () => {
  const session = await openSession("stdio-v1");
  const pid = session.pid;
  try {
    assert.equal(typeof pid, "number");
    assert.equal(await processAlive(pid!), true);
  } finally {
    await session.close();
  }
  assert.ok(await processGone(pid!), "server still alive");
});

Deno.test("fixtures http: one HTTP request per tools/call on 2026-07-28", async () => {
  await withSession("http-2026", {}, async (session) => {
    const before = session.httpRequests!();
    await rawCallTool(session, "echo", { message: "x" });
    assert.equal(session.httpRequests!() - before, 1);
    const last = (await session.log()).at(-1);
    assert.deepEqual(last?.http, {
      httpMethod: "POST",
      protocolVersion: "2026-07-28",
      mcpMethod: "tools/call",
      mcpName: "echo",
    });
  });
});

Deno.test("server-everything: pinned tool list, output schemas, annotations; exits on close", async () => {
  const session = await openServerEverything();
  const pid = session.pid;
  try {
    assert.equal(session.protocolVersion, "2025-11-25");
    const result = await session.client.request(
      { method: "tools/list", params: {} },
      ListToolsResultSchema,
    ) as RawListPage;
    assert.equal(result.nextCursor, undefined);
    const summary = result.tools.map((tool) => ({
      name: tool.name,
      output: tool.outputSchema !== undefined,
      readOnly: (tool.annotations as Record<string, unknown> | undefined)?.readOnlyHint,
      destructive: (tool.annotations as Record<string, unknown> | undefined)?.destructiveHint,
      task: (tool.execution as { taskSupport?: string } | undefined)?.taskSupport,
      dialect: (tool.inputSchema as Record<string, unknown>).$schema,
    }));
    const draft7 = "http://json-schema.org/draft-07/schema#";
    const row = (name: string, output: boolean, readOnly: boolean, task = "forbidden") => ({
      name,
      output,
      readOnly,
      destructive: false,
      task,
      dialect: draft7,
    });
    assert.deepEqual(summary, [
      row("echo", false, true),
      row("get-annotated-message", false, true),
      row("get-env", false, true),
      row("get-resource-links", false, true),
      row("get-resource-reference", false, true),
      row("get-structured-content", true, true),
      row("get-sum", false, true),
      row("get-tiny-image", false, true),
      row("gzip-file-as-resource", false, false),
      row("toggle-simulated-logging", false, false),
      row("toggle-subscriber-updates", false, false),
      row("trigger-long-running-operation", false, true),
      row("simulate-research-query", false, false, "required"),
    ]);
    const gzip = await session.client.request({
      method: "tools/call",
      params: {
        name: "gzip-file-as-resource",
        arguments: { data: EVERYTHING_DATA_URI, name: "hello.gz" },
      },
    }, CallToolResultSchema) as RawCallOutcome;
    assert.deepEqual(gzip.content.map((block) => block.type), ["resource_link"]);
    const structured = await session.client.request({
      method: "tools/call",
      params: { name: "get-structured-content", arguments: { location: "Chicago" } },
    }, CallToolResultSchema) as RawCallOutcome;
    assert.deepEqual(Object.keys(structured.structuredContent ?? {}).sort(), [
      "conditions",
      "humidity",
      "temperature",
    ]);
  } finally {
    await session.close();
  }
  assert.ok(await processGone(pid!), "server still alive");
});

Deno.test("SDK fact, http-2026: list changes reach a v2 client only through subscriptions/listen", async () => {
  await withSession("http-2026", {}, async (session) => {
    assert.equal(session.sdk, "v2");
    if (session.sdk !== "v2") return;
    await session.changeTools();
    // A full round trip after the change: any unsolicited push would have arrived by now.
    await rawListTools(session);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(session.listChangedCount(), 0);
    const subscription = await session.client.listen({ toolsListChanged: true });
    try {
      assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
      await session.changeTools();
      assert.ok(await waitFor(() => session.listChangedCount() === 1));
      const methods = (await session.log()).map((entry) => entry.method);
      assert.ok(methods.includes("subscriptions/listen"));
    } finally {
      await subscription.close();
    }
    assert.equal(await subscription.closed, "local");
  });
});

Deno.test("SDK fact: listen() is refused on a 2025 era v2 connection", async () => {
  await withSession("http-2025", {}, async (session) => {
    if (session.sdk !== "v2") throw new Error("expected a v2 session");
    await assert.rejects(() => session.client.listen({ toolsListChanged: true }));
  });
});
