/**
 * `connection.report()`: its provider exports are built once per set of model-facing tools, not
 * on every call, and are rebuilt when an accepted revision changes the tools.
 */
import assert from "node:assert/strict";
import { connect } from "../../mod.ts";
import { result, startScriptedServer, tool } from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

Deno.test("report() reuses its provider exports until accept() changes the tools", async () => {
  let tools = [tool("lookup"), tool("fetch")];
  const server = startScriptedServer({ "tools/list": (request) => result(request, { tools }) });
  const allow = ["lookup", "fetch"];
  const connection = await connect(server.url, {
    id: "kb",
    allow,
    preApproved: allow,
    transport: LOOPBACK,
  });
  try {
    const first = connection.report().providers;
    assert.equal(connection.report().providers, first, "rebuilt with no change");
    assert.deepEqual(first.openaiStrict.tools.map((line) => line.status), [
      "unchanged",
      "unchanged",
    ]);
    assert.ok(Object.isFrozen(first));
    tools = [
      tool("lookup"),
      tool("fetch", {
        // An open root object: the strict exports refuse it, so the report changes.
        inputSchema: { type: "object", properties: { a: { type: "number" } } },
      }),
    ];
    const [revision] = await connection.refresh();
    // Staged, not accepted: the tools the model sees are the same, so are the exports.
    assert.equal(connection.report().providers, first);
    await connection.accept(revision);
    const second = connection.report().providers;
    assert.notEqual(second, first);
    assert.notDeepEqual(second, first);
    // The open root object of fetch (the toolkit's tools are in local-name order).
    assert.deepEqual(second.openaiStrict.tools.map((line) => [line.tool, line.status]), [
      ["kb__fetch", "refused"],
      ["kb__lookup", "unchanged"],
    ]);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("report(): a tool refused for its x-mcp-header says so, not an unknown keyword", async () => {
  const tools = [
    tool("lookup"),
    tool("count", {
      inputSchema: {
        type: "object",
        properties: { n: { type: "number", "x-mcp-header": "Count" } },
      },
    }),
  ];
  const server = startScriptedServer({ "tools/list": (request) => result(request, { tools }) });
  const connection = await connect(server.url, {
    id: "kb",
    allow: ["lookup", "count"],
    preApproved: ["lookup", "count"],
    transport: LOOPBACK,
  });
  try {
    const [skipped] = connection.report().skipped;
    assert.equal(skipped.code, "mcp_schema_unsupported");
    assert.equal(
      skipped.reason,
      'input schema has an x-mcp-header at "/properties/[0]/[1]" (`sluice inspect` shows the ' +
        "names) that the specification does not allow (only on a string, integer or boolean property): give " +
        "the tool an owner spec in specs, or remove it from allow",
    );
  } finally {
    await connection.close();
    await server.close();
  }
});
