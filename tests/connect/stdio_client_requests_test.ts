// What servers ask of a connect() host, over stdio: fixtures/client_requests_stdio.ts (the same
// server as client_requests_test.ts, on the official v2 server SDK, as a child process) in both
// eras: 2026-07-28 through `serveStdio` and 2025-11-25 (the server refuses `server/discover`).
// Elicitation (declared only with a handler, tied to its call, checked both ways),
// input_required rounds, progress, log messages, logLevel and cancellation, each proven by
// what the server itself recorded (it appends each event to a file), and session telemetry
// spans as over HTTP. Every test checks the server's process id gone after close().
import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import {
  type CallOrigin,
  connect,
  type ConnectEvent,
  type ConnectOptions,
  type ElicitationAnswer,
  type ElicitationRequest,
  type SessionProgress,
} from "../../mod.ts";
import type { SeenEvent } from "../../fixtures/client_requests_server.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";
import { processGone } from "../../fixtures/process.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";

type Era = "legacy" | "modern";
const ERAS: readonly Era[] = ["legacy", "modern"];
const TOOLS = ["slow", "slow_write", "ask", "ask_bad", "log_burst", "loop"];

/** What the server process recorded, read from its file. */
class Seen {
  constructor(readonly file: string) {}

  async all(): Promise<SeenEvent[]> {
    const text = await Deno.readTextFile(this.file).catch(() => "");
    // Only complete lines: the server may be writing the last one now.
    return text.split("\n").slice(0, -1).map((line) => JSON.parse(line));
  }

  /** Resolves once an event matching `test` was recorded (polls; throws after 5 s). */
  async waitFor(test: (event: SeenEvent) => boolean): Promise<SeenEvent> {
    for (let wait = 0; wait < 250; wait++) {
      const found = (await this.all()).find(test);
      if (found !== undefined) return found;
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error("the server never saw it");
  }
}

type Call = (
  tool: string,
  args?: Record<string, unknown>,
  extra?: { signal?: AbortSignal },
) => ReturnType<Awaited<ReturnType<typeof connect>>["toolkit"]["call"]>;

/** Runs `run` against the fixture over stdio in `era`, then checks its process is gone. */
async function withStdio(
  era: Era,
  options: Partial<ConnectOptions>,
  run: (seen: Seen, call: Call) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-asks-" });
  const seen = new Seen(`${dir}/seen.jsonl`);
  const args = era === "legacy" ? [seen.file, "legacy"] : [seen.file];
  const connection = await connect(fixtureCommand("client_requests_stdio.ts", args), {
    id: "asker",
    allow: [...TOOLS],
    preApproved: TOOLS.filter((tool) => tool !== "slow_write"),
    approve: () => true,
    transport: { timeoutMs: 20_000 },
    ...options,
  });
  const server = connection.report().servers[0];
  try {
    assert.equal(server.era, era === "legacy" ? "legacy" : "2026-07-28");
    const call: Call = (tool, args = {}, extra = {}) =>
      connection.toolkit.call(`asker__${tool}`, args, { runId: "run-1", callId: "c-1", ...extra });
    await run(seen, call);
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(await processGone(server.stdio!.pid!), "the server process is gone");
}

/** The answer the server got: 2025 records it whole, 2026-07-28 as the round's `pick` response. */
function sentAnswer(era: Era, seen: SeenEvent): unknown {
  return era === "legacy"
    ? seen.detail
    : (seen.detail as { responses: Record<string, unknown> }).responses.pick;
}

for (const era of ERAS) {
  Deno.test(`stdio elicitation (${era}): declared only with a handler; tied to its call; the checked answer reaches the server; a form outside the rules is declined`, async () => {
    await withStdio(era, {}, async (seen, call) => {
      await call("slow", { steps: 1, ms: 1 });
      const first = await seen.waitFor((event) => event.event === "call");
      assert.equal(
        (first.detail as { capabilities: Record<string, unknown> | null }).capabilities
          ?.elicitation,
        undefined,
      );
      if (era === "modern") {
        assert.equal((await call("loop")).errorCode, "mcp_input_required_unsupported");
      }
    });
    const asked: [ElicitationRequest, CallOrigin][] = [];
    const events: ConnectEvent[] = [];
    const answer = (request: ElicitationRequest): ElicitationAnswer =>
      request.kind === "form" && asked.length === 1
        ? { action: "accept", content: { ...request.defaults, count: 3 } }
        : { action: "accept", content: { color: "green" } };
    await withStdio(era, {
      elicit: (request, origin) => {
        asked.push([request, origin]);
        return answer(request);
      },
      onEvent: (event) => events.push(event),
    }, async (seen, call) => {
      assert.equal((await call("ask")).errorCode, undefined);
      const ask = await seen.waitFor((event) => event.event === "call" && event.tool === "ask");
      assert.deepEqual(
        (ask.detail as { capabilities: Record<string, unknown> }).capabilities.elicitation,
        { form: {} },
      );
      assert.equal(asked.length, 1);
      const [request, origin] = asked[0];
      assert.deepEqual(origin, {
        server: "asker",
        tool: "asker__ask",
        remoteTool: "ask",
        runId: "run-1",
        callId: "c-1",
      });
      // stdio has no reply stream per call: a 2025 request is tied to the only call in flight.
      assert.equal(request.via, era === "legacy" ? "session_stream" : "input_required");
      assert.deepEqual(request.message, {
        remote: true,
        text: "Which color?\\u{7}",
        truncated: false,
      });
      const sent = await seen.waitFor((event) => event.event === "answer");
      assert.deepEqual(sentAnswer(era, sent), {
        action: "accept",
        content: { color: "red", count: 3 },
      });
      if (era === "modern") assert.equal((sent.detail as { state: unknown }).state, "state-of-ask");
      // An answer outside the requested schema is never sent: the server gets `cancel`.
      await call("ask");
      const answers = (await seen.all()).filter((event) => event.event === "answer");
      assert.deepEqual(sentAnswer(era, answers[1]), { action: "cancel" });
      // A form outside the rules is declined without asking anyone.
      await call("ask_bad");
      const bad = await seen.waitFor((event) =>
        event.event === "answer" && event.tool === "ask_bad"
      );
      assert.deepEqual(sentAnswer(era, bad), { action: "decline" });
      assert.equal(asked.length, 2, "the bad form never reached the host");
      assert.deepEqual(
        events.filter((event) => event.kind === "elicitation").map((event) => event.errorCode),
        [undefined, "elicitation_answer_invalid", "elicitation_schema_unsupported"],
      );
    });
  });

  Deno.test(`stdio progress (${era}): a token only with onProgress; each step reaches onProgress with its call, escaped`, async () => {
    await withStdio(era, {}, async (seen, call) => {
      assert.equal((await call("slow", { steps: 2, ms: 5 })).errorCode, undefined);
      assert.equal((await seen.all()).some((event) => event.event === "progress_token"), false);
    });
    const heard: [CallOrigin, SessionProgress][] = [];
    await withStdio(era, {
      onProgress: (origin, progress) => heard.push([origin, progress]),
    }, async (seen, call) => {
      const envelope = await call("slow", { steps: 3, ms: 5 });
      assert.equal(envelope.errorCode, undefined);
      assert.ok((await seen.all()).some((event) => event.event === "progress_token"));
      assert.deepEqual(heard.map(([, progress]) => [progress.progress, progress.total]), [
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
      assert.equal(heard[0][0].callId, "c-1");
      assert.equal(heard[0][1].message?.text, "step \\u{1b}[31mred\\u{202e}");
      assert.equal(JSON.stringify(envelope).includes("step"), false);
    });
  });

  Deno.test(`stdio cancellation (${era}): an aborted call reaches the server as a cancellation; an aborted write stays unknown`, async () => {
    const controller = new AbortController();
    await withStdio(era, {
      onProgress: (_origin, progress) => {
        if (progress.progress === 2) controller.abort();
      },
    }, async (seen, call) => {
      const envelope = await call("slow", { steps: 50, ms: 30 }, { signal: controller.signal });
      assert.equal(envelope.errorCode, "mcp_aborted");
      const cancelled = await seen.waitFor((event) => event.event === "cancelled");
      assert.equal(cancelled.tool, "slow");
      assert.ok((cancelled.detail as { step: number }).step <= 5);
      assert.equal((await seen.all()).some((event) => event.event === "completed"), false);
    });
    const write = new AbortController();
    await withStdio(era, {
      onProgress: (_origin, progress) => {
        if (progress.progress === 1) write.abort();
      },
    }, async (seen, call) => {
      const envelope = await call("slow_write", { steps: 50, ms: 30 }, { signal: write.signal });
      assert.equal(envelope.errorCode, "mcp_aborted");
      assert.equal((envelope as { effect?: string }).effect, "unknown");
      await seen.waitFor((event) => event.event === "cancelled" && event.tool === "slow_write");
    });
  });

  Deno.test(`stdio logs (${era}): onLog hears each message, bounded and escaped; logLevel drops what is below it`, async () => {
    const heard: [string, string, string, boolean][] = [];
    await withStdio(era, {
      onLog: (server, level, message) =>
        heard.push([server, level, message.text, message.truncated]),
    }, async (_seen, call) => {
      const envelope = await call("log_burst", { count: 50 });
      assert.equal(envelope.errorCode, undefined);
      for (let wait = 0; heard.length < 50 && wait < 100; wait++) {
        await new Promise((done) => setTimeout(done, 20));
      }
      assert.equal(heard.length, 50);
      const [server, level, text, truncated] = heard[0];
      assert.deepEqual([server, level, truncated], ["asker", "warning", true]);
      assert.ok(text.startsWith("line 0\\u{1b}]0;title\\u{7}xxx"));
      assert.ok(text.length <= 2_000 + 16);
      assert.equal(JSON.stringify(envelope).includes("line"), false);
    });
    const above: string[] = [];
    await withStdio(era, {
      onLog: (_server, level) => above.push(level),
      logLevel: "error",
    }, async (_seen, call) => {
      assert.equal((await call("log_burst", { count: 5 })).errorCode, undefined);
      // A round trip after the burst: any message of it would have arrived before this answer.
      assert.equal((await call("slow", { steps: 1, ms: 1 })).errorCode, undefined);
      assert.deepEqual(above, [], "warnings are below error");
    });
  });
}

Deno.test("stdio elicitation (legacy): with two calls in flight a request cannot be tied to one, and is declined", async () => {
  const asked: ElicitationRequest[] = [];
  await withStdio("legacy", {
    elicit: (request) => {
      asked.push(request);
      return { action: "decline" };
    },
  }, async (seen, call) => {
    const slow = call("slow", { steps: 20, ms: 20 });
    await seen.waitFor((event) => event.event === "call" && event.tool === "slow");
    await call("ask");
    await slow;
    assert.equal(asked.length, 0);
    const answer = await seen.waitFor((event) => event.event === "answer");
    assert.deepEqual(answer.detail, { action: "decline" });
  });
});

Deno.test("stdio telemetry: the handshake and tools/list are traced as session spans over a pipe", async () => {
  for (const era of ERAS) {
    const sdk = startOtelSdk();
    await withStdio(era, { telemetry: sdk.telemetry }, async (_seen, call) => {
      assert.equal((await call("slow", { steps: 1, ms: 1 })).errorCode, undefined);
    });
    const client = sdk.spans().filter((span) => span.kind === SpanKind.CLIENT);
    const names = client.map((span) => span.name);
    assert.ok(
      names.includes(era === "legacy" ? "initialize" : "server/discover"),
      `${era}: ${names}`,
    );
    const [list] = client.filter((span) => span.name === "tools/list");
    assert.ok(list !== undefined, `${era}: tools/list is traced`);
    assert.equal(list.attributes["sluice.server.id"], "asker");
    assert.equal(list.attributes["network.transport"], "pipe");
    assert.equal(list.attributes["network.protocol.name"], undefined);
    assert.equal(
      list.attributes["mcp.protocol.version"],
      era === "legacy" ? "2025-11-25" : "2026-07-28",
    );
    await sdk.shutdown();
  }
});
