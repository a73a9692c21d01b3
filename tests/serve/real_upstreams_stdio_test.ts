/**
 * `sluice serve` in front of real servers run over stdio by sluice itself (no proxy):
 * `server-everything` (its stdio mode) and `server-filesystem`, both pinned in `deno.json`, each
 * a child process of the serving host. The official v2 SDK client downstream lists and calls
 * through both; a `write_file` approved in the libSQL store file changes the real file once.
 * Both servers' process ids are gone once the serve host closed.
 */
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { serve } from "../../serve.ts";
import { processAlive, processGone } from "../../fixtures/process.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";
import { approveInFile, connectClient, IDE_TOKEN, outcomeOf, textOf } from "./setup.ts";

Deno.test("serve before server-everything and server-filesystem over stdio: list, call, one approved write", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sluice-serve-stdio-" }));
  await Deno.mkdir(`${root}/files`);
  const notes = `${root}/files/notes.txt`;
  await Deno.writeTextFile(notes, "v1\n");
  const db = `${root}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const store = await LibsqlApprovalStore.open(db);
  const served = await serve({
    servers: [
      {
        id: "everything",
        transport: "stdio",
        ...fixtureCommand("server_everything.ts", ["stdio"]),
      },
      {
        id: "fs",
        transport: "stdio",
        ...fixtureCommand("server_filesystem.ts", [`${root}/files`]),
      },
    ],
    allow: ["everything.echo", "fs.read_text_file", "fs.write_file"],
    preApproved: ["everything.echo", "fs.read_text_file"],
    store,
    transport: { timeoutMs: 15_000 },
    serve: { clients: [{ name: "ide", token: IDE_TOKEN }] },
  });
  const pids = served.connection.report().servers.map((server) => server.stdio?.pid);
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  try {
    for (const pid of pids) assert.ok(pid !== undefined && await processAlive(pid));
    const client = await connectClient(
      new URL(`http://127.0.0.1:${http.addr.port}/mcp`),
      IDE_TOKEN,
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ["everything__echo", "fs__read_text_file", "fs__write_file"]);
      const echo = await client.callTool({
        name: "everything__echo",
        arguments: { message: "hi" },
      });
      assert.deepEqual(textOf(echo), ["Echo: hi"]);
      const write = {
        method: "tools/call" as const,
        params: {
          name: "fs__write_file",
          arguments: { path: notes, content: "v2\n" },
          _meta: { "io.sluice/runId": "run-1", "io.sluice/callId": "write-1" },
        },
      };
      const approvalId = outcomeOf(await client.request(write)).approvalId as string;
      assert.equal(await Deno.readTextFile(notes), "v1\n", "pending: nothing written");
      await approveInFile(db, approvalId);
      assert.equal(outcomeOf(await client.request(write)).effect, "committed");
      await Deno.writeTextFile(notes, "edited\n");
      assert.equal(outcomeOf(await client.request(write)).errorCode, "approval_already_claimed");
      const read = await client.callTool({
        name: "fs__read_text_file",
        arguments: { path: notes },
      });
      assert.deepEqual(textOf(read), ["edited\n"], "the write ran once");
    } finally {
      await client.close();
    }
  } finally {
    await served.close();
    await http.shutdown();
    await store.close();
    await Deno.remove(root, { recursive: true });
  }
  for (const pid of pids) assert.ok(await processGone(pid!), `server ${pid} has exited`);
});
