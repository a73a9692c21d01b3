/**
 * `sluice serve` in front of real servers nobody here wrote, over HTTP, with the official v2 SDK
 * client downstream: `server-everything` (its own Streamable HTTP, stateful 2025) and
 * `server-filesystem` (stdio, served over Streamable HTTP by the real `mcp-proxy`), both pinned
 * in `deno.json` and run in their own processes on loopback. The client lists and reads through
 * both; a `write_file` needs approval, is approved in the libSQL store file as a person would
 * (another connection to it), and changes the real file exactly once, whatever the client
 * sends again.
 */
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { serve } from "../../serve.ts";
import { startEverythingHttp, startLoopbackServer } from "../../fixtures/connect_servers.ts";
import { processGone } from "../../fixtures/process.ts";
import { approveInFile, connectClient, IDE_TOKEN, outcomeOf, textOf } from "./setup.ts";

const FILESYSTEM = new URL("../../fixtures/server_filesystem.ts", import.meta.url).pathname;

const READS = ["everything.echo", "fs.read_text_file", "fs.list_directory"];

Deno.test("serve before server-everything and server-filesystem: list, read, one approved write", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sluice-serve-real-" }));
  await Deno.mkdir(`${root}/files`);
  const notes = `${root}/files/notes.txt`;
  await Deno.writeTextFile(notes, "status: draft\n");
  const db = `${root}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();

  const everything = await startEverythingHttp();
  const filesystem = await startLoopbackServer("mcp_proxy.ts", [
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--server",
    "stream",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    FILESYSTEM,
    `${root}/files`,
  ]);
  const store = await LibsqlApprovalStore.open(db);
  let children: number[] = [];
  try {
    const served = await serve({
      servers: [
        { id: "everything", url: everything.url.href },
        { id: "fs", url: filesystem.url.href },
      ],
      allow: [...READS, "fs.write_file"],
      preApproved: READS,
      store,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 15_000 },
      serve: { clients: [{ name: "ide", token: IDE_TOKEN }] },
    });
    const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
    const url = new URL(`http://127.0.0.1:${http.addr.port}/mcp`);
    try {
      const client = await connectClient(url, IDE_TOKEN);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), [
          "everything__echo",
          "fs__list_directory",
          "fs__read_text_file",
          "fs__write_file",
        ]);

        const echo = await client.callTool({
          name: "everything__echo",
          arguments: { message: "through serve" },
        });
        assert.equal(echo.isError, undefined);
        assert.deepEqual(textOf(echo), ["Echo: through serve"]);

        const read = await client.request({
          method: "tools/call",
          params: { name: "fs__read_text_file", arguments: { path: notes } },
        });
        assert.equal(read.isError, undefined);
        assert.match(textOf(read).join("\n"), /status: draft/);

        const listing = await client.request({
          method: "tools/call",
          params: { name: "fs__list_directory", arguments: { path: `${root}/files` } },
        });
        assert.match(textOf(listing).join("\n"), /notes\.txt/);

        // The write: pending first, nothing written.
        const write = {
          method: "tools/call" as const,
          params: {
            name: "fs__write_file",
            arguments: { path: notes, content: "status: approved\n" },
            _meta: { "io.sluice/runId": "run-1", "io.sluice/callId": "write-1" },
          },
        };
        const pending = await client.request(write);
        assert.equal(pending.isError, true);
        const approvalId = outcomeOf(pending).approvalId as string;
        assert.equal(outcomeOf(pending).errorCode, "approval_pending");
        assert.equal(typeof approvalId, "string");
        assert.equal(await Deno.readTextFile(notes), "status: draft\n");
        // Sent again before anyone decided: the same approval, still nothing written.
        const stillPending = await client.request(write);
        assert.equal(outcomeOf(stillPending).approvalId, approvalId);
        assert.equal(outcomeOf(stillPending).errorCode, "approval_pending");
        assert.equal(await Deno.readTextFile(notes), "status: draft\n");

        await approveInFile(db, approvalId);
        const committed = await client.request(write);
        assert.equal(committed.isError, undefined, JSON.stringify(committed));
        assert.equal(outcomeOf(committed).effect, "committed");
        assert.equal(outcomeOf(committed).approvalId, approvalId);
        assert.equal(await Deno.readTextFile(notes), "status: approved\n");
        const stat = await Deno.stat(notes);

        // Once: sent again (and by a second client session), nothing is dispatched.
        const again = await client.request(write);
        assert.equal(outcomeOf(again).errorCode, "approval_already_claimed");
        assert.equal(outcomeOf(again).effect, "committed");
        const second = await connectClient(url, IDE_TOKEN);
        try {
          const fromSecond = await second.request(write);
          assert.equal(outcomeOf(fromSecond).errorCode, "approval_already_claimed");
        } finally {
          await second.close();
        }
        const after = await Deno.stat(notes);
        assert.equal(after.mtime?.getTime(), stat.mtime?.getTime(), "the file was not rewritten");
        assert.equal(await Deno.readTextFile(notes), "status: approved\n");

        const record = (await store.get(approvalId))!;
        assert.equal(record.state, "committed");
        assert.equal(record.decision?.by, "alice");
        assert.equal(record.runId, "serve:ide:run-1");
      } finally {
        await client.close();
      }
    } finally {
      await served.close();
      await http.shutdown();
    }
  } finally {
    children = await filesystem.children();
    await filesystem.close();
    await everything.close();
    await store.close();
    for (const pid of children) assert.ok(await processGone(pid), `child ${pid} has exited`);
    await Deno.remove(root, { recursive: true });
  }
});
