// What the real @modelcontextprotocol/server-everything (pinned in deno.json; a v1-SDK 2025
// server) asks of a connect() host over stdio, the command given to connect() itself: its
// long-running operation reports progress to onProgress, its elicitation form is judged by the
// schema profile and its URL elicitation shown to the host, its log messages reach onLog, and
// an aborted call reaches it as notifications/cancelled. Between sluice and the server runs a
// real tee process (fixtures/stdio_tee.ts) that logs every frame on the wire: the cancellation
// is seen leaving, and its effect in the server is seen too (the v1 SDK never answers a
// request it was told is cancelled, while the tool itself runs on to its last progress step).
// The tee's and the server's process ids are checked gone after close().
import assert from "node:assert/strict";
import {
  type CallOrigin,
  connect,
  type ConnectEvent,
  type ElicitationRequest,
  type SessionProgress,
} from "../../mod.ts";
import { processAlive, processGone } from "../../fixtures/process.ts";
import { assertFormDeclined, assertProgressSteps } from "../support/everything_asks.ts";
import { fixtureCommand, ROOT } from "../support/stdio_servers.ts";

/** One line of the tee's log. */
interface Frame {
  readonly to: "server" | "client";
  readonly message: Record<string, unknown>;
  /** Held back by the tee (`--drop`), never passed on. */
  readonly dropped?: boolean;
}

/** The tee's log: the server's pid and every frame so far, parsed. */
async function readTee(file: string): Promise<{ pid?: number; frames: Frame[] }> {
  const text = await Deno.readTextFile(file).catch(() => "");
  let pid: number | undefined;
  const frames: Frame[] = [];
  // Only complete lines: the tee may be writing the last one now.
  for (const line of text.split("\n").slice(0, -1)) {
    const entry = JSON.parse(line);
    if (typeof entry.pid === "number") pid = entry.pid;
    else if (entry.line !== "") {
      frames.push({ to: entry.to, message: JSON.parse(entry.line), dropped: entry.dropped });
    }
  }
  return { pid, frames };
}

/** Polls the tee's log until `test` holds for a frame (bounded: 10 s). */
async function frameWhere(file: string, test: (frame: Frame) => boolean): Promise<Frame> {
  for (let wait = 0; wait < 500; wait++) {
    const found = (await readTee(file)).frames.find(test);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("no such frame on the wire");
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let wait = 0; !test() && wait < 500; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.ok(test(), what);
}

/** server-everything over stdio, behind the tee logging to `file` (dropping `drop`). */
function everythingBehindTee(file: string, drop?: string) {
  return fixtureCommand("stdio_tee.ts", [
    file,
    ...(drop !== undefined ? ["--drop", drop] : []),
    Deno.execPath(),
    "run",
    "-A",
    `${ROOT}fixtures/server_everything.ts`,
    "stdio",
  ]);
}

/** Whether the server answered request `id` (a result or an error) by now. */
async function answered(file: string, id: unknown): Promise<boolean> {
  return (await readTee(file)).frames.some((frame) =>
    frame.to === "client" && frame.message.id === id &&
    ("result" in frame.message || "error" in frame.message)
  );
}

/** Waits until the server sent the progress step `step` of the request with `token`. */
function stepSent(file: string, token: unknown, step: number): Promise<Frame> {
  return frameWhere(file, (frame) => {
    const params = frame.message.params as { progressToken?: unknown; progress?: unknown };
    return frame.to === "client" && frame.message.method === "notifications/progress" &&
      params.progressToken === token && params.progress === step;
  });
}

const TOOLS = [
  "trigger-long-running-operation",
  "trigger-elicitation-request",
  "trigger-url-elicitation",
  "toggle-simulated-logging",
  "echo",
];

Deno.test("server-everything over stdio: progress to onProgress, elicitation, onLog, and an abort reaching it as a cancellation", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-tee-" });
  const tee = `${dir}/wire.jsonl`;
  const progress: [CallOrigin, SessionProgress][] = [];
  const asked: ElicitationRequest[] = [];
  const events: ConnectEvent[] = [];
  const logs: [string, string, string][] = [];
  const connection = await connect(
    everythingBehindTee(tee),
    {
      id: "everything",
      allow: TOOLS,
      preApproved: TOOLS,
      transport: { timeoutMs: 20_000 },
      elicit: (request) => {
        asked.push(request);
        return { action: request.kind === "url" ? "accept" : "decline" };
      },
      elicitationModes: ["form", "url"],
      onProgress: (call, step) => progress.push([call, step]),
      onLog: (server, level, message) => logs.push([server, level, message.text]),
      logLevel: "debug",
      onEvent: (event) => events.push(event),
    },
  );
  const teePid = connection.report().servers[0].stdio?.pid;
  let serverPid: number | undefined;
  try {
    serverPid = (await readTee(tee)).pid;
    assert.ok(teePid !== undefined && await processAlive(teePid), "the tee runs");
    assert.ok(serverPid !== undefined && await processAlive(serverPid), "the server runs");
    const report = connection.report();
    assert.equal(report.servers[0].era, "legacy");
    // The elicitation tools exist only for a client that declared the capability.
    assert.deepEqual(
      report.ready.map((tool) => tool.name).sort(),
      TOOLS.map((tool) => `everything__${tool}`).sort(),
    );
    const initialize = await frameWhere(tee, (frame) => frame.message.method === "initialize");
    assert.deepEqual(
      (initialize.message.params as { capabilities: unknown }).capabilities,
      { elicitation: { form: {}, url: {} } },
    );

    await assertProgressSteps(connection.toolkit, progress);
    await assertFormDeclined(connection.toolkit, asked, events);

    // URL mode: the URL is checked, shown to the host (never opened), the answer reaches it.
    const url = await connection.toolkit.call("everything__trigger-url-elicitation", {
      url: "https://consent.example.com/approve?x=1",
      elicitationId: "e-1",
    });
    assert.equal(url.errorCode, undefined);
    assert.equal(asked.length, 1);
    const [request] = asked;
    assert.equal(request.kind, "url");
    // stdio has no per-call stream: tied to the only call in flight, and marked so.
    assert.equal(request.via, "session_stream");
    if (request.kind === "url") {
      assert.equal(request.url.href, "https://consent.example.com/approve?x=1");
    }
    assert.match(url.text.join("\n"), /User completed the URL elicitation flow/);

    // Log messages: the server sends one at once when simulated logging starts.
    const toggled = await connection.toolkit.call("everything__toggle-simulated-logging", {});
    assert.equal(toggled.errorCode, undefined);
    await until(() => logs.length > 0, "a log message reached onLog");
    const [server, level, text] = logs[0];
    assert.equal(server, "everything");
    assert.match(level, /^(debug|info|notice|warning|error|critical|alert|emergency)$/);
    assert.match(text, /[Ll]evel.message/);
    assert.equal(JSON.stringify(toggled).includes("level message"), false);
    await connection.toolkit.call("everything__toggle-simulated-logging", {});

    // Cancellation: abort after the first step of a 30-step operation.
    const controller = new AbortController();
    const started = progress.length;
    const aborted = connection.toolkit.call("everything__trigger-long-running-operation", {
      duration: 3,
      steps: 30,
    }, { signal: controller.signal });
    await until(() => progress.length > started, "the long call reported progress");
    controller.abort();
    assert.equal((await aborted).errorCode, "mcp_aborted");
    const calls = (await readTee(tee)).frames.filter((frame) =>
      frame.to === "server" && frame.message.method === "tools/call" &&
      (frame.message.params as { name: string }).name === "trigger-long-running-operation"
    );
    assert.equal(calls.length, 2);
    const [first, second] = calls.map((frame) => frame.message);
    const cancelled = await frameWhere(
      tee,
      (frame) => frame.to === "server" && frame.message.method === "notifications/cancelled",
    );
    assert.equal((cancelled.message.params as { requestId: unknown }).requestId, second.id);
    // The tool runs on to its last step (it does not watch the signal) ...
    const token = (second.params as { _meta: { progressToken: unknown } })._meta.progressToken;
    await stepSent(tee, token, 30);
    // ... and a request sent after its last step is answered ...
    const echo = await connection.toolkit.call("everything__echo", { message: "after" });
    assert.equal(echo.errorCode, undefined);
    // ... while the cancelled request never is: the server heard the cancellation (the control
    // test below shows it answers when the notification is held back). The call that was not
    // cancelled was answered, as every request is.
    assert.equal(await answered(tee, first.id), true, "the call not aborted was answered");
    assert.equal(await answered(tee, second.id), false, "the cancelled call was never answered");
  } finally {
    await connection.close();
  }
  assert.ok(teePid !== undefined && await processGone(teePid), "the tee is gone");
  assert.ok(serverPid !== undefined && await processGone(serverPid), "the server is gone");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server-everything over stdio, control: with notifications/cancelled held back on the wire, the server does answer the aborted call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-tee-" });
  const tee = `${dir}/wire.jsonl`;
  const steps: number[] = [];
  const controller = new AbortController();
  const connection = await connect(everythingBehindTee(tee, "notifications/cancelled"), {
    id: "everything",
    allow: ["trigger-long-running-operation"],
    preApproved: ["trigger-long-running-operation"],
    transport: { timeoutMs: 20_000 },
    onProgress: (_call, step) => {
      steps.push(step.progress);
      controller.abort();
    },
  });
  const teePid = connection.report().servers[0].stdio?.pid;
  let serverPid: number | undefined;
  try {
    serverPid = (await readTee(tee)).pid;
    const envelope = await connection.toolkit.call("everything__trigger-long-running-operation", {
      duration: 1.5,
      steps: 15,
    }, { signal: controller.signal });
    assert.equal(envelope.errorCode, "mcp_aborted");
    assert.deepEqual(steps, [1], "nothing heard after the abort");
    const cancelled = await frameWhere(
      tee,
      (frame) => frame.message.method === "notifications/cancelled",
    );
    assert.equal(cancelled.dropped, true, "sluice sent it; the tee held it back");
    const call = await frameWhere(tee, (frame) => frame.message.method === "tools/call");
    const token = (call.message.params as { _meta: { progressToken: unknown } })._meta
      .progressToken;
    await stepSent(tee, token, 15);
    await frameWhere(tee, (frame) => frame.to === "client" && frame.message.id === call.message.id);
    assert.equal(await answered(tee, call.message.id), true, "answered: it never heard the cancel");
  } finally {
    await connection.close();
  }
  assert.ok(teePid !== undefined && await processGone(teePid), "the tee is gone");
  assert.ok(serverPid !== undefined && await processGone(serverPid), "the server is gone");
  await Deno.remove(dir, { recursive: true });
});
