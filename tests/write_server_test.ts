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
  receivedFor,
} from "../fixtures/write_ledger.ts";
import {
  READ_TOOL,
  type Scenario,
  SCENARIO_EXIT_CODE,
  SYNTHETIC_VALUE,
  WRITE_TOOL,
} from "../fixtures/write_server.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SERVER = new URL("../fixtures/write_server.ts", import.meta.url).pathname;
const SERVER_ARGS = ["run", "--quiet", "--allow-read", "--allow-write", "--allow-net=127.0.0.1"];

interface Workspace {
  root: string;
  dir: string;
  ledger: string;
}

async function workspace(): Promise<Workspace> {
  const root = await Deno.makeTempDir({ prefix: "sluice-writefix-" });
  const dir = `${root}/records`;
  await Deno.mkdir(dir);
  return { root, dir, ledger: `${root}/ledger.jsonl` };
}

async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/** Waits (bounded, 5 s) until no process with `pid` exists; false if it still does. */
async function processGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
      // A zombie has exited; only its parent's bookkeeping is left.
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return true;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
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
  extra: readonly string[] = [],
): Promise<StdioRun> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      ...SERVER_ARGS,
      SERVER,
      "--dir",
      ws.dir,
      "--ledger",
      ws.ledger,
      "--scenario",
      scenario,
      ...extra,
    ],
    cwd: ROOT,
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
    await Deno.remove(ws.root, { recursive: true });
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
    const digest = receivedFor(events, "k1")[0];
    assert.ok(digest.event === "received" && digest.valueDigest?.startsWith("sha256:"));
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
    await assert.rejects(
      write(run.client, "k3", SYNTHETIC_VALUE, 400),
      (error) => error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout,
    );
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

Deno.test("HTTP: success and a withheld answer on loopback; SIGTERM ends it", async () => {
  const ws = await workspace();
  const success = await workspace();
  const children: Deno.ChildProcess[] = [];
  try {
    for (const [space, scenario] of [[success, "success"], [ws, "lost-response"]] as const) {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          ...SERVER_ARGS,
          SERVER,
          "--transport",
          "http",
          "--dir",
          space.dir,
          "--ledger",
          space.ledger,
          "--scenario",
          scenario,
        ],
        cwd: ROOT,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      children.push(child);
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = "";
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
      }
      await reader.cancel();
      const url = buffered.split("\n")[0];
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

      const client = new Client({ name: "writefix-test", version: "1.0.0" }, {
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
        versionNegotiation: { mode: "auto" },
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        if (scenario === "success") {
          const result = await write(client, "h1", SYNTHETIC_VALUE) as CallToolResult;
          assert.deepEqual(result.structuredContent, { written: true, key: "h1", path: "h1" });
        } else {
          const abort = new AbortController();
          const pending = client.request(
            {
              method: "tools/call",
              params: { name: WRITE_TOOL, arguments: { key: "h2", value: SYNTHETIC_VALUE } },
            },
            { signal: abort.signal, timeout: 10_000 },
          );
          // Abort only once the ledger proves the server wrote and withheld the answer.
          for (let i = 0; i < 100; i++) {
            if (callTrail(await readLedger(space.ledger), "h2").includes("withheld")) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          abort.abort();
          await assert.rejects(pending);
        }
      } finally {
        await client.close();
      }
      child.kill("SIGTERM");
      const status = await child.status;
      assert.equal(status.code, 0);
      assert.ok(await processGone(child.pid));
    }
    const okEvents = await readLedger(success.ledger);
    assert.deepEqual(callTrail(okEvents, "h1"), ["received", "writing", "written", "responding"]);
    assertExiting(okEvents, "sigterm", 0);
    assert.deepEqual(await listDir(success.dir), ["h1"]);
    const lostEvents = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(lostEvents, "h2"), ["received", "writing", "written", "withheld"]);
    assertExiting(lostEvents, "sigterm", 0);
    assert.deepEqual(await listDir(ws.dir), ["h2"]);
  } finally {
    for (const child of children) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
      await child.status;
    }
    await Deno.remove(ws.root, { recursive: true });
    await Deno.remove(success.root, { recursive: true });
  }
});

Deno.test("refuses to start: missing dir, non-empty dir, ledger inside dir, bad scenario", async () => {
  const ws = await workspace();
  try {
    await Deno.writeTextFile(`${ws.root}/stray`, "x");
    const attempts: string[][] = [
      ["--dir", `${ws.root}/missing`, "--ledger", ws.ledger],
      ["--dir", ws.root, "--ledger", `${ws.dir}/../other-ledger.jsonl`],
      ["--dir", ws.dir, "--ledger", `${ws.dir}/ledger.jsonl`],
      ["--dir", ws.dir, "--ledger", ws.ledger, "--scenario", "sometimes"],
      ["--ledger", ws.ledger],
    ];
    for (const args of attempts) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [...SERVER_ARGS, SERVER, ...args],
        cwd: ROOT,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 2, args.join(" "));
      assert.match(new TextDecoder().decode(output.stderr), /^write_server: /);
    }
    // Nothing was started, so no ledger exists and the record dir is still empty.
    assert.deepEqual(await listDir(ws.root), ["records", "stray"]);
    assert.deepEqual(await listDir(ws.dir), []);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
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
    const refused = await new Deno.Command(Deno.execPath(), {
      args: [...SERVER_ARGS, SERVER, "--dir", ws.dir, "--ledger", ws.ledger],
      cwd: ROOT,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(refused.code, 2);
    const second = await startStdio(ws, "success", ["--reuse-dir"]);
    try {
      await write(second.client, "r2", SYNTHETIC_VALUE);
    } finally {
      await second.client.close();
    }
    assert.ok(await processGone(second.pid));
    const events = await readLedger(ws.ledger);
    assert.equal(new Set(events.map((e) => e.boot)).size, 2);
    assert.equal(events.filter((e) => e.event === "started").length, 2);
    assert.equal(events.filter((e) => e.event === "exiting").length, 2);
    assert.deepEqual(await listDir(ws.dir), ["r1", "r2"]);
  } finally {
    await Deno.remove(ws.root, { recursive: true });
  }
});

Deno.test("parseLedger ignores only an unterminated last fragment", () => {
  const line =
    '{"seq":1,"event":"exiting","time":"t","pid":1,"boot":"b","reason":"sigterm","code":0}';
  assert.equal(parseLedger(`${line}\n{"seq":2,"ev`).length, 1);
  assert.throws(() => parseLedger(`${line}\n{"seq":2,"ev\n`));
  assert.throws(() => parseLedger(`{"seq":1,"event":"nope","time":"t","pid":1,"boot":"b"}\n`));
});
