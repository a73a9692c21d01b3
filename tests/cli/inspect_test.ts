/**
 * `sluice inspect` against real servers: server-everything over stdio (the SDK's stdio
 * transport) and over Streamable HTTP (connect()'s hardened session), the project's read
 * fixture (a tool the profile refuses, listed with keyword and path; `--init`), and a scripted
 * server whose names and descriptions try to drive the terminal, and a by-name URL whose pinned
 * connection is held (one TCP connection for the whole inspection). The JSON is parsed and checked.
 */
import assert from "node:assert/strict";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { runCli } from "../../src/cli/main.ts";
import type { InspectReport, StarterConfig } from "../../src/cli/inspect_report.ts";
import { startEverythingHttp, startScriptedServer, tool } from "../../fixtures/connect_servers.ts";
import { REPO_ROOT } from "../support/sessions.ts";
import { startCountingRelay } from "../support/counting_relay.ts";

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[]): Promise<Run> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env: () => undefined,
  });
  return { code, out, err };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** What every report must hold, whatever the server. */
function checkReport(report: InspectReport): void {
  assert.match(report.listDigest, DIGEST);
  assert.match(report.catalogDigest, DIGEST);
  assert.equal(report.profile, "sluice.schema/v1");
  assert.ok(report.tools.length > 0);
  assert.equal(report.fitting, report.tools.filter((tool) => tool.fits).length);
  for (const tool of report.tools) {
    assert.equal(typeof tool.annotations, "object");
    assert.ok(tool.inputSchemaBytes > 0, tool.name);
    assert.equal(tool.fits, tool.problem === undefined, tool.name);
  }
}

const EVERYTHING_TOOLS = ["echo", "get-sum", "get-tiny-image"];

Deno.test("sluice inspect --stdio: server-everything through the SDK's stdio transport", async () => {
  const run = await cli([
    "inspect",
    "--stdio",
    "--json",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    `${REPO_ROOT}fixtures/server_everything.ts`,
    "stdio",
  ]);
  assert.equal(run.code, 0, run.err);
  const report = JSON.parse(run.out) as InspectReport;
  checkReport(report);
  assert.equal(report.transport, "stdio");
  assert.equal(report.protocolVersion, "2025-11-25");
  assert.equal(report.era, "legacy");
  const names = report.tools.map((tool) => tool.name);
  for (const name of EVERYTHING_TOOLS) assert.ok(names.includes(name), name);
  const sum = report.tools.find((tool) => tool.name === "get-sum")!;
  assert.equal(sum.fits, true);
  assert.ok(report.tools.some((tool) => Object.keys(tool.annotations).length > 0));
});

Deno.test("sluice inspect <url>: server-everything over Streamable HTTP, loopback only when allowed", async () => {
  const server = await startEverythingHttp();
  try {
    const refused = await cli(["inspect", server.url.href]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /refused: transport_/);
    const run = await cli(["inspect", server.url.href, "--allow-loopback", "--json"]);
    assert.equal(run.code, 0, run.err);
    const report = JSON.parse(run.out) as InspectReport;
    checkReport(report);
    assert.equal(report.transport, "http");
    assert.equal(report.target, server.url.href);
    assert.equal(report.era, "legacy");
    const names = report.tools.map((tool) => tool.name);
    for (const name of EVERYTHING_TOOLS) assert.ok(names.includes(name), name);
    const text = await cli(["inspect", server.url.href, "--allow-loopback"]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^\+ get-sum {2}fits$/m);
    assert.match(text.out, /^catalog digest: sha256:[0-9a-f]{64}/m);
  } finally {
    await server.close();
  }
});

Deno.test("sluice inspect: the read fixture's refused tool is listed with keyword and path; --init suggests, never decides", async () => {
  const server = await startHttpServer();
  const url = server.url.href;
  try {
    const run = await cli(["inspect", url, "--allow-loopback", "--json"]);
    assert.equal(run.code, 0, run.err);
    const report = JSON.parse(run.out) as InspectReport;
    checkReport(report);
    assert.equal(report.era, "2026-07-28");
    assert.equal(report.protocolVersion, "2026-07-28");
    const refused = report.tools.find((tool) => tool.name === "unsupported_schema")!;
    assert.equal(refused.fits, false);
    assert.deepEqual(refused.problem, {
      code: "mcp_schema_unsupported",
      schema: "input",
      keyword: "x-vendor",
      path: "/properties/q/x-vendor",
    });
    assert.deepEqual(report.tools.find((tool) => tool.name === "add")?.annotations, {
      readOnlyHint: true,
    });
    const text = await cli(["inspect", url, "--allow-loopback"]);
    assert.match(
      text.out,
      /^- unsupported_schema {2}does not fit: mcp_schema_unsupported keyword x-vendor at input \/properties\/q\/x-vendor$/m,
    );

    const init = await cli([
      "inspect",
      url,
      "--allow-loopback",
      "--init",
      "--json",
      "--server-id",
      "docs",
    ]);
    assert.equal(init.code, 0, init.err);
    const starter = JSON.parse(init.out) as StarterConfig;
    assert.deepEqual(starter.config.servers, [{ id: "docs", url }]);
    assert.ok(starter.config.allow.includes("docs.echo"));
    assert.ok(!starter.config.allow.includes("docs.unsupported_schema"));
    assert.deepEqual(starter.config.preApproved, [], "nothing is pre-approved for the user");
    assert.deepEqual(starter.suggestions.preApproved, ["docs.add"]);
    assert.match(starter.suggestions.note, /suggested/);
    assert.deepEqual(starter.leftOut.map((left) => left.tool), ["unsupported_schema"]);
    const module = await cli(["inspect", url, "--allow-loopback", "--init"]);
    assert.match(module.out, /^export const config = \{$/m);
    assert.match(module.out, /^ {4}\/\/ "docs\.add",$|^ {4}\/\/ "server\.add",$/m);
  } finally {
    await server.close();
  }
});

Deno.test("sluice inspect escapes everything the server wrote, in text and JSON", async () => {
  const hostileName = "wipe\u202etxt.exe";
  const description = "Line one\u2028FAKE: all tools fit\u001b[2J\u200b";
  const server = startScriptedServer({
    "tools/list": (request) =>
      Response.json({
        jsonrpc: "2.0",
        id: request.id,
        result: {
          tools: [
            tool(hostileName, {
              description,
              annotations: { title: "T\u0007", readOnlyHint: true },
            }),
            tool("odd", {
              inputSchema: {
                type: "object",
                properties: { "k\u2028\u202e": { "x-\u001bbad": 1 } },
              },
            }),
          ],
        },
      }),
  });
  try {
    const text = await cli(["inspect", server.url.href, "--allow-loopback"]);
    assert.equal(text.code, 0, text.err);
    const json = await cli(["inspect", server.url.href, "--allow-loopback", "--json"]);
    const init = await cli(["inspect", server.url.href, "--allow-loopback", "--init"]);
    // deno-lint-ignore no-control-regex
    const unsafe = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b\u202e]/;
    for (const run of [text, json, init]) assert.ok(!unsafe.test(run.out), run.out);
    assert.match(text.out, /wipe\\u202etxt\.exe/);
    assert.match(text.out, /Line one\\u2028FAKE: all tools fit\\u001b\[2J\\u200b/);
    const report = JSON.parse(json.out) as InspectReport;
    assert.equal(report.tools[0].name, hostileName, "JSON keeps the exact text");
    assert.equal(report.tools[0].description, description);
    assert.equal(report.tools[1].fits, false);
    assert.equal(report.tools[1].problem?.keyword, "x-\u001bbad");
  } finally {
    await server.close();
  }
});

Deno.test("sluice inspect usage errors exit 2", async () => {
  for (
    const argv of [
      ["inspect"],
      ["inspect", "a", "b"],
      ["inspect", "--stdio"],
      ["inspect", "https://x.example/mcp", "--", "cmd"],
      ["inspect", "--stdio", "--token", "t", "--", "cmd"],
      ["inspect", "https://x.example/mcp", "--bogus"],
      ["inspect", "https://x.example/mcp", "--timeout", "0"],
    ]
  ) {
    const run = await cli(argv);
    assert.equal(run.code, 2, argv.join(" "));
    assert.match(run.err, /usage: sluice inspect/);
  }
});

Deno.test("sluice inspect by name: the pinned connection is held for the whole inspection", async () => {
  const server = await startHttpServer();
  // A relay in front of the fixture counts the TCP connections the inspection opens.
  const relay = startCountingRelay(Number(server.url.port));
  try {
    const url = new URL(server.url);
    url.hostname = "localhost";
    url.port = String(relay.port);
    const run = await cli(["inspect", url.href, "--allow-loopback", "--json"]);
    assert.equal(run.code, 0, run.err);
    checkReport(JSON.parse(run.out) as InspectReport);
    assert.equal(relay.connections(), 1);
  } finally {
    await relay.close();
    await server.close();
  }
});
