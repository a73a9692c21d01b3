// What servers ask of a connect() host, against fixtures/client_requests_server.ts (the
// official v2 server SDK over loopback HTTP, 2026-07-28 and stateful 2025-11-25): elicitation
// (declared only with a handler, tied to its call, checked both ways), input_required rounds,
// progress, logs and cancellation, each proven by what the server itself recorded.
import assert from "node:assert/strict";
import {
  type CallOrigin,
  connect,
  type ConnectEvent,
  type ConnectOptions,
  type ElicitationAnswer,
  type ElicitationRequest,
  type SessionProgress,
} from "../../mod.ts";
import {
  type ClientRequestsServer,
  startClientRequestsServer,
} from "../../fixtures/client_requests_server.ts";

type Era = "legacy" | "modern";
const ERAS: readonly Era[] = ["legacy", "modern"];
const TOOLS = ["slow", "ask", "ask_unrelated", "ask_bad", "ask_url", "log_burst", "loop"];

interface Asked {
  readonly request: ElicitationRequest;
  readonly call: CallOrigin;
}

async function withServer(
  era: Era,
  options: Partial<ConnectOptions>,
  run: (server: ClientRequestsServer, call: Call, events: ConnectEvent[]) => Promise<void>,
): Promise<void> {
  const server = await startClientRequestsServer({ legacyOnly: era === "legacy" });
  const events: ConnectEvent[] = [];
  try {
    const connection = await connect(server.url, {
      id: "asker",
      allow: [...TOOLS],
      preApproved: [...TOOLS],
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      onEvent: (event) => events.push(event),
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
      await run(server, call, events);
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
}

type Call = (
  tool: string,
  args?: Record<string, unknown>,
  extra?: { signal?: AbortSignal },
) => ReturnType<Awaited<ReturnType<typeof connect>>["toolkit"]["call"]>;

/** The answer the server got: 2025 records it whole, 2026-07-28 as the round's `pick` response. */
function sentAnswer(era: Era, seen: { readonly detail?: unknown }): unknown {
  return era === "legacy"
    ? seen.detail
    : (seen.detail as { responses: Record<string, unknown> }).responses.pick;
}

function person(asked: Asked[], answer: (request: ElicitationRequest) => ElicitationAnswer) {
  return (request: ElicitationRequest, call: CallOrigin) => {
    asked.push({ request, call });
    return answer(request);
  };
}

for (const era of ERAS) {
  Deno.test(`elicitation (${era}): declared only with a handler; the form is tied to its call and the checked answer reaches the server`, async () => {
    // Without a handler: no capability, and the form request is never answered by sluice.
    await withServer(era, {}, async (server, call) => {
      await call("slow", { steps: 1, ms: 1 });
      const seen = await server.waitFor((event) => event.event === "call");
      const capabilities = (seen.detail as { capabilities: Record<string, unknown> | null })
        .capabilities;
      assert.equal(capabilities?.elicitation, undefined);
      if (era === "modern") {
        // No handler: an input_required call ends with its code, as before.
        assert.equal((await call("loop")).errorCode, "mcp_input_required_unsupported");
      }
    });
    const asked: Asked[] = [];
    await withServer(era, {
      elicit: person(
        asked,
        (request) =>
          request.kind === "form"
            ? { action: "accept", content: { ...request.defaults, count: 3 } }
            : { action: "decline" },
      ),
    }, async (server, call) => {
      const envelope = await call("ask");
      assert.equal(envelope.errorCode, undefined);
      const seen = await server.waitFor((event) => event.event === "call" && event.tool === "ask");
      assert.deepEqual(
        (seen.detail as { capabilities: Record<string, unknown> }).capabilities.elicitation,
        { form: {} },
      );
      assert.equal(asked.length, 1);
      const [{ request, call: origin }] = asked;
      assert.deepEqual(origin, {
        server: "asker",
        tool: "asker__ask",
        remoteTool: "ask",
        runId: "run-1",
        callId: "c-1",
      });
      assert.equal(request.kind, "form");
      assert.equal(request.via, era === "legacy" ? "call_stream" : "input_required");
      // Remote text, labelled and escaped (the BEL the server sent is visible).
      assert.deepEqual(request.message, {
        remote: true,
        text: "Which color?\\u{7}",
        truncated: false,
      });
      if (request.kind === "form") assert.deepEqual(request.defaults, { color: "red" });
      const answer = await server.waitFor((event) => event.event === "answer");
      const sent = sentAnswer(era, answer);
      assert.deepEqual(sent, { action: "accept", content: { color: "red", count: 3 } });
      if (era === "modern") {
        // requestState echoed byte for byte on the retry.
        assert.equal((answer.detail as { state: unknown }).state, "state-of-ask");
      }
    });
  });

  Deno.test(`elicitation (${era}): an answer outside the schema is never sent; a form outside the rules is declined without asking`, async () => {
    const asked: Asked[] = [];
    const events: ConnectEvent[] = [];
    await withServer(era, {
      elicit: person(asked, () => ({ action: "accept", content: { color: "green", count: 3 } })),
      onEvent: (event) => events.push(event),
    }, async (server, call) => {
      await call("ask");
      const answer = await server.waitFor((event) =>
        event.event === "answer" && event.tool === "ask"
      );
      const sent = sentAnswer(era, answer);
      assert.deepEqual(sent, { action: "cancel" });
      await call("ask_bad");
      const bad = await server.waitFor((event) =>
        event.event === "answer" && event.tool === "ask_bad"
      );
      const badSent = sentAnswer(era, bad);
      assert.deepEqual(badSent, { action: "decline" });
      assert.equal(asked.length, 1, "the bad form never reached the host");
      const elicitations = events.filter((event) => event.kind === "elicitation");
      assert.deepEqual(
        elicitations.map((event) => [event.tool, event.errorCode, event.elicitation]),
        [
          ["ask", "elicitation_answer_invalid", { mode: "form", action: "cancel" }],
          ["ask_bad", "elicitation_schema_unsupported", { mode: "form", action: "decline" }],
        ],
      );
    });
  });

  Deno.test(`elicitation (${era}): URL mode only when listed, the URL checked like any outbound URL, never opened`, async () => {
    const asked: Asked[] = [];
    const events: ConnectEvent[] = [];
    const elicit = person(asked, () => ({ action: "accept" }));
    await withServer(era, { elicit }, async (server, call) => {
      // URL mode not declared: the server's own SDK refuses to ask; nothing reaches the host.
      await call("ask_url", { url: "https://consent.example.com/approve" });
      assert.equal(asked.length, 0);
      const seen = await server.waitFor((event) => event.tool === "ask_url");
      assert.deepEqual(
        (seen.detail as { capabilities: Record<string, unknown> }).capabilities.elicitation,
        { form: {} },
      );
    });
    await withServer(era, {
      elicit,
      elicitationModes: ["form", "url"],
      onEvent: (event) => events.push(event),
    }, async (server, call) => {
      await call("ask_url", { url: "https://user:secret@consent.example.com/" });
      await call("ask_url", { url: "http://consent.example.com/" });
      assert.equal(asked.length, 0);
      assert.deepEqual(
        events.filter((event) => event.kind === "elicitation").map((event) => event.errorCode),
        ["elicitation_url_refused", "elicitation_url_refused"],
      );
      await call("ask_url", { url: "https://consent.example.com/approve?x=1" });
      assert.equal(asked.length, 1);
      const request = asked[0].request;
      assert.equal(request.kind, "url");
      if (request.kind === "url") {
        assert.ok(request.url instanceof URL);
        assert.equal(request.url.href, "https://consent.example.com/approve?x=1");
        assert.equal(request.elicitationId, "e-1");
      }
      const answers = server.seen.filter((event) => event.event === "answer");
      const last = sentAnswer(era, answers.at(-1)!);
      assert.deepEqual(last, { action: "accept" });
    });
  });

  Deno.test(`progress (${era}): a token only with onProgress; each step reaches onProgress with its call, escaped`, async () => {
    await withServer(era, {}, async (server, call) => {
      assert.equal((await call("slow", { steps: 2, ms: 5 })).errorCode, undefined);
      assert.equal(server.seen.some((event) => event.event === "progress_token"), false);
    });
    const heard: [CallOrigin, SessionProgress][] = [];
    await withServer(era, {
      onProgress: (call, progress) => heard.push([call, progress]),
    }, async (server, call) => {
      const envelope = await call("slow", { steps: 3, ms: 5 });
      assert.equal(envelope.errorCode, undefined);
      assert.ok(server.seen.some((event) => event.event === "progress_token"));
      assert.deepEqual(heard.map(([, progress]) => [progress.progress, progress.total]), [
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
      assert.equal(heard[0][0].tool, "asker__slow");
      assert.equal(heard[0][0].callId, "c-1");
      assert.equal(heard[0][1].message?.text, "step \\u{1b}[31mred\\u{202e}");
      // Nothing of it in the model's envelope.
      assert.equal(JSON.stringify(envelope).includes("step"), false);
    });
  });

  Deno.test(`progress (${era}): the idle deadline is restarted by progress only when the host opts in, and never the total`, async () => {
    // Opted in, idle 150 ms, steps 60 ms apart: progress keeps the call alive past 150 ms, and
    // the tool's total (limits.timeoutMs 600) still ends it.
    await withServer(era, {
      onProgress: () => {},
      progressIdleTimeoutMs: 150,
      limits: { timeoutMs: 600 },
    }, async (server, call) => {
      assert.equal((await call("slow", { steps: 4, ms: 60 })).errorCode, undefined);
      assert.equal((await call("slow", { steps: 40, ms: 60 })).errorCode, "mcp_timeout");
      // A call whose steps are further apart than the idle deadline ends at the idle deadline.
      assert.equal((await call("slow", { steps: 2, ms: 400 })).errorCode, "mcp_timeout");
      await server.waitFor((event) => event.event === "cancelled");
    });
  });

  Deno.test(`cancellation (${era}): an aborted call reaches the server as a cancellation; the envelope says mcp_aborted`, async () => {
    const controller = new AbortController();
    const posted: string[] = [];
    await withServer(era, {
      onProgress: (_call, progress) => {
        if (progress.progress === 2) controller.abort();
      },
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
    }, async (server, call) => {
      const envelope = await call("slow", { steps: 50, ms: 30 }, { signal: controller.signal });
      assert.equal(envelope.errorCode, "mcp_aborted");
      const cancelled = await server.waitFor((event) => event.event === "cancelled");
      assert.equal(cancelled.tool, "slow");
      assert.ok((cancelled.detail as { step: number }).step <= 5);
      assert.equal(server.seen.some((event) => event.event === "completed"), false);
      // 2025: notifications/cancelled; 2026-07-28: the request stream closed, nothing sent.
      assert.equal(
        posted.filter((method) => method === "notifications/cancelled").length,
        era === "legacy" ? 1 : 0,
      );
    });
  });

  Deno.test(`cancellation (${era}): an aborted write stays unknown, never not_started`, async () => {
    const server = await startClientRequestsServer({ legacyOnly: era === "legacy" });
    const origins: CallOrigin[] = [];
    try {
      const controller = new AbortController();
      const connection = await connect(server.url, {
        id: "asker",
        allow: ["slow_write"],
        approve: () => true,
        transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
        onProgress: (call, progress) => {
          origins.push(call);
          if (progress.progress === 1) controller.abort();
        },
      });
      try {
        const envelope = await connection.toolkit.call("asker__slow_write", { steps: 50, ms: 30 }, {
          signal: controller.signal,
          runId: "run-w",
          callId: "w-1",
        });
        assert.equal(envelope.errorCode, "mcp_aborted");
        assert.equal((envelope as { effect?: string }).effect, "unknown");
        // The write's progress names its approval, run and call.
        const approvalId = (envelope as { approvalId?: string }).approvalId;
        assert.equal(typeof approvalId, "string");
        assert.deepEqual(origins[0], {
          server: "asker",
          tool: "asker__slow_write",
          remoteTool: "slow_write",
          runId: "run-w",
          callId: "w-1",
          approvalId,
        });
        await server.waitFor((event) => event.event === "cancelled");
      } finally {
        await connection.close();
      }
    } finally {
      await server.close();
    }
  });

  Deno.test(`logs (${era}): onLog hears each message with its server, bounded and escaped`, async () => {
    const heard: [string, string, string, boolean][] = [];
    await withServer(era, {
      onLog: (server, level, message) =>
        heard.push([server, level, message.text, message.truncated]),
    }, async (_server, call) => {
      const envelope = await call("log_burst", { count: 200 });
      assert.equal(envelope.errorCode, undefined);
      // Notifications may trail the reply a little.
      for (let wait = 0; heard.length < 200 && wait < 100; wait++) {
        await new Promise((done) => setTimeout(done, 20));
      }
      assert.equal(heard.length, 200);
      const [server, level, text, truncated] = heard[0];
      assert.deepEqual([server, level, truncated], ["asker", "warning", true]);
      assert.ok(text.startsWith("line 0\\u{1b}]0;title\\u{7}xxx"));
      assert.ok(text.length <= 2_000 + 16);
      assert.equal(JSON.stringify(envelope).includes("line"), false);
    });
  });
}

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
