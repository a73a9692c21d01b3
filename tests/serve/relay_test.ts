// The relay of upstream requests for client input through `sluice serve`: a real upstream on
// the official v2 server SDK (fixtures/client_requests_server.ts) asks for input during a
// served call, and the downstream client that made the call answers it, in its own era: a
// 2026-07-28 client that declared elicitation gets `input_required` rounds (the v2 SDK client
// answers them with its own elicitation handler; the plain HTTP client checks the wire) or, for
// a task, a task in `input_required` answered by `tasks/update`; a 2025 client over stdio gets
// `elicitation/create` on the call's stream. A client without the capability, and a 2025 client
// over the stateless HTTP fallback, get the upstream a decline at once. Answers outside the requested schema never reach the upstream, and sluice's bounds on
// rounds hold.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { startClientRequestsServer } from "../../fixtures/client_requests_server.ts";
import { serve } from "../../serve.ts";
import {
  type RequestsGateway as Gateway,
  startRequestsGateway,
  withLinkedRelay,
} from "./requests_gateway.ts";
import { ModernClient } from "./modern_client.ts";
import { outcomeOf, textOf } from "./setup.ts";

const TOKEN = "relay-token-0123456789abcdef0123456789abcdef";
const TOOLS = ["ask", "ask_url", "loop", "slow"];
/** The gateway in front of the upstream's asking tools. */
const startGateway = (options: Parameters<typeof startRequestsGateway>[2] = {}) =>
  startRequestsGateway(TOKEN, TOOLS, options);
const ASK = "up__ask";

/** What the upstream's `ask` received as its answer, as it recorded it. */
async function upstreamAnswer(gateway: Gateway): Promise<Record<string, unknown>> {
  const seen = await gateway.upstream.waitFor((event) =>
    event.event === "answer" && event.tool === "ask"
  );
  const detail = seen.detail as Record<string, unknown>;
  // 2026-07-28 upstream: { responses: { pick }, state }; 2025 upstream: the ElicitResult itself.
  const responses = detail.responses as Record<string, unknown> | undefined;
  return (responses?.pick ?? detail) as Record<string, unknown>;
}

async function v2Client(
  url: URL,
  legacy: boolean,
  answer: ((params: Record<string, unknown>) => Record<string, unknown>) | undefined,
): Promise<{ client: Client; asked: Record<string, unknown>[] }> {
  const asked: Record<string, unknown>[] = [];
  const client = new Client({ name: "relay-test", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: legacy ? "legacy" : "auto" },
    ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
  });
  if (answer !== undefined) {
    client.setRequestHandler("elicitation/create", (request) => {
      const params = request.params as Record<string, unknown>;
      asked.push(params);
      return answer(params) as never;
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return { client, asked };
}

Deno.test("relay: a 2026-07-28 v2 SDK client answers the upstream's form; the upstream gets the answer", async () => {
  const gateway = await startGateway();
  const { client, asked } = await v2Client(
    gateway.url,
    false,
    () => ({ action: "accept", content: { color: "blue", count: 3 } }),
  );
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const result = await client.request({
      method: "tools/call",
      params: { name: ASK, arguments: {} },
    });
    assert.equal(asked.length, 1);
    // The upstream's own message and schema, for the person (control characters escaped).
    assert.equal(asked[0]!.message, "Which color?\\u{7}");
    assert.deepEqual(
      Object.keys((asked[0]!.requestedSchema as { properties: object }).properties),
      [
        "color",
        "count",
      ],
    );
    assert.deepEqual(await upstreamAnswer(gateway), {
      action: "accept",
      content: { color: "blue", count: 3 },
    });
    assert.equal((result as { isError?: boolean }).isError, undefined);
    // The upstream declared what sluice offers: elicitation, form and URL.
    const call = gateway.upstream.seen.find((event) => event.event === "call");
    assert.ok(
      (call?.detail as { capabilities: { elicitation?: unknown } }).capabilities.elicitation,
    );
  } finally {
    await client.close();
    await gateway.close();
  }
});

Deno.test("relay: the wire at 2026-07-28: input_required, then the retried call with inputResponses and requestState", async () => {
  const gateway = await startGateway();
  const client = new ModernClient(gateway.url, TOKEN, false, { elicitation: {} });
  try {
    const first = await client.request("tools/call", { name: ASK, arguments: {} });
    assert.equal(first.result?.resultType, "input_required");
    const requests = first.result?.inputRequests as Record<string, { method: string }>;
    const keys = Object.keys(requests);
    assert.equal(keys.length, 1);
    assert.equal(requests[keys[0]!]!.method, "elicitation/create");
    const state = first.result?.requestState as string;
    assert.equal(typeof state, "string");
    // Another state is no call of this client: refused, not guessed.
    const wrong = await client.request("tools/call", {
      name: ASK,
      arguments: {},
      requestState: "not-a-state",
      inputResponses: { [keys[0]!]: { action: "decline" } },
    });
    assert.equal(wrong.error?.code, -32602);
    const second = await client.request("tools/call", {
      name: ASK,
      arguments: {},
      requestState: state,
      inputResponses: { [keys[0]!]: { action: "decline" } },
    });
    assert.equal(second.result?.resultType, "complete");
    assert.deepEqual(await upstreamAnswer(gateway), { action: "decline" });
  } finally {
    await gateway.close();
  }
});

Deno.test("relay: an answer outside the requested schema never reaches the upstream (it sees cancel)", async () => {
  const gateway = await startGateway();
  const { client } = await v2Client(
    gateway.url,
    false,
    () => ({ action: "accept", content: { color: "green" } }),
  );
  try {
    await client.request({ method: "tools/call", params: { name: ASK, arguments: {} } });
    assert.deepEqual(await upstreamAnswer(gateway), { action: "cancel" });
  } finally {
    await client.close();
    await gateway.close();
  }
});

Deno.test("relay: a client without the elicitation capability: the upstream sees decline at once", async () => {
  const gateway = await startGateway();
  const modern = new ModernClient(gateway.url, TOKEN, false);
  const { client: legacy } = await v2Client(gateway.url, true, undefined);
  try {
    const answered = await modern.request("tools/call", { name: ASK, arguments: {} });
    assert.equal(answered.result?.resultType, "complete");
    assert.deepEqual(await upstreamAnswer(gateway), { action: "decline" });
    gateway.upstream.seen.length = 0;
    await legacy.callTool({ name: ASK, arguments: {} });
    assert.deepEqual(await upstreamAnswer(gateway), { action: "decline" });
  } finally {
    await legacy.close();
    await gateway.close();
  }
});

Deno.test("relay: a 2025 client over the stateless HTTP fallback is declined, never left waiting", async () => {
  // The 2025 fallback answers each request from a fresh instance, so a client's answer to a
  // request sent on a call's stream would reach no one: the upstream is declined instead.
  const gateway = await startGateway({ legacyUpstream: true });
  const { client, asked } = await v2Client(gateway.url, true, () => ({ action: "accept" }));
  try {
    await client.callTool({ name: ASK, arguments: {} });
    assert.equal(asked.length, 0);
    assert.deepEqual(await upstreamAnswer(gateway), { action: "decline" });
  } finally {
    await client.close();
    await gateway.close();
  }
});

Deno.test("relay: a task in input_required, answered by tasks/update, completes with the answer upstream", async () => {
  const gateway = await startGateway({ taskTools: { [ASK]: "optional" } });
  const client = new ModernClient(gateway.url, TOKEN, true, { elicitation: {} });
  try {
    const created = await client.request("tools/call", { name: ASK, arguments: {} });
    assert.equal(created.result?.resultType, "task");
    assert.equal("inputRequests" in created.result!, false);
    const taskId = created.result?.taskId as string;
    let task: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 200 && task?.status !== "input_required"; tries++) {
      task = (await client.request("tasks/get", { taskId })).result;
      if (task?.status !== "input_required") await new Promise((done) => setTimeout(done, 25));
    }
    assert.equal(task?.status, "input_required");
    const keys = Object.keys(task?.inputRequests as object);
    assert.equal(keys.length, 1);
    const ack = await client.request("tasks/update", {
      taskId,
      inputResponses: { [keys[0]!]: { action: "accept", content: { color: "red" } } },
    });
    assert.equal(ack.result?.resultType, "complete");
    assert.equal("status" in ack.result!, false);
    const ended = await client.untilEnded(taskId);
    assert.equal(ended.status, "completed");
    assert.deepEqual(await upstreamAnswer(gateway), {
      action: "accept",
      content: { color: "red" },
    });
  } finally {
    await gateway.close();
  }
});

Deno.test("relay: sluice's bounds hold through the relay (an upstream that never stops asking)", async () => {
  const gateway = await startGateway();
  const client = new ModernClient(gateway.url, TOKEN, false, { elicitation: {} });
  try {
    const answered = await client.request("tools/call", { name: "up__loop", arguments: {} });
    assert.equal(answered.result?.isError, true);
    assert.equal(
      outcomeOf(answered.result as { _meta?: unknown }).errorCode,
      "mcp_input_required_rounds_exceeded",
    );
    assert.ok(textOf(answered.result as { content?: unknown }).length > 0);
  } finally {
    await gateway.close();
  }
});

Deno.test("relay: a 2025 client over stdio gets elicitation/create on the call's stream; its answer reaches the upstream", async () => {
  const asked: Record<string, unknown>[] = [];
  const answer = (client: Client) =>
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept", content: { color: "blue" } } as never;
    });
  await withLinkedRelay("ask", { elicitation: { form: {} } }, answer, async (client, upstream) => {
    assert.notEqual(client.getNegotiatedProtocolVersion(), "2026-07-28");
    await client.callTool({ name: ASK, arguments: {} });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.mode, "form");
    const seen = await upstream.waitFor((event) => event.event === "answer");
    assert.deepEqual((seen.detail as { responses: unknown }).responses, {
      pick: { action: "accept", content: { color: "blue" } },
    });
  });
});

Deno.test("relay: URL mode reaches only a client that declared it; a form-only client's upstream sees decline", async () => {
  const gateway = await startGateway();
  const formOnly = new ModernClient(gateway.url, TOKEN, false, { elicitation: {} });
  const withUrl = new ModernClient(gateway.url, TOKEN, false, { elicitation: { url: {} } });
  const url = "https://consent.example.com/approve";
  const answerOf = async () =>
    ((await gateway.upstream.waitFor((event) =>
      event.event === "answer" && event.tool === "ask_url"
    ))
      .detail as { responses: { pick: unknown } }).responses.pick;
  try {
    const declined = await formOnly.request("tools/call", {
      name: "up__ask_url",
      arguments: { url },
    });
    assert.equal(declined.result?.resultType, "complete");
    assert.deepEqual(await answerOf(), { action: "decline" });
    gateway.upstream.seen.length = 0;
    const asked = await withUrl.request("tools/call", { name: "up__ask_url", arguments: { url } });
    assert.equal(asked.result?.resultType, "input_required");
    const [key, request] = Object.entries(
      asked.result?.inputRequests as Record<string, { params: Record<string, unknown> }>,
    )[0]!;
    assert.equal(request.params.mode, "url");
    assert.equal(request.params.url, url);
    await withUrl.request("tools/call", {
      name: "up__ask_url",
      arguments: { url },
      requestState: asked.result?.requestState,
      inputResponses: { [key]: { action: "accept" } },
    });
    assert.deepEqual(await answerOf(), { action: "accept" });
  } finally {
    await gateway.close();
  }
});

Deno.test("relay: inputBeforeTask must name task tools", async () => {
  const upstream = await startClientRequestsServer();
  try {
    await assert.rejects(
      serve({
        servers: [{ id: "up", url: upstream.url.href }],
        allow: ["up.ask"],
        preApproved: ["up.ask"],
        transport: { dangerouslyAllowLoopback: true },
        serve: { clients: [{ name: "ide", token: TOKEN }], inputBeforeTask: [ASK] },
      }),
      (error: Error & { code?: string }) => error.code === "serve_config_invalid",
    );
  } finally {
    await upstream.close();
  }
});
