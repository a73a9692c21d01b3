// `sluice serve` over stdio: the one client on the pipe gets the same governed server as over
// HTTP (its allowlist, the gate, approvals); the connection ending lets calls in flight finish.
// In memory through the library, then as a real process: `sluice serve --stdio` launched by the
// v2 SDK's stdio client, as a desktop client launches it.
import assert from "node:assert/strict";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connectAll, MemoryApprovalStore } from "../../mod.ts";
import { serveOnTransport } from "../../src/serve/stdio.ts";
import type { ServeEvent } from "../../serve.ts";
import { PROJECT_ROOT } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { approveInFile, outcomeOf, startUpstreams, textOf } from "./setup.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { startClientRequestsServer } from "../../fixtures/client_requests_server.ts";

const validator = () => ({ jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });

Deno.test("serve stdio: one client over a linked transport, its allowlist, a read and a pending write", async () => {
  const upstreams = await startUpstreams();
  const store = new MemoryApprovalStore();
  const connection = await connectAll({
    servers: upstreams.servers,
    allow: ["docs.echo", "docs.add", "records.write_record"],
    preApproved: ["docs.echo", "docs.add"],
    store,
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true },
  });
  const events: ServeEvent[] = [];
  try {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = await serveOnTransport(connection.toolkit, {
      client: { name: "desktop", allow: ["docs__echo", "records__write_record"] },
      onEvent: (event) => events.push(event),
    }, serverSide);
    const client = new Client({ name: "desktop", version: "0" }, validator());
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["docs__echo", "records__write_record"]);
    assert.deepEqual(
      textOf(await client.callTool({ name: "docs__echo", arguments: { message: "s" } })),
      ["s"],
    );
    const hidden = await client.callTool({ name: "docs__add", arguments: { a: 1, b: 2 } });
    assert.equal(outcomeOf(hidden).errorCode, "unknown_tool");
    const pending = await client.callTool({
      name: "records__write_record",
      arguments: { key: "s1", value: VALUE },
    });
    assert.equal(outcomeOf(pending).errorCode, "approval_pending");
    const record = await store.get(outcomeOf(pending).approvalId as string);
    assert.equal(record?.runId, "serve:desktop:default");
    await client.close();
    await served.closed;
    assert.ok(events.every((event) => event.kind !== "refused" && event.client === "desktop"));
  } finally {
    await connection.close();
    await upstreams.close();
  }
});

Deno.test("sluice serve --stdio: launched by the v2 SDK's stdio client, a write approved in the store commits once", async () => {
  const upstreams = await startUpstreams();
  const { db, ws } = upstreams;
  const config = await upstreams.writeConfig({
    allow: ["docs.echo", "records.write_record"],
    preApproved: ["docs.echo"],
  });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--quiet",
      "cli.ts",
      "serve",
      "--stdio",
      "--client",
      "desktop",
      "--config",
      config,
      "--db",
      db,
      "--allow-loopback",
    ],
    cwd: PROJECT_ROOT,
    env: getDefaultEnvironment(),
    stderr: "pipe",
  });
  const stderr: string[] = [];
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr.push(new TextDecoder().decode(chunk)));
  const client = new Client({ name: "desktop", version: "0" }, validator());
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ["docs__echo", "records__write_record"]);
    const args = { key: "s2", value: VALUE };
    const pending = await client.callTool({ name: "records__write_record", arguments: args });
    const approvalId = outcomeOf(pending).approvalId as string;
    await approveInFile(db, approvalId);
    const done = await client.callTool({ name: "records__write_record", arguments: args });
    assert.equal(outcomeOf(done).effect, "committed", stderr.join(""));
    assert.equal(receivedFor(await readLedger(ws.ledger), "s2").length, 1);
  } finally {
    await client.close();
    await upstreams.close();
  }
  const lines = stderr.join("").split("\n").filter((line) => line.startsWith("{"));
  assert.ok(lines.map((line) => JSON.parse(line)).some((event) => event.client === "desktop"));
  assert.match(stderr.join(""), /sluice serve: 2 tools for desktop over stdio/);
});

Deno.test("sluice serve --stdio: an upstream's request for input reaches the launching client as elicitation/create; its answer reaches the upstream", async () => {
  const upstream = await startClientRequestsServer();
  const dir = await Deno.makeTempDir({ prefix: "sluice-serve-stdio-relay-" });
  const db = `${dir}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const config = `${dir}/serve.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      servers: [{ id: "up", url: upstream.url.href }],
      allow: ["up.ask"],
      preApproved: ["up.ask"],
      serve: {},
    }),
  );
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "cli.ts", "serve", "--stdio", "--client", "desktop"]
      .concat(["--config", config, "--db", db, "--allow-loopback"]),
    cwd: PROJECT_ROOT,
    env: getDefaultEnvironment(),
    stderr: "pipe",
  });
  const stderr: string[] = [];
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr.push(new TextDecoder().decode(chunk)));
  const asked: Record<string, unknown>[] = [];
  const client = new Client({ name: "desktop", version: "0" }, {
    ...validator(),
    versionNegotiation: { mode: "legacy" },
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params as Record<string, unknown>);
    return { action: "accept", content: { color: "blue" } } as never;
  });
  try {
    await client.connect(transport);
    await client.callTool({ name: "up__ask", arguments: {} });
    assert.equal(asked.length, 1, stderr.join(""));
    assert.equal(asked[0]!.mode, "form");
    const seen = await upstream.waitFor((event) => event.event === "answer");
    assert.deepEqual((seen.detail as { responses: unknown }).responses, {
      pick: { action: "accept", content: { color: "blue" } },
    });
  } finally {
    await client.close();
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});
