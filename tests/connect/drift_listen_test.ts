/**
 * Change detection in connect() over 2026-07-28: a `subscriptions/listen` stream hears a
 * mid-session change of one description and one schema; the staged revision names exactly
 * those two tools and fields; unchanged tools keep working, the changed ones stay stale until
 * accepted; `close()` ends the stream (Deno's resource and op sanitizers are on).
 */
import assert from "node:assert/strict";
import { connect, type ConnectEvent } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

/** Waits for `done`, failing after a generous bound (not a timing assertion). */
async function eventually(done: () => boolean, what: string, boundMs = 10_000) {
  const until = Date.now() + boundMs;
  while (!done()) {
    if (Date.now() > until) assert.fail(`not within ${boundMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("connect({ changeDetection }): a listen stream hears the change; revision staged", async () => {
  const server = await startHttpServer();
  const events: ConnectEvent[] = [];
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo", "add", "json_text"],
    preApproved: ["echo", "add", "json_text"],
    changeDetection: true,
    transport: LOOPBACK,
    onEvent: (event) => events.push(event),
  });
  try {
    const report = connection.report().servers[0];
    assert.equal(report.protocolVersion, "2026-07-28");
    assert.equal(report.changeDetection, "subscription");
    assert.equal(connection.catalogs()[0].read?.changeDetection, "subscription");
    assert.equal((await connection.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode, undefined);
    // Mid-session: add gets a new property, echo a new description; the server announces it.
    const add = server.catalog.find("add") as unknown as { inputSchema: unknown };
    add.inputSchema = {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" }, bcc: { type: "string" } },
      additionalProperties: false,
    };
    server.changeTools();
    await eventually(() => connection.revisions().length === 1, "the revision is staged");
    const [revision] = connection.revisions();
    assert.deepEqual(
      revision.diff.changed.map((change) => [change.tool, change.fields]),
      [["add", ["inputSchema"]], ["echo", ["description"]]],
    );
    assert.deepEqual(revision.diff.unchanged.map((item) => item.tool), ["json_text"]);
    assert.equal(events.filter((event) => event.kind === "revision").length, 1);
    const sentBefore = server.log.filter((entry) => entry.method === "tools/call").length;
    const unchanged = await connection.toolkit.call("docs__json_text", { a: 1, b: 2 });
    assert.notEqual(unchanged.errorCode, "mcp_catalog_stale");
    assert.equal(
      server.log.filter((entry) => entry.method === "tools/call").length,
      sentBefore + 1,
    );
    assert.equal(
      (await connection.toolkit.call("docs__echo", { message: "x" })).errorCode,
      "mcp_catalog_stale",
    );
    assert.equal(
      (await connection.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode,
      "mcp_catalog_stale",
    );
    await connection.accept(revision);
    assert.deepEqual(
      (await connection.toolkit.call("docs__echo", { message: "x" })).text,
      ["x"],
    );
    assert.equal(connection.report().servers[0].staleTools, undefined);
  } finally {
    await connection.close();
    await server.close();
  }
});
