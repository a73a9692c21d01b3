// `toolNames: "remote"`: a client written for one upstream calls its tools by their own names
// through `sluice serve`; allowlists and events keep the local names; two servers offering one
// name make the option refuse to start.
import assert from "node:assert/strict";
import { MemoryApprovalStore } from "../../mod.ts";
import { serve } from "../../serve.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { connectClient, docsConfig, IDE_TOKEN, outcomeOf, READER_TOKEN, textOf } from "./setup.ts";

Deno.test("serve toolNames remote: listed and called under the upstream's names; allowlists in local names", async () => {
  const upstream = await startHttpServer();
  const served = await serve(docsConfig(upstream.url, ["echo", "add"], {
    toolNames: "remote",
    clients: [
      { name: "ide", token: IDE_TOKEN },
      { name: "reader", token: READER_TOKEN, allow: ["docs__echo"] },
    ],
    onEvent: (event) => events.push(event),
  }));
  const events: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  try {
    const ide = await connectClient(url, IDE_TOKEN);
    const reader = await connectClient(url, READER_TOKEN, true);
    try {
      assert.deepEqual((await ide.listTools()).tools.map((tool) => tool.name), ["add", "echo"]);
      assert.deepEqual((await reader.listTools()).tools.map((tool) => tool.name), ["echo"]);
      assert.deepEqual(textOf(await ide.callTool({ name: "echo", arguments: { message: "hi" } })), [
        "hi",
      ]);
      // The local name is not what this endpoint serves; the reader may not call add.
      const local = await ide.callTool({ name: "docs__echo", arguments: { message: "hi" } });
      assert.equal(outcomeOf(local).errorCode, "unknown_tool");
      const hidden = await reader.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      assert.equal(outcomeOf(hidden).errorCode, "unknown_tool");
    } finally {
      await ide.close();
      await reader.close();
    }
    assert.ok(events.some((event) => (event as { tool?: string }).tool === "docs__echo"));
  } finally {
    await served.close();
    await server.shutdown();
    await upstream.close();
  }
});

Deno.test("serve toolNames remote: two servers sharing a tool name refuse to serve (serve_config_invalid)", async () => {
  const one = await startHttpServer();
  const two = await startHttpServer();
  try {
    await assert.rejects(
      () =>
        serve({
          servers: [{ id: "a", url: one.url.href }, { id: "b", url: two.url.href }],
          allow: ["a.echo", "b.echo"],
          preApproved: ["a.echo", "b.echo"],
          store: new MemoryApprovalStore(),
          allowNonDurableStoreForTests: true,
          transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
          serve: { toolNames: "remote", clients: [{ name: "ide", token: IDE_TOKEN }] },
        }),
      { code: "serve_config_invalid", message: /"echo" is served by more than one server/ },
    );
  } finally {
    await one.close();
    await two.close();
  }
});
