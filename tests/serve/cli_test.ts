// `sluice serve` from the command line, in process: a JSON config with tokens from the
// environment, a libSQL store file, the read and write fixtures upstream and the v2 SDK client
// downstream. A write waits; a person approves it in the same store (as `sluice approvals
// approve` does); the retried call commits once. The audit lines name the client; the stop
// signal ends the command with 0. A config it does not understand is refused before listening.
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { createWriteWorkspace } from "../../fixtures/write_server_launch.ts";
import { runServeCli, type ServeCliOptions } from "../../src/cli/serve.ts";
import { listenOnLoopback } from "../../src/cli/serve_node.ts";
import { openCliStore } from "../../src/cli/store.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { approveInFile, connectClient, IDE_TOKEN, outcomeOf, startUpstreams } from "./setup.ts";

function cliOptions(
  env: Record<string, string>,
  stop: Promise<void>,
  asked: { stopped: boolean } = { stopped: false },
): ServeCliOptions {
  return {
    openStore: (url, options) => openCliStore(url, options),
    env: (name) => env[name],
    listen: (handler, address) =>
      listenOnLoopback(handler, address, { code: "cli_serve_listen_failed", stopOnSignals: false }),
    stopped: () => {
      asked.stopped = true;
      return stop;
    },
  };
}

Deno.test("sluice serve: config file, store file, a write approved in the store commits once", async () => {
  const upstreams = await startUpstreams();
  const { db, ws } = upstreams;
  const config = await upstreams.writeConfig({
    allow: ["docs.echo", "records.write_record"],
    preApproved: ["docs.echo"],
    serve: {
      clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }],
      limits: { maxConcurrentCalls: 4 },
    },
  });
  const out: string[] = [];
  const err: string[] = [];
  const { promise: stop, resolve: stopNow } = Promise.withResolvers<void>();
  // Whether the stop signal was listened for when the command said where it listens: a
  // supervisor may send SIGTERM as soon as it reads that line.
  const asked = { stopped: false };
  let heardBeforeReady: boolean | undefined;
  const run = runServeCli(
    ["--config", config, "--db", db, "--port", "0", "--allow-loopback"],
    {
      stdout: (text) => {
        if (text.startsWith("sluice serve:")) heardBeforeReady ??= asked.stopped;
        out.push(text);
      },
      stderr: (text) => err.push(text),
    },
    cliOptions({ IDE_TOKEN }, stop, asked),
  );
  try {
    let url: URL | undefined;
    for (let i = 0; i < 200 && url === undefined; i++) {
      const line = out.find((text) => text.startsWith("sluice serve:"));
      const match = line === undefined ? null : /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line);
      if (match) url = new URL(match[1]);
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(url, `the command printed its URL (stderr: ${err.join("")})`);
    assert.match(out.find((text) => text.startsWith("sluice serve:"))!, /2 tools for 1 clients/);
    assert.equal(heardBeforeReady, true, "the stop signal is listened for before the URL line");
    const client = await connectClient(url, IDE_TOKEN);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["docs__echo", "records__write_record"]);
      const args = { key: "cli1", value: VALUE };
      const pending = await client.callTool({ name: "records__write_record", arguments: args });
      const approvalId = outcomeOf(pending).approvalId as string;
      assert.equal(outcomeOf(pending).errorCode, "approval_pending");
      await approveInFile(db, approvalId);
      const done = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(done).effect, "committed");
      assert.equal(receivedFor(await readLedger(ws.ledger), "cli1").length, 1);
    } finally {
      await client.close();
    }
    stopNow();
    assert.equal(await run, 0);
    const events = out.filter((text) => text.startsWith("{")).map((text) => JSON.parse(text));
    const calls = events.filter((event) => event.kind === "call");
    assert.equal(calls.length, 2);
    assert.ok(calls.every((event) => event.client === "ide"));
    assert.ok(!out.join("").includes(IDE_TOKEN), "the token is never printed");
  } finally {
    stopNow();
    await run.catch(() => {});
    await upstreams.close();
  }
});

Deno.test("sluice serve: a config it does not understand is refused with its code, nothing served", async () => {
  const ws = await createWriteWorkspace();
  try {
    const db = `${ws.root}/approvals.db`;
    await (await LibsqlApprovalStore.open(db)).close();
    const cases: [unknown, RegExp][] = [
      [
        { servers: [], allow: [], serve: { clients: [] }, extra: 1 },
        /cli_serve_config_invalid: .*"extra"/,
      ],
      [
        { servers: [], allow: [], serve: { clients: [{ name: "a", tokenEnv: "UNSET" }] } },
        /cli_serve_config_invalid: .*UNSET, which is not set/,
      ],
      [
        { servers: [], allow: [], serve: { clients: [{ name: "a", token: "short" }] } },
        /serve_config_invalid/,
      ],
    ];
    for (const [body, expected] of cases) {
      const config = `${ws.root}/serve.json`;
      await Deno.writeTextFile(config, JSON.stringify(body));
      const err: string[] = [];
      let listened = false;
      const options = cliOptions({}, Promise.resolve());
      const code = await runServeCli(["--config", config, "--db", db], {
        stdout: () => {},
        stderr: (text) => err.push(text),
      }, {
        ...options,
        listen: (handler, address) => {
          listened = true;
          return options.listen(handler, address);
        },
      });
      assert.equal(code, 1, err.join(""));
      assert.match(err.join(""), expected);
      assert.equal(listened, false);
    }
    const usage: string[] = [];
    assert.equal(
      await runServeCli(
        ["--db", db],
        { stdout: () => {}, stderr: (t) => usage.push(t) },
        cliOptions({}, Promise.resolve()),
      ),
      2,
    );
    assert.match(usage.join(""), /--config is required/);
  } finally {
    await ws.remove();
  }
});

Deno.test("sluice serve --inbox: the inbox on the same server; a person approves there, the retried call commits once", async () => {
  const upstreams = await startUpstreams();
  const { db, ws } = upstreams;
  const config = await upstreams.writeConfig({
    allow: ["records.write_record"],
    serve: { clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }] },
  });
  const out: string[] = [];
  const err: string[] = [];
  const { promise: stop, resolve: stopNow } = Promise.withResolvers<void>();
  const run = runServeCli(
    ["--config", config, "--db", db, "--port", "0", "--allow-loopback", "--inbox", "--as", "carol"],
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    cliOptions({ IDE_TOKEN }, stop),
  );
  try {
    for (let i = 0; i < 400 && !out.join("").includes("sign in:"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const link = /sign in: (\S+)/.exec(out.join(""))?.[1];
    assert.ok(link, `the command printed the inbox link (stderr: ${err.join("")})`);
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/inbox\/login\?token=/);
    const origin = new URL(link).origin;
    const client = await connectClient(new URL("/mcp", origin), IDE_TOKEN);
    const args = { key: "cli-inbox", value: VALUE };
    try {
      const pending = await client.callTool({ name: "records__write_record", arguments: args });
      const approvalId = outcomeOf(pending).approvalId as string;
      // The inbox answers only a signed-in person; the MCP endpoint's token does not open it.
      const anonymous = await fetch(`${origin}/inbox/`, {
        headers: { authorization: `Bearer ${IDE_TOKEN}` },
      });
      assert.match(await anonymous.text(), /inbox_unauthorized/);
      const exchange = await fetch(link, { redirect: "manual" });
      await exchange.body?.cancel();
      const cookie = exchange.headers.get("set-cookie")!.split(";")[0];
      const page = await (await fetch(`${origin}/inbox/approvals/${approvalId}`, {
        headers: { cookie },
      })).text();
      const token = /name="token" value="([^"]+)"/.exec(page)![1];
      const version = /name="version" value="([^"]+)"/.exec(page)![1];
      const decided = await fetch(`${origin}/inbox/approvals/${approvalId}/decide`, {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, version, decision: "approve" }),
      });
      assert.match(await decided.text(), /Approved by carol/);
      const done = await client.callTool({ name: "records__write_record", arguments: args });
      assert.equal(outcomeOf(done).effect, "committed");
      assert.equal(receivedFor(await readLedger(ws.ledger), "cli-inbox").length, 1);
    } finally {
      await client.close();
    }
    stopNow();
    assert.equal(await run, 0);
  } finally {
    stopNow();
    await run.catch(() => {});
    await upstreams.close();
  }
});
