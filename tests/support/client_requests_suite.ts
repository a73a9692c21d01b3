/**
 * What servers ask of a connect() host, as one suite run over each transport: the
 * client-requests fixture (`fixtures/client_requests_server.ts`) over Streamable HTTP
 * (`tests/connect/client_requests_test.ts`) and over stdio
 * (`tests/connect/stdio_client_requests_test.ts`), in both eras. Each case is proven by what the
 * server itself recorded.
 *
 * @module
 */
import assert from "node:assert/strict";
import type {
  CallOrigin,
  connect,
  ConnectEvent,
  ConnectOptions,
  ElicitationAnswer,
  ElicitationDelivery,
  ElicitationRequest,
  SessionProgress,
} from "../../mod.ts";
import type { SeenEvent } from "../../fixtures/client_requests_server.ts";

/** The fixture's two eras: 2025-11-25 (`legacy`) and 2026-07-28 (`modern`). */
export type Era = "legacy" | "modern";

/** Both eras, in the order the suite runs them. */
export const ERAS: readonly Era[] = ["legacy", "modern"];

/** The fixture's tools every case may call (`slow_write` needs an approval). */
export const TOOLS = ["slow", "ask", "ask_unrelated", "ask_bad", "ask_url", "log_burst", "loop"];

/** What the server recorded, however the test reads it. */
export interface AskedServer {
  /** Every event so far. */
  seen(): Promise<readonly SeenEvent[]>;
  /** Resolves once an event matching `test` was recorded (bounded). */
  waitFor(test: (event: SeenEvent) => boolean): Promise<SeenEvent>;
}

/** Calls one of the fixture's tools as `asker__<tool>`, with run `run-1` and call `c-1`. */
export type Call = (
  tool: string,
  args?: Record<string, unknown>,
  extra?: { signal?: AbortSignal },
) => ReturnType<Awaited<ReturnType<typeof connect>>["toolkit"]["call"]>;

/**
 * Connects to a fresh fixture in `era` with `options` (spread last over the transport's
 * defaults: server id `asker`, every tool of {@link TOOLS} allowed and pre-approved), runs
 * `run`, then closes both.
 */
export type WithServer = (
  era: Era,
  options: Partial<ConnectOptions>,
  run: (server: AskedServer, call: Call) => Promise<void>,
) => Promise<void>;

/** One transport the suite runs over. */
export interface SuiteHost {
  /** Named in each test's title. */
  readonly name: string;
  readonly withServer: WithServer;
  /**
   * How a 2025 elicitation sent during a call reaches the host: on the call's own stream over
   * HTTP, inferred from the only call in flight over stdio (which has no stream per call).
   */
  readonly legacyVia: ElicitationDelivery;
  /**
   * Options that observe the wire for the cancellation case, and the check of what they saw
   * (HTTP: one `notifications/cancelled` POST on 2025, none on 2026-07-28).
   */
  readonly cancellationWire?: () => {
    readonly options: Partial<ConnectOptions>;
    readonly check: (era: Era) => void;
  };
}

interface Asked {
  readonly request: ElicitationRequest;
  readonly call: CallOrigin;
}

/** The answer the server got: 2025 records it whole, 2026-07-28 as the round's `pick` response. */
export function sentAnswer(era: Era, seen: { readonly detail?: unknown }): unknown {
  return era === "legacy"
    ? seen.detail
    : (seen.detail as { responses: Record<string, unknown> }).responses.pick;
}

/** A host handler that records what it is asked and answers with `answer`. */
export function person(
  asked: Asked[],
  answer: (request: ElicitationRequest) => ElicitationAnswer,
): (request: ElicitationRequest, call: CallOrigin) => ElicitationAnswer {
  return (request, call) => {
    asked.push({ request, call });
    return answer(request);
  };
}

function capabilitiesOf(seen: SeenEvent): Record<string, unknown> | null {
  return (seen.detail as { capabilities: Record<string, unknown> | null }).capabilities;
}

/**
 * Registers the suite's tests for `host`, in both eras.
 *
 * @param host the transport and how to reach the fixture over it
 */
export function clientRequestsSuite(host: SuiteHost): void {
  for (const era of ERAS) {
    for (const [what, run] of CASES) {
      Deno.test(`${what} (${host.name}, ${era})`, () => run(host, era));
    }
  }
}

/** Each case, by what it shows. */
const CASES: readonly (readonly [string, (host: SuiteHost, era: Era) => Promise<void>])[] = [
  [
    "elicitation: declared only with a handler; tied to its call; the checked answer reaches the server",
    elicitationTied,
  ],
  [
    "elicitation: an answer outside the schema is never sent; a form outside the rules is declined without asking",
    elicitationChecked,
  ],
  [
    "elicitation: URL mode only when listed, the URL checked like any outbound URL, never opened",
    elicitationUrl,
  ],
  [
    "progress: a token only with onProgress; each step reaches onProgress with its call, escaped",
    progressHeard,
  ],
  [
    "progress: the idle deadline is restarted by progress only when the host opts in, and never the total",
    progressIdle,
  ],
  [
    "cancellation: an aborted call reaches the server as a cancellation; the envelope says mcp_aborted",
    cancellation,
  ],
  ["cancellation: an aborted write stays unknown, never not_started", abortedWrite],
  [
    "logs: onLog hears each message with its server, bounded and escaped; logLevel drops what is below it",
    logs,
  ],
];

async function elicitationTied(host: SuiteHost, era: Era): Promise<void> {
  // Without a handler: no capability, and the form request is never answered by sluice.
  await host.withServer(era, {}, async (server, call) => {
    await call("slow", { steps: 1, ms: 1 });
    const seen = await server.waitFor((event) => event.event === "call");
    assert.equal(capabilitiesOf(seen)?.elicitation, undefined);
    if (era === "modern") {
      // No handler: an input_required call ends with its code, as before.
      assert.equal((await call("loop")).errorCode, "mcp_input_required_unsupported");
    }
  });
  const asked: Asked[] = [];
  await host.withServer(era, {
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
    assert.deepEqual(capabilitiesOf(seen)?.elicitation, { form: {} });
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
    assert.equal(request.via, era === "legacy" ? host.legacyVia : "input_required");
    // Remote text, labelled and escaped (the BEL the server sent is visible).
    assert.deepEqual(request.message, {
      remote: true,
      text: "Which color?\\u{7}",
      truncated: false,
    });
    if (request.kind === "form") assert.deepEqual(request.defaults, { color: "red" });
    const answer = await server.waitFor((event) => event.event === "answer");
    assert.deepEqual(sentAnswer(era, answer), {
      action: "accept",
      content: { color: "red", count: 3 },
    });
    if (era === "modern") {
      // requestState echoed byte for byte on the retry.
      assert.equal((answer.detail as { state: unknown }).state, "state-of-ask");
    }
  });
}

async function elicitationChecked(host: SuiteHost, era: Era): Promise<void> {
  const asked: Asked[] = [];
  const events: ConnectEvent[] = [];
  await host.withServer(era, {
    elicit: person(asked, () => ({ action: "accept", content: { color: "green", count: 3 } })),
    onEvent: (event) => events.push(event),
  }, async (server, call) => {
    await call("ask");
    const answer = await server.waitFor((event) =>
      event.event === "answer" && event.tool === "ask"
    );
    assert.deepEqual(sentAnswer(era, answer), { action: "cancel" });
    await call("ask_bad");
    const bad = await server.waitFor((event) =>
      event.event === "answer" && event.tool === "ask_bad"
    );
    assert.deepEqual(sentAnswer(era, bad), { action: "decline" });
    assert.equal(asked.length, 1, "the bad form never reached the host");
    assert.deepEqual(
      events.filter((event) => event.kind === "elicitation").map((event) => [
        event.tool,
        event.errorCode,
        event.elicitation,
      ]),
      [
        ["ask", "elicitation_answer_invalid", { mode: "form", action: "cancel" }],
        ["ask_bad", "elicitation_schema_unsupported", { mode: "form", action: "decline" }],
      ],
    );
  });
}

async function elicitationUrl(host: SuiteHost, era: Era): Promise<void> {
  const asked: Asked[] = [];
  const events: ConnectEvent[] = [];
  const elicit = person(asked, () => ({ action: "accept" }));
  await host.withServer(era, { elicit }, async (server, call) => {
    // URL mode not declared: the server's own SDK refuses to ask; nothing reaches the host.
    await call("ask_url", { url: "https://consent.example.com/approve" });
    assert.equal(asked.length, 0);
    const seen = await server.waitFor((event) => event.tool === "ask_url");
    assert.deepEqual(capabilitiesOf(seen)?.elicitation, { form: {} });
  });
  await host.withServer(era, {
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
    const answers = (await server.seen()).filter((event) => event.event === "answer");
    assert.deepEqual(sentAnswer(era, answers.at(-1)!), { action: "accept" });
  });
}

async function progressHeard(host: SuiteHost, era: Era): Promise<void> {
  const tokens = async (server: AskedServer) =>
    (await server.seen()).filter((event) => event.event === "progress_token").length;
  await host.withServer(era, {}, async (server, call) => {
    assert.equal((await call("slow", { steps: 2, ms: 5 })).errorCode, undefined);
    assert.equal(await tokens(server), 0);
  });
  const heard: [CallOrigin, SessionProgress][] = [];
  await host.withServer(era, {
    onProgress: (call, progress) => heard.push([call, progress]),
  }, async (server, call) => {
    const envelope = await call("slow", { steps: 3, ms: 5 });
    assert.equal(envelope.errorCode, undefined);
    assert.equal(await tokens(server), 1);
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
}

async function progressIdle(host: SuiteHost, era: Era): Promise<void> {
  // Opted in, idle 150 ms, steps 60 ms apart: progress keeps the call alive past 150 ms, and
  // the tool's total (limits.timeoutMs 600) still ends it.
  await host.withServer(era, {
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
}

async function cancellation(host: SuiteHost, era: Era): Promise<void> {
  const controller = new AbortController();
  const wire = host.cancellationWire?.();
  await host.withServer(era, {
    ...wire?.options,
    onProgress: (_call, progress) => {
      if (progress.progress === 2) controller.abort();
    },
  }, async (server, call) => {
    const envelope = await call("slow", { steps: 50, ms: 30 }, { signal: controller.signal });
    assert.equal(envelope.errorCode, "mcp_aborted");
    const cancelled = await server.waitFor((event) => event.event === "cancelled");
    assert.equal(cancelled.tool, "slow");
    assert.ok((cancelled.detail as { step: number }).step <= 5);
    assert.equal((await server.seen()).some((event) => event.event === "completed"), false);
    wire?.check(era);
  });
}

async function abortedWrite(host: SuiteHost, era: Era): Promise<void> {
  const controller = new AbortController();
  const origins: CallOrigin[] = [];
  await host.withServer(era, {
    allow: ["slow_write"],
    preApproved: [],
    approve: () => true,
    onProgress: (call, progress) => {
      origins.push(call);
      if (progress.progress === 1) controller.abort();
    },
  }, async (server, call) => {
    const envelope = await call("slow_write", { steps: 50, ms: 30 }, {
      signal: controller.signal,
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
      runId: "run-1",
      callId: "c-1",
      approvalId,
    });
    await server.waitFor((event) => event.event === "cancelled" && event.tool === "slow_write");
  });
}

async function logs(host: SuiteHost, era: Era): Promise<void> {
  const heard: [string, string, string, boolean][] = [];
  await host.withServer(era, {
    onLog: (server, level, message) => heard.push([server, level, message.text, message.truncated]),
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
  const above: string[] = [];
  await host.withServer(era, {
    onLog: (_server, level) => above.push(level),
    logLevel: "error",
  }, async (_server, call) => {
    assert.equal((await call("log_burst", { count: 5 })).errorCode, undefined);
    // A round trip after the burst: a message of it would have arrived before this answer.
    assert.equal((await call("slow", { steps: 1, ms: 1 })).errorCode, undefined);
    assert.deepEqual(above, [], "warnings are below error");
  });
}
