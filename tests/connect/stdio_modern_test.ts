// connect() over stdio with a 2026-07-28 server (the v2 SDK's `serveStdio`,
// fixtures/read_server_v2_stdio.ts): the discovery handshake, a `subscriptions/listen` stream
// over stdio with `changeDetection`, a change heard on it staged as a revision, and the server's
// process gone after close().
import assert from "node:assert/strict";
import { connect } from "../../mod.ts";
import { processGone } from "../../fixtures/process.ts";
import { eventually } from "../support/drift.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";

Deno.test("stdio, 2026-07-28: a subscriptions/listen stream hears a change; revision staged", async () => {
  const connection = await connect(fixtureCommand("read_server_v2_stdio.ts"), {
    id: "docs",
    allow: ["echo", "fixture_change_tools"],
    preApproved: ["echo", "fixture_change_tools"],
    changeDetection: true,
    minRelistIntervalMs: 100,
  });
  const server = connection.report().servers[0];
  try {
    assert.equal(server.protocolVersion, "2026-07-28");
    assert.equal(server.changeDetection, "subscription");
    assert.deepEqual((await connection.toolkit.call("docs__echo", { message: "a" })).text, ["a"]);
    await connection.toolkit.call("docs__fixture_change_tools", {});
    await eventually(() => connection.revisions().length === 1, "the revision is staged");
    const [revision] = connection.revisions();
    assert.deepEqual(
      revision.diff.changed.map((change) => [change.tool, change.fields]),
      [["echo", ["description"]]],
    );
    assert.equal(
      (await connection.toolkit.call("docs__echo", { message: "b" })).errorCode,
      "mcp_catalog_stale",
    );
    await connection.accept(revision);
    assert.deepEqual((await connection.toolkit.call("docs__echo", { message: "c" })).text, ["c"]);
  } finally {
    await connection.close();
  }
  assert.ok(await processGone(server.stdio!.pid!));
});
