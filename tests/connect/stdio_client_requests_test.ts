// What servers ask of a connect() host, over stdio: fixtures/client_requests_stdio.ts (the same
// server as client_requests_test.ts, on the official v2 server SDK, as a child process) in both
// eras: 2026-07-28 through `serveStdio` and 2025-11-25 (the server refuses `server/discover`).
// The shared suite (tests/support/client_requests_suite.ts: elicitation declared only with a
// handler, tied to its call, checked both ways; input_required rounds; progress; log messages
// and logLevel; cancellation; an aborted write staying unknown), proven by what the server
// itself recorded (it appends each event to a file); then what stdio does its own way, and the
// session's telemetry spans. Every test checks the server's process id gone after close().
import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import { connect, type ConnectOptions, type ElicitationRequest } from "../../mod.ts";
import type { SeenEvent } from "../../fixtures/client_requests_server.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";
import { processGone } from "../../fixtures/process.ts";
import {
  type AskedServer,
  type Call,
  clientRequestsSuite,
  type Era,
  ERAS,
  TOOLS,
} from "../support/client_requests_suite.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";

/** What the server process recorded, read from its file. */
function recorded(file: string): AskedServer {
  const seen = async (): Promise<SeenEvent[]> => {
    const text = await Deno.readTextFile(file).catch(() => "");
    // Only complete lines: the server may be writing the last one now.
    return text.split("\n").slice(0, -1).map((line) => JSON.parse(line));
  };
  return {
    seen,
    async waitFor(test) {
      for (let wait = 0; wait < 250; wait++) {
        const found = (await seen()).find(test);
        if (found !== undefined) return found;
        await new Promise((done) => setTimeout(done, 20));
      }
      throw new Error("the server never saw it");
    },
  };
}

/** Runs `run` against the fixture over stdio in `era`, then checks its process is gone. */
async function withStdio(
  era: Era,
  options: Partial<ConnectOptions>,
  run: (server: AskedServer, call: Call) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-asks-" });
  const file = `${dir}/seen.jsonl`;
  const args = era === "legacy" ? [file, "legacy"] : [file];
  const connection = await connect(fixtureCommand("client_requests_stdio.ts", args), {
    id: "asker",
    allow: [...TOOLS],
    preApproved: [...TOOLS],
    transport: { timeoutMs: 20_000 },
    ...options,
  });
  const server = connection.report().servers[0];
  try {
    assert.equal(server.era, era === "legacy" ? "legacy" : "2026-07-28");
    const call: Call = (tool, args = {}, extra = {}) =>
      connection.toolkit.call(`asker__${tool}`, args, { runId: "run-1", callId: "c-1", ...extra });
    await run(recorded(file), call);
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(await processGone(server.stdio!.pid!), "the server process is gone");
}

// stdio carries no stream per call: a 2025 request is tied to the only call in flight.
clientRequestsSuite({ name: "stdio", withServer: withStdio, legacyVia: "session_stream" });

Deno.test("stdio elicitation (legacy): with two calls in flight a request cannot be tied to one, and is declined", async () => {
  const asked: ElicitationRequest[] = [];
  await withStdio("legacy", {
    elicit: (request) => {
      asked.push(request);
      return { action: "decline" };
    },
  }, async (server, call) => {
    const slow = call("slow", { steps: 20, ms: 20 });
    await server.waitFor((event) => event.event === "call" && event.tool === "slow");
    await call("ask");
    await slow;
    assert.equal(asked.length, 0);
    const answer = await server.waitFor((event) => event.event === "answer");
    assert.deepEqual(answer.detail, { action: "decline" });
  });
});

Deno.test("stdio telemetry: the handshake, tools/list, subscriptions/listen and the call are traced over a pipe", async () => {
  for (const era of ERAS) {
    const sdk = startOtelSdk();
    const options = era === "modern" ? { changeDetection: true } : {};
    await withStdio(era, { telemetry: sdk.telemetry, ...options }, async (_server, call) => {
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
    if (era === "modern") {
      assert.ok(names.includes("subscriptions/listen"), `the listen request is traced: ${names}`);
    }
    // The gate's span of the call carries the session's facts too.
    const [slow] = client.filter((span) => span.name === "tools/call slow");
    assert.ok(slow !== undefined, `${era}: the call is traced`);
    assert.equal(slow.attributes["network.transport"], "pipe");
    assert.equal(slow.attributes["mcp.protocol.version"], list.attributes["mcp.protocol.version"]);
    await sdk.shutdown();
  }
});
