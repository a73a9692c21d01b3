// connect() over stdio against real servers nobody here wrote, pinned in deno.json and run by
// this Deno binary as child processes: server-filesystem (a write approved in a durable-style
// store, dispatched once and never again) and server-everything (listing and calling). Each
// server's process id is checked gone after close().
import assert from "node:assert/strict";
import { connect, MemoryApprovalStore } from "../../mod.ts";
import { processAlive, processGone } from "../../fixtures/process.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";

Deno.test("server-filesystem over stdio: an approved write_file changes the file exactly once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-fs-" });
  const file = `${dir}/note.txt`;
  await Deno.writeTextFile(file, "before");
  const store = new MemoryApprovalStore();
  const connection = await connect(fixtureCommand("server_filesystem.ts", [dir]), {
    id: "fs",
    allow: ["write_file", "read_text_file"],
    preApproved: ["read_text_file"],
    store,
    allowNonDurableStoreForTests: true,
    transport: { timeoutMs: 20_000 },
  });
  let pid: number | undefined;
  try {
    const server = connection.report().servers[0];
    assert.equal(server.status, "ready");
    assert.equal(server.era, "legacy");
    pid = server.stdio?.pid;
    assert.ok(pid !== undefined && await processAlive(pid), "the server runs as a child");
    assert.deepEqual(
      connection.report().ready.map((tool) => [tool.name, tool.requiresApproval]),
      [["fs__read_text_file", false], ["fs__write_file", true]],
    );
    const args = { path: file, content: "after" };
    const pending = await connection.toolkit.call("fs__write_file", args);
    assert.equal(pending.errorCode, "approval_pending");
    assert.equal(await Deno.readTextFile(file), "before", "nothing written before approval");
    await store.approve(pending.approvalId!, { by: "reviewer" });
    const done = await connection.toolkit.resume(pending.approvalId!);
    assert.equal(done.errorCode, undefined);
    assert.equal(done.effect, "committed");
    assert.equal(await Deno.readTextFile(file), "after");
    // Changed behind sluice's back: a second resume must not write "after" over it.
    await Deno.writeTextFile(file, "edited by a person");
    const again = await connection.toolkit.resume(pending.approvalId!);
    assert.equal(again.errorCode, "approval_already_claimed");
    assert.equal(await Deno.readTextFile(file), "edited by a person", "written once only");
    const read = await connection.toolkit.call("fs__read_text_file", { path: file });
    assert.deepEqual(read.text, ["edited by a person"]);
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(await processGone(pid!), "the server process is gone after close()");
  const stdio = connection.report().servers[0].stdio!;
  assert.deepEqual(stdio.exit, { code: 0, signal: null }, "it exited when its stdin closed");
  assert.match(stdio.stderr, /Secure MCP Filesystem Server running on stdio/);
});

Deno.test("server-everything over stdio: lists, calls echo and an approved get-sum", async () => {
  const asked: string[] = [];
  const connection = await connect(fixtureCommand("server_everything.ts", ["stdio"]), {
    id: "everything",
    allow: ["echo", "get-sum", "no-such-tool"],
    preApproved: ["echo"],
    approve: (_server, tool) => {
      asked.push(tool);
      return true;
    },
    transport: { timeoutMs: 20_000 },
  });
  let pid: number | undefined;
  try {
    const report = connection.report();
    pid = report.servers[0].stdio?.pid;
    assert.equal(report.servers[0].status, "ready");
    assert.deepEqual(
      report.ready.map((tool) => [tool.name, tool.requiresApproval]),
      [["everything__echo", false], ["everything__get-sum", true]],
    );
    assert.deepEqual(report.skipped.map((tool) => [tool.name, tool.code]), [
      ["everything__no-such-tool", "mcp_tool_missing"],
    ]);
    const echo = await connection.toolkit.call("everything__echo", { message: "over stdio" });
    assert.equal(echo.errorCode, undefined);
    assert.match(echo.text[0], /over stdio/);
    const sum = await connection.toolkit.call("everything__get-sum", { a: 2, b: 40 });
    assert.equal(sum.errorCode, undefined);
    assert.match(sum.text.join(" "), /42/);
    assert.deepEqual(asked, ["get-sum"]);
    assert.equal(connection.report().servers[0].handshakes, 1);
  } finally {
    await connection.close();
  }
  assert.ok(pid !== undefined && await processGone(pid), "the server process is gone");
});
