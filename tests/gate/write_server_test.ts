/**
 * The independent write fixture (`fixtures/write_server.ts`), run as a real separate process
 * per scenario and driven by the official v2 client. Each test checks what the server did from
 * its own fsync'd ledger and the record directory, never from the client's view alone, and
 * that the server process is gone afterwards.
 */
import assert from "node:assert/strict";
import {
  type CallToolResult,
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import {
  callTrail,
  type LedgerEvent,
  parseLedger,
  readLedger,
  receivedCounts,
  receivedFor,
} from "../../fixtures/write_ledger.ts";
import {
  createWriteWorkspace as workspace,
  type HttpWriteServer,
  type LaunchOptions,
  processGone,
  PROJECT_ROOT as ROOT,
  startWriteServerHttp,
  writeServerArgs,
  writeServerStdioParams,
  type WriteWorkspace as Workspace,
} from "../../fixtures/write_server_launch.ts";
import {
  READ_TOOL,
  type Scenario,
  SCENARIO_EXIT_CODE,
  SYNTHETIC_VALUE,
  WRITE_TOOL,
} from "../../fixtures/write_server.ts";

async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

function newClient(): Client {
  return new Client({ name: "writefix-test", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
}

interface StdioRun {
  client: Client;
  pid: number;
  /** Resolves when the client saw the connection close (e.g. the server exited). */
  closed: Promise<void>;
}

async function startStdio(
  ws: Workspace,
  scenario: Scenario,
  options: LaunchOptions = {},
): Promise<StdioRun> {
  const transport = new StdioClientTransport({
    ...writeServerStdioParams(ws, scenario, options),
    env: { ...getDefaultEnvironment(), NO_COLOR: "1" },
    stderr: "inherit",
  });
  const client = newClient();
  const closed = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null && pid > 0);
  return { client, pid, closed };
}

function write(client: Client, key: string, value: string, timeout = 10_000) {
  return client.request(
    { method: "tools/call", params: { name: WRITE_TOOL, arguments: { key, value } } },
    { timeout },
  );
}

function lastEvent(events: readonly LedgerEvent[]): LedgerEvent {
  const last = events.at(-1);
  assert.ok(last !== undefined, "ledger is empty");
  return last;
}

function assertExiting(events: readonly LedgerEvent[], reason: string, code: number): void {
  const last = lastEvent(events);
  assert.equal(last.event, "exiting");
  if (last.event === "exiting") {
    assert.equal(last.reason, reason);
    assert.equal(last.code, code);
  }
}

/** Runs one stdio scenario; `body` gets the live client. Always closes and removes the temp dir. */
async function stdioCase(
  scenario: Scenario,
  body: (run: StdioRun, ws: Workspace) => Promise<void>,
): Promise<void> {
  const ws = await workspace();
  let run: StdioRun | undefined;
  try {
    run = await startStdio(ws, scenario);
    await body(run, ws);
  } finally {
    await run?.client.close();
    await ws.remove();
  }
}

Deno.test("success: writes the record once, answers, and exits when stdin closes", async () => {
  await stdioCase("success", async (run, ws) => {
    const result = await write(run.client, "k1", SYNTHETIC_VALUE) as CallToolResult;
    assert.notEqual(result.isError, true);
    assert.deepEqual(result.structuredContent, { written: true, key: "k1", path: "k1" });
    assert.deepEqual(await listDir(ws.dir), ["k1"]);
    assert.equal(await Deno.readTextFile(`${ws.dir}/k1`), SYNTHETIC_VALUE);

    // The same key again is refused by the server and the record is untouched.
    const again = await write(run.client, "k1", SYNTHETIC_VALUE) as CallToolResult;
    assert.equal(again.isError, true);

    // The read tool sees the record and is not subject to the scenario.
    const read = await run.client.request({
      method: "tools/call",
      params: { name: READ_TOOL, arguments: { key: "k1" } },
    }) as CallToolResult;
    assert.deepEqual(read.structuredContent, { found: true, value: SYNTHETIC_VALUE });

    await run.client.close();
    assert.ok(await processGone(run.pid), "server still running after stdin closed");
    const events = await readLedger(ws.ledger);
    assert.equal(events[0].event, "started");
    assert.deepEqual(callTrail(events.filter((e) => "tool" in e && e.tool === WRITE_TOOL), "k1"), [
      "received",
      "writing",
      "written",
      "responding",
      "received",
      "writing",
      "rejected",
    ]);
    assert.equal(receivedFor(events, "k1").length, 2);
    assert.equal(events.filter((e) => e.event === "written").length, 1);
    const expectedDigest = "sha256:" + Array.from(
      new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(SYNTHETIC_VALUE)),
      ),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    const received = receivedFor(events, "k1")[0];
    assert.ok(received.event === "received" && received.valueDigest === expectedDigest);
    assertExiting(events, "stdin_closed", 0);
    assert.equal(new Set(events.map((e) => e.pid)).size, 1);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assert.equal(await Deno.readTextFile(`${ws.dir}/k1`), SYNTHETIC_VALUE);
  });
});

Deno.test("wrong value, malformed key or extra argument: isError and nothing written", async () => {
  await stdioCase("success", async (run, ws) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ key: "k2", value: "sluice-synthetic-v2" }, "value"],
      [{ key: "k2", value: "" }, "value"],
      [{ key: "../k2", value: SYNTHETIC_VALUE }, "arguments"],
      [{ key: "k2", value: SYNTHETIC_VALUE, extra: 1 }, "arguments"],
      [{ key: "k2" }, "arguments"],
    ];
    for (const [args] of cases) {
      const result = await run.client.request({
        method: "tools/call",
        params: { name: WRITE_TOOL, arguments: args },
      }) as CallToolResult;
      assert.equal(result.isError, true, JSON.stringify(args));
    }
    await assert.rejects(
      run.client.request({ method: "tools/call", params: { name: "no_such_tool", arguments: {} } }),
      (error) => error instanceof ProtocolError,
    );
    assert.deepEqual(await listDir(ws.dir), []);
    assert.deepEqual(await listDir(ws.root), ["ledger.jsonl", "records"]);
    const events = await readLedger(ws.ledger);
    const rejected = events.filter((e) => e.event === "rejected");
    assert.deepEqual(
      rejected.map((e) => e.event === "rejected" ? e.reason : ""),
      [...cases.map(([, reason]) => reason), "unknown_tool"],
    );
    assert.equal(events.filter((e) => e.event === "writing" || e.event === "written").length, 0);
  });
});

Deno.test("lost-response: writes, never answers; the client times out; exits on close", async () => {
  await stdioCase("lost-response", async (run, ws) => {
    const settled = write(run.client, "k3", SYNTHETIC_VALUE, 400).then(
      () => null,
      (error: unknown) => error,
    );
    // The client's deadline can pass before a slow server has written; wait for its ledger.
    await awaitLedger(ws.ledger, "k3", "withheld");
    const error = await settled;
    assert.ok(error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
    assert.deepEqual(await listDir(ws.dir), ["k3"]);
    await run.client.close();
    assert.ok(await processGone(run.pid));
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "k3"), ["received", "writing", "written", "withheld"]);
    assert.equal(events.filter((e) => e.event === "responding").length, 0);
    assertExiting(events, "stdin_closed", 0);
  });
});

Deno.test("exit-before-write: ledgers received, exits 3, writes nothing", async () => {
  await stdioCase("exit-before-write", async (run, ws) => {
    await assert.rejects(write(run.client, "k4", SYNTHETIC_VALUE));
    await run.closed;
    assert.ok(await processGone(run.pid));
    assert.deepEqual(await listDir(ws.dir), []);
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "k4"), ["received"]);
    assertExiting(events, "scenario", SCENARIO_EXIT_CODE);
  });
});

Deno.test("exit-after-write: writes, exits 3 without answering", async () => {
  await stdioCase("exit-after-write", async (run, ws) => {
    await assert.rejects(
      write(run.client, "k5", SYNTHETIC_VALUE),
      (error) => !(error instanceof ProtocolError),
    );
    await run.closed;
    assert.ok(await processGone(run.pid));
    assert.deepEqual(await listDir(ws.dir), ["k5"]);
    assert.equal(await Deno.readTextFile(`${ws.dir}/k5`), SYNTHETIC_VALUE);
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "k5"), ["received", "writing", "written"]);
    assertExiting(events, "scenario", SCENARIO_EXIT_CODE);
  });
});

Deno.test("error-after-write: writes, then answers with a JSON-RPC error", async () => {
  await stdioCase("error-after-write", async (run, ws) => {
    await assert.rejects(
      write(run.client, "k6", SYNTHETIC_VALUE),
      (error) => error instanceof ProtocolError && error.code === -32603,
    );
    assert.deepEqual(await listDir(ws.dir), ["k6"]);
    await run.client.close();
    assert.ok(await processGone(run.pid));
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "k6"), ["received", "writing", "written", "responding"]);
    const responding = events.find((e) => e.event === "responding");
    assert.ok(responding?.event === "responding" && responding.response === "jsonrpc_error");
    assertExiting(events, "stdin_closed", 0);
  });
});

Deno.test("iserror-after-write: writes, then answers with an isError result", async () => {
  await stdioCase("iserror-after-write", async (run, ws) => {
    const result = await write(run.client, "k7", SYNTHETIC_VALUE) as CallToolResult;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    assert.deepEqual(await listDir(ws.dir), ["k7"]);
    await run.client.close();
    assert.ok(await processGone(run.pid));
    const events = await readLedger(ws.ledger);
    const responding = events.find((e) => e.event === "responding");
    assert.ok(responding?.event === "responding" && responding.response === "is_error");
    assertExiting(events, "stdin_closed", 0);
  });
});

async function connectHttp(url: string): Promise<Client> {
  const client = new Client({ name: "writefix-test", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Polls the ledger (bounded, 5 s) until `key`'s trail contains `event`. */
/** Starts an HTTP write server in a fresh workspace for `body`; stops and removes both after. */
async function withHttpServer(
  scenario: Scenario,
  options: LaunchOptions | undefined,
  body: (ws: Workspace, server: HttpWriteServer) => Promise<void>,
): Promise<void> {
  const ws = await workspace();
  let server: HttpWriteServer | undefined;
  try {
    server = await startWriteServerHttp(ws, scenario, options);
    await body(ws, server);
  } finally {
    await server?.stop();
    await ws.remove();
  }
}

async function awaitLedger(ledger: string, key: string, event: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((callTrail(await readLedger(ledger), key) as string[]).includes(event)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`ledger never showed ${event} for ${key}`);
}

Deno.test("HTTP success on loopback (2026-07-28); SIGTERM ends it with exit 0", async () => {
  await withHttpServer("success", undefined, async (ws, server) => {
    const client = await connectHttp(server.url);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const result = await write(client, "h1", SYNTHETIC_VALUE) as CallToolResult;
      assert.deepEqual(result.structuredContent, { written: true, key: "h1", path: "h1" });
    } finally {
      await client.close();
    }
    assert.equal((await server.stop()).code, 0);
    assert.ok(await processGone(server.pid));
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "h1"), ["received", "writing", "written", "responding"]);
    assertExiting(events, "sigterm", 0);
    assert.deepEqual(await listDir(ws.dir), ["h1"]);
  });
});

Deno.test("HTTP lost-response: the request hangs until aborted; SIGTERM still exits", async () => {
  await withHttpServer("lost-response", undefined, async (ws, server) => {
    const client = await connectHttp(server.url);
    try {
      const abort = new AbortController();
      const pending = client.request(
        {
          method: "tools/call",
          params: { name: WRITE_TOOL, arguments: { key: "h2", value: SYNTHETIC_VALUE } },
        },
        { signal: abort.signal, timeout: 10_000 },
      );
      // Abort only once the server's own ledger proves it wrote and withheld the answer.
      await awaitLedger(ws.ledger, "h2", "withheld");
      abort.abort();
      await assert.rejects(pending);
    } finally {
      await client.close();
    }
    assert.equal((await server.stop()).code, 0);
    assert.ok(await processGone(server.pid));
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "h2"), ["received", "writing", "written", "withheld"]);
    assertExiting(events, "sigterm", 0);
    assert.deepEqual(await listDir(ws.dir), ["h2"]);
  });
});

Deno.test("HTTP --exit-with-stdin: closing the server's stdin ends it", async () => {
  await withHttpServer("success", { exitWithStdin: true }, async (ws, server) => {
    const client = await connectHttp(server.url);
    try {
      await write(client, "h3", SYNTHETIC_VALUE);
    } finally {
      await client.close();
    }
    assert.ok(server.child.stdin !== null);
    await server.child.stdin.close();
    assert.equal((await server.child.status).code, 0);
    assert.ok(await processGone(server.pid));
    const events = await readLedger(ws.ledger);
    assertExiting(events, "stdin_closed", 0);
    assert.deepEqual(await listDir(ws.dir), ["h3"]);
  });
});

async function runRefused(args: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
}

Deno.test("refuses to start: missing dir, non-empty dir, ledger inside dir, bad options", async () => {
  const ws = await workspace();
  try {
    await Deno.writeTextFile(`${ws.root}/stray`, "x");
    const good = writeServerArgs(ws, "stdio", "success");
    const replace = (flag: string, value: string) =>
      good.map((arg, i) => good[i - 1] === flag ? value : arg);
    const attempts: Array<[string[], RegExp]> = [
      [replace("--dir", `${ws.root}/missing`), /--dir does not exist/],
      [replace("--dir", ws.root), /--dir is not empty/], // holds records/ and stray
      [replace("--ledger", `${ws.dir}/ledger.jsonl`), /--ledger must lie outside --dir/],
      [replace("--ledger", `${ws.root}/no/ledger.jsonl`), /--ledger's directory does not exist/],
      [replace("--scenario", "sometimes"), /--scenario must be one of/],
      [replace("--transport", "sse"), /--transport must be stdio or http/],
      [good.filter((arg, i) => arg !== "--dir" && good[i - 1] !== "--dir"), /--dir is required/],
      [[...good, "--surprise"], /unknown argument/],
    ];
    for (const [args, reason] of attempts) {
      const output = await runRefused(args);
      assert.equal(output.code, 2, args.join(" "));
      assert.match(new TextDecoder().decode(output.stderr), reason);
    }
    // Nothing started, so no ledger exists and the record dir is still empty.
    assert.deepEqual(await listDir(ws.root), ["records", "stray"]);
    assert.deepEqual(await listDir(ws.dir), []);
  } finally {
    await ws.remove();
  }
});

Deno.test("--reuse-dir continues an existing dir and ledger under a new boot id", async () => {
  const ws = await workspace();
  try {
    const first = await startStdio(ws, "success");
    try {
      await write(first.client, "r1", SYNTHETIC_VALUE);
    } finally {
      await first.client.close();
    }
    assert.ok(await processGone(first.pid));
    // Without the flag the now non-empty dir is refused.
    assert.equal((await runRefused(writeServerArgs(ws, "stdio", "success"))).code, 2);
    const second = await startStdio(ws, "success", { reuseDir: true });
    try {
      // r1 is already there: the second server refuses to write it again.
      const again = await write(second.client, "r1", SYNTHETIC_VALUE) as CallToolResult;
      assert.equal(again.isError, true);
      await write(second.client, "r2", SYNTHETIC_VALUE);
    } finally {
      await second.client.close();
    }
    assert.ok(await processGone(second.pid));
    const events = await readLedger(ws.ledger);
    assert.equal(new Set(events.map((e) => e.boot)).size, 2);
    assert.equal(events.filter((e) => e.event === "started").length, 2);
    assert.equal(events.filter((e) => e.event === "exiting").length, 2);
    assert.deepEqual(Object.fromEntries(receivedCounts(events)), { r1: 2, r2: 1 });
    assert.equal(events.filter((e) => e.event === "written" && e.key === "r1").length, 1);
    assert.deepEqual(await listDir(ws.dir), ["r1", "r2"]);
  } finally {
    await ws.remove();
  }
});

Deno.test("a stdio server whose host is SIGKILLed mid-call exits on its own", async () => {
  const ws = await workspace();
  const host = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "-A",
      new URL("../../fixtures/write_host_stub.ts", import.meta.url).pathname,
      ws.dir,
      ws.ledger,
      "lost-response",
      "s1",
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await awaitLedger(ws.ledger, "s1", "withheld");
    const started = (await readLedger(ws.ledger)).find((e) => e.event === "started");
    assert.ok(started !== undefined);
    host.kill("SIGKILL");
    assert.equal((await host.status).signal, "SIGKILL");
    // The server is the killed host's child: its stdin hits end of file and it must exit.
    assert.ok(await processGone(started.pid), "orphaned server kept running");
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, "s1"), ["received", "writing", "written", "withheld"]);
    assertExiting(events, "stdin_closed", 0);
    assert.deepEqual(await listDir(ws.dir), ["s1"]);
  } finally {
    try {
      host.kill("SIGKILL");
    } catch {
      // already dead
    }
    await host.status;
    await ws.remove();
  }
});

Deno.test("parseLedger ignores only an unterminated last fragment", () => {
  const line =
    '{"seq":1,"event":"exiting","time":"t","pid":1,"boot":"b","reason":"sigterm","code":0}';
  assert.equal(parseLedger(`${line}\n{"seq":2,"ev`).length, 1);
  assert.throws(() => parseLedger(`${line}\n{"seq":2,"ev\n`));
  assert.throws(() => parseLedger(`{"seq":1,"event":"nope","time":"t","pid":1,"boot":"b"}\n`));
});
