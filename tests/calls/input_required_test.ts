// input_required rounds and elicitation checks in the calls layer: the bounds and refusals
// alone, then a host-owned official v2 client (the platform-team path) running them through
// the Gate's handlers against fixtures/client_requests_server.ts on 2026-07-28.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type CallHandlers,
  CatalogMonitor,
  discoverTools,
  type ElicitationOutcome,
  type ElicitationRequest,
  Gate,
  MAX_INPUT_REQUESTS,
  MAX_REQUEST_STATE_BYTES,
} from "../../mod.ts";
import { fulfilInputRequired } from "../../src/calls/input_required.ts";
import { answerElicitation } from "../../src/calls/elicitation.ts";
import { startClientRequestsServer } from "../../fixtures/client_requests_server.ts";

const CALL = { server: "s", tool: "s__t", remoteTool: "t" };
const SIGNAL = new AbortController().signal;
const ACCEPT: CallHandlers = { elicit: () => ({ action: "accept", content: {} }) };
const FORM = {
  message: "m",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
};

Deno.test("fulfilInputRequired(): bounds and refusals end the call with their code, nothing resent", async () => {
  let resent = 0;
  const resend = () => {
    resent++;
    return Promise.resolve({ content: [] });
  };
  const run = (raw: Record<string, unknown>, handlers: CallHandlers = ACCEPT) =>
    fulfilInputRequired({ resultType: "input_required", ...raw }, resend, CALL, handlers, SIGNAL);
  const many = Object.fromEntries(
    Array.from({ length: MAX_INPUT_REQUESTS + 1 }, (_, index) => [
      `k${index}`,
      { method: "elicitation/create", params: FORM },
    ]),
  );
  assert.deepEqual(await run({ inputRequests: many }), { code: "mcp_input_required_too_large" });
  assert.deepEqual(await run({ requestState: "x".repeat(MAX_REQUEST_STATE_BYTES + 1) }), {
    code: "mcp_input_required_too_large",
  });
  assert.deepEqual(await run({}), { code: "mcp_protocol_error" });
  assert.deepEqual(await run({ requestState: 7 }), { code: "mcp_protocol_error" });
  assert.deepEqual(
    await run({ inputRequests: { s: { method: "sampling/createMessage", params: {} } } }),
    { code: "mcp_input_required_unsupported" },
  );
  assert.deepEqual(await run({ requestState: "s" }, {}), {
    code: "mcp_input_required_unsupported",
  });
  assert.equal(resent, 0);
  // A requestState-only round is resent with the state alone.
  const extras: unknown[] = [];
  const done = await fulfilInputRequired(
    { resultType: "input_required", requestState: "wait" },
    (extra) => {
      extras.push(extra);
      return Promise.resolve({ content: [] });
    },
    CALL,
    ACCEPT,
    SIGNAL,
  );
  assert.deepEqual(done, { raw: { content: [] } });
  assert.deepEqual(extras, [{ requestState: "wait" }]);
});

Deno.test("answerElicitation(): what sluice refuses is declined or cancelled with a code, and reported", async () => {
  const outcomes: ElicitationOutcome[] = [];
  const asked: ElicitationRequest[] = [];
  const handlers = (answer: unknown): CallHandlers => ({
    elicit: (request) => {
      asked.push(request);
      return answer as never;
    },
    onElicitation: (outcome) => outcomes.push(outcome),
  });
  const ask = (params: unknown, answer: unknown = { action: "accept", content: { ok: true } }) =>
    answerElicitation(params, CALL, handlers(answer), SIGNAL, "input_required");
  assert.deepEqual(await ask(FORM), { action: "accept", content: { ok: true } });
  assert.deepEqual(await ask(FORM, { action: "accept", content: { ok: "yes" } }), {
    action: "cancel",
  });
  assert.deepEqual(await ask(FORM, { action: "accept", content: { ok: true, extra: 1 } }), {
    action: "cancel",
  });
  assert.deepEqual(await ask(FORM, { action: "maybe" }), { action: "cancel" });
  assert.deepEqual(await ask(FORM, { action: "decline" }), { action: "decline" });
  const nested = {
    message: "m",
    requestedSchema: { type: "object", properties: { o: { type: "object" } } },
  };
  assert.deepEqual(await ask(nested), { action: "decline" });
  assert.deepEqual(await ask({ message: 1 }), { action: "decline" });
  assert.deepEqual(await ask({ message: "m", mode: "telepathy" }), { action: "decline" });
  assert.deepEqual(await ask({ message: "m", mode: "url", url: "https://a.example/" }), {
    action: "decline",
  });
  // A handler that throws, or one that never answers before the call ends: cancel.
  const throwing = await answerElicitation(
    FORM,
    CALL,
    {
      elicit: () => {
        throw new Error("host bug");
      },
    },
    SIGNAL,
    "input_required",
  );
  assert.deepEqual(throwing, { action: "cancel" });
  const ended = new AbortController();
  setTimeout(() => ended.abort(), 20);
  const never = await answerElicitation(
    FORM,
    CALL,
    {
      elicit: () => new Promise(() => {}),
    },
    ended.signal,
    "input_required",
  );
  assert.deepEqual(never, { action: "cancel" });
  assert.deepEqual(outcomes.map((outcome) => [outcome.action, outcome.errorCode]), [
    ["accept", undefined],
    ["cancel", "elicitation_answer_invalid"],
    ["cancel", "elicitation_answer_invalid"],
    ["cancel", "elicitation_answer_invalid"],
    ["decline", undefined],
    ["decline", "elicitation_schema_unsupported"],
    ["decline", "elicitation_request_invalid"],
    ["decline", "elicitation_request_invalid"],
    ["decline", "elicitation_mode_unsupported"],
  ]);
  assert.equal(asked.length, 5);
  assert.equal(asked[0].via, "input_required");
});

Deno.test("a host-owned v2 client: the Gate's handlers fulfil input_required rounds, tied to run and call ids", async () => {
  const server = await startClientRequestsServer();
  const client = new Client({ name: "host", version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(new StreamableHTTPClientTransport(server.url));
  try {
    const monitor = new CatalogMonitor();
    monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion()!);
    const reads = await discoverTools(client, "asker", {
      ask: {
        localName: "ask_person",
        policy: { mode: "read", title: "Ask a person" },
        scope: null,
        concurrencySafe: true,
      },
    }, { monitor });
    const calls: unknown[] = [];
    const gate = new Gate({
      catalogs: [reads],
      handlers: {
        elicit: (request, call) => {
          calls.push(call);
          return request.kind === "form"
            ? { action: "accept", content: { ...request.defaults, count: 2 } }
            : { action: "decline" };
        },
      },
    });
    const [envelope] = await gate.run([{ id: "call-9", name: "ask_person", arguments: {} }], {
      runId: "run-9",
    });
    assert.equal(envelope.errorCode, undefined);
    assert.deepEqual(calls, [{
      server: "asker",
      tool: "ask_person",
      remoteTool: "ask",
      runId: "run-9",
      callId: "call-9",
    }]);
    const answer = await server.waitFor((event) => event.event === "answer");
    assert.deepEqual(answer.detail, {
      responses: { pick: { action: "accept", content: { color: "red", count: 2 } } },
      state: "state-of-ask",
    });
  } finally {
    await client.close();
    await server.close();
  }
});
