// connect() against the real @modelcontextprotocol/server-everything (pinned in deno.json)
// over Streamable HTTP on loopback: a stateful 2025 server, so connect() falls back from
// 2026-07-28 to the legacy handshake. The server runs in its own Deno process, forced onto
// 127.0.0.1 by fixtures/server_everything_http.ts, and is stopped by PID in `finally`.
import assert from "node:assert/strict";
import { connect, type ConnectEvent } from "../../mod.ts";
import { startEverythingHttp } from "../../fixtures/connect_servers.ts";
import { processAlive } from "../support/sessions.ts";

Deno.test("server-everything over Streamable HTTP: connect, report, call echo", async () => {
  const server = await startEverythingHttp();
  const events: ConnectEvent[] = [];
  try {
    const connection = await connect(server.url, {
      id: "everything",
      allow: ["echo", "get-sum", "no-such-tool"],
      preApproved: ["echo"],
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      onEvent: (event) => events.push(event),
    });
    try {
      const report = connection.report();
      assert.equal(report.servers[0].status, "ready");
      // Its list_changed right after initialize changes nothing: with per-tool digests the
      // re-listing keeps every tool current, so no stale catalog and no revision.
      assert.equal(report.servers[0].stale, undefined);
      assert.equal(report.servers[0].staleTools, undefined);
      assert.deepEqual(connection.revisions(), []);
      assert.equal(report.servers[0].era, "legacy");
      assert.ok(["2025-11-25", "2025-06-18"].includes(report.servers[0].protocolVersion!));
      assert.deepEqual(
        report.ready.map((tool) => [tool.name, tool.requiresApproval]),
        [["everything__echo", false], ["everything__get-sum", true]],
      );
      assert.deepEqual(report.skipped.map((tool) => [tool.name, tool.code]), [
        ["everything__no-such-tool", "mcp_tool_missing"],
      ]);
      const envelope = await connection.toolkit.call("everything__echo", { message: "hello" });
      assert.equal(envelope.errorCode, undefined);
      assert.equal(envelope.text.length, 1);
      assert.match(envelope.text[0], /hello/);
      // A second call reuses the session.
      const again = await connection.toolkit.call("everything__echo", { message: "again" });
      assert.match(again.text[0], /again/);
      assert.equal(connection.report().servers[0].handshakes, 1);
      // Not pre-approved and no callback: not run.
      const sum = await connection.toolkit.call("everything__get-sum", { a: 1, b: 2 });
      assert.equal(sum.errorCode, "approval_unavailable");
      assert.deepEqual(events.map((event) => [event.kind, event.ok]), [
        ["discovery", true],
        ["call", true],
        ["call", true],
        ["call", false],
      ]);
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
  assert.equal(await processAlive(server.pid), false);
});

Deno.test("server-everything with changeDetection: its GET stream is opened and closed; the list_changed after initialize leaves nothing stale", async () => {
  const server = await startEverythingHttp();
  try {
    const events: ConnectEvent[] = [];
    const connection = await connect(server.url, {
      id: "everything",
      allow: ["echo", "get-sum"],
      preApproved: ["echo", "get-sum"],
      changeDetection: true,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      onEvent: (event) => events.push(event),
    });
    try {
      const report = connection.report().servers[0];
      assert.equal(report.era, "legacy");
      assert.equal(report.changeDetection, "get_stream");
      assert.equal(report.stale, undefined);
      assert.equal(report.staleTools, undefined);
      for (const round of ["first", "second", "third"]) {
        const envelope = await connection.toolkit.call("everything__echo", { message: round });
        assert.equal(envelope.errorCode, undefined, round);
        const sum = await connection.toolkit.call("everything__get-sum", { a: 1, b: 2 });
        assert.equal(sum.errorCode, undefined, round);
      }
      assert.deepEqual(connection.revisions(), []);
      assert.equal(events.filter((event) => event.kind === "revision").length, 0);
      assert.equal(connection.report().servers[0].staleTools, undefined);
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
  assert.equal(await processAlive(server.pid), false);
});
