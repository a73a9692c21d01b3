// OpenAI strict exports of real tools (from the shared corpus) that need the optional →
// required + nullable transform, end to end: a loopback MCP server serves the tools exactly as
// captured, connect() discovers them, the model's strict arguments carry `null` for every
// omitted optional, stripExportNulls removes them, and the server's own request log shows the
// properties absent. Sent as the model wrote them, the nulls would be refused locally.
import assert from "node:assert/strict";
import { connect, type JsonObject, stripExportNulls, toOpenAITools } from "../../mod.ts";
import { readCaptures } from "../../fixtures/fidelity.ts";
import { corpusDir } from "../support/corpus.ts";
import { result, startScriptedServer } from "../../fixtures/connect_servers.ts";

const corpus = corpusDir("providers_strict_roundtrip_test");

/** Real tools, and what a strict model sends for them (every property present). */
const CASES: { file: string; tool: string; sent: JsonObject; arrives: JsonObject }[] = [
  {
    file: "modelcontextprotocol__server-github.json",
    tool: "list_commits",
    sent: { owner: "o", repo: "r", sha: null, page: 2, perPage: null },
    arrives: { owner: "o", repo: "r", page: 2 },
  },
  {
    file: "modelcontextprotocol__server-github.json",
    tool: "create_issue",
    sent: {
      owner: "o",
      repo: "r",
      title: "t",
      body: null,
      assignees: null,
      milestone: null,
      labels: ["bug"],
    },
    arrives: { owner: "o", repo: "r", title: "t", labels: ["bug"] },
  },
  {
    file: "wonderwhy-er__desktop-commander.json",
    tool: "list_directory",
    sent: { path: "/tmp", depth: null, origin: null },
    arrives: { path: "/tmp" },
  },
];

Deno.test({
  name: "strict OpenAI round trip on real tools: the model's null arrives as an absent property",
  ignore: corpus === undefined,
  async fn() {
    const captures = new Map(readCaptures(corpus!).map((c) => [c.file, c.tools]));
    const served = CASES.map(({ file, tool }) => captures.get(file)!.find((t) => t.name === tool)!);
    const server = startScriptedServer({
      "tools/list": (request) => result(request, { tools: served }),
      "tools/call": (request) => result(request, { content: [{ type: "text", text: "ok" }] }),
    });
    const names = CASES.map((c) => c.tool);
    const connection = await connect(server.url, {
      id: "real",
      allow: names,
      preApproved: names,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 5_000 },
    });
    try {
      const exported = toOpenAITools(connection.toolkit.tools, { strict: true });
      assert.deepEqual(exported.report.refused, []);
      for (const { tool, sent } of CASES) {
        const name = `real__${tool}`;
        const line = exported.report.tools.find((t) => t.tool === name)!;
        assert.ok(line.transforms.some((t) => t.kind === "optional_made_nullable"), name);
        // Every property is required in the export, as a strict model sends them.
        const parameters = exported.find((t) => t.function.name === name)!.function.parameters;
        assert.deepEqual(
          [...(parameters.required as string[])].sort(),
          Object.keys(sent).sort(),
        );
        // Unstripped, the nulls break the server's schema: sluice refuses, nothing is sent.
        const before = server.requests.length;
        const raw = await connection.toolkit.call(name, sent);
        assert.equal(raw.errorCode, "mcp_invalid_arguments", name);
        assert.equal(server.requests.slice(before).some((r) => r.method === "tools/call"), false);
        const done = await connection.toolkit.call(
          name,
          stripExportNulls(sent, exported.report.nullable[name]),
        );
        assert.equal(done.errorCode, undefined, name);
      }
      assert.deepEqual(
        server.requests.filter((r) => r.method === "tools/call").map((r) => r.params),
        CASES.map(({ tool, arrives }) => ({ name: tool, arguments: arrives })),
      );
    } finally {
      await connection.close();
      await server.close();
    }
  },
});
