// What servers ask of a connect() host, against fixtures/client_requests_server.ts (the
// official v2 server SDK over loopback HTTP, 2026-07-28 and stateful 2025-11-25): the shared
// suite (tests/support/client_requests_suite.ts: elicitation declared only with a handler, tied
// to its call, checked both ways; input_required rounds; progress, logs and cancellation), which
// stdio_client_requests_test.ts runs over stdio too, and what only HTTP has (the 2025 GET
// stream), each proven by what the server itself recorded.
import assert from "node:assert/strict";
import {
  type CallOrigin,
  connect,
  type ConnectOptions,
  type ElicitationRequest,
} from "../../mod.ts";
import {
  type ClientRequestsServer,
  startClientRequestsServer,
} from "../../fixtures/client_requests_server.ts";
import {
  type Call,
  clientRequestsSuite,
  type Era,
  person,
  TOOLS,
} from "../support/client_requests_suite.ts";

interface Asked {
  readonly request: ElicitationRequest;
  readonly call: CallOrigin;
}

async function withServer(
  era: Era,
  options: Partial<ConnectOptions>,
  run: (server: ClientRequestsServer, call: Call) => Promise<void>,
): Promise<void> {
  const server = await startClientRequestsServer({ legacyOnly: era === "legacy" });
  try {
    const connection = await connect(server.url, {
      id: "asker",
      allow: [...TOOLS],
      preApproved: [...TOOLS],
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      ...options,
    });
    try {
      assert.equal(connection.report().servers[0].era, era === "legacy" ? "legacy" : "2026-07-28");
      const call: Call = (tool, args = {}, extra = {}) =>
        connection.toolkit.call(`asker__${tool}`, args, {
          runId: "run-1",
          callId: "c-1",
          ...extra,
        });
      await run(server, call);
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
}

clientRequestsSuite({
  name: "http",
  withServer: (era, options, run) =>
    withServer(
      era,
      options,
      (server, call) =>
        run(
          { seen: () => Promise.resolve(server.seen), waitFor: (test) => server.waitFor(test) },
          call,
        ),
    ),
  legacyVia: "call_stream",
  cancellationWire: () => {
    const posted: string[] = [];
    return {
      options: {
        transport: {
          dangerouslyAllowLoopback: true,
          timeoutMs: 10_000,
          // The JSON-RPC method of every POST, as it leaves.
          fetch: async (input, init) => {
            const request = input instanceof Request ? input : new Request(input, init);
            if (request.method === "POST") {
              posted.push(String((await request.clone().json()).method ?? "(reply)"));
            }
            return fetch(input, init);
          },
        },
      },
      // 2025: notifications/cancelled; 2026-07-28: the request stream closed, nothing sent.
      check: (era) =>
        assert.equal(
          posted.filter((method) => method === "notifications/cancelled").length,
          era === "legacy" ? 1 : 0,
        ),
    };
  },
});

Deno.test("elicitation (legacy): one sent on the session's GET stream is tied to the only call in flight, marked inferred; with two in flight it is declined", async () => {
  const asked: Asked[] = [];
  await withServer("legacy", {
    elicit: person(
      asked,
      (request) =>
        request.kind === "form"
          ? { action: "accept", content: request.defaults }
          : { action: "decline" },
    ),
  }, async (server, call) => {
    assert.equal((await call("ask_unrelated")).errorCode, undefined);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].request.via, "session_stream");
    assert.equal(asked[0].call.tool, "asker__ask_unrelated");
    const first = await server.waitFor((event) => event.event === "answer");
    assert.deepEqual(first.detail, { action: "accept", content: { color: "red" } });
    // Two calls in flight: sluice cannot say which one the request belongs to.
    const slow = call("slow", { steps: 20, ms: 20 });
    await server.waitFor((event) => event.event === "call" && event.tool === "slow");
    await call("ask_unrelated");
    await slow;
    assert.equal(asked.length, 1);
    const answers = server.seen.filter((event) => event.event === "answer");
    assert.deepEqual(answers.at(-1)!.detail, { action: "decline" });
  });
});

Deno.test("input_required (2026-07-28): a write whose later round fails after the first was answered stays unknown", async () => {
  const server = await startClientRequestsServer();
  try {
    const connection = await connect(server.url, {
      id: "asker",
      allow: ["ask_write"],
      approve: () => true,
      limits: { timeoutMs: 300 },
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      // The person never answers: the call's one deadline passes while the form is open.
      elicit: (_request, _call, signal) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true })
        ),
    });
    try {
      const envelope = await connection.toolkit.call("asker__ask_write", {});
      assert.equal(envelope.errorCode, "mcp_timeout");
      assert.equal((envelope as { effect?: string }).effect, "unknown");
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("elicitation (legacy): the GET stream opened for server requests re-opens without listing again, and is no change stream", async () => {
  const methods: string[] = [];
  await withServer("legacy", {
    elicit: () => ({ action: "decline" }),
    transport: {
      dangerouslyAllowLoopback: true,
      // Each GET stream lives one transport deadline: it ends and re-opens within the test.
      timeoutMs: 300,
      fetch: async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init);
        methods.push(
          request.method === "POST"
            ? String((await request.clone().json()).method ?? "(reply)")
            : request.method,
        );
        return fetch(input, init);
      },
    },
  }, async (_server, _call) => {
    for (
      let wait = 0;
      methods.filter((method) => method === "GET").length < 2 && wait < 150;
      wait++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(methods.filter((method) => method === "GET").length >= 2, "the stream re-opened");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(methods.filter((method) => method === "tools/list").length, 1);
  });
});

Deno.test("connect(): handler options are checked before anything is sent", async () => {
  const bad: Partial<ConnectOptions>[] = [
    { elicit: "yes" as never },
    { elicit: () => ({ action: "decline" }), elicitationModes: ["form", "telepathy" as never] },
    { elicitationModes: [] },
    { progressIdleTimeoutMs: 100 },
    { onProgress: () => {}, progressIdleTimeoutMs: 0 },
    { onLog: () => {}, logLevel: "loud" as never },
  ];
  for (const options of bad) {
    await assert.rejects(
      connect("https://mcp.example.com/mcp", { allow: ["t"], ...options }),
      (error: unknown) => (error as { code?: string }).code === "connect_config_invalid",
      JSON.stringify(Object.keys(options)),
    );
  }
});

Deno.test("input_required (2026-07-28): rounds are bounded by MAX_INPUT_ROUNDS", async () => {
  await withServer("modern", { elicit: () => ({ action: "decline" }) }, async (server, call) => {
    const envelope = await call("loop");
    assert.equal(envelope.errorCode, "mcp_input_required_rounds_exceeded");
    // The first request and eight more rounds, no further.
    assert.equal(server.seen.filter((event) => event.event === "call").length, 9);
  });
});
