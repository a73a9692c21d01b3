// Governance, events, report and provider shapes of connect(): configuration refusals, the
// approval rules (callback exactness, annotations only stricter), audit events that never
// carry arguments, results, tokens or remote text, per-tool skipping with the setting to
// change, and the exact tool shapes for Anthropic, OpenAI and Gemini. Real HTTP on loopback.
import assert from "node:assert/strict";
import {
  APPROVAL_TEXT,
  approvalPolicy,
  canonicalize,
  connect,
  connectAll,
  type ConnectAllConfig,
  ConnectConfigError,
  type ConnectEvent,
  localToolName,
  MemoryApprovalStore,
} from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { REMOTE_SECRET } from "../../fixtures/read_tools.ts";
import { result, startScriptedServer, tool } from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;
const SERVER = { id: "docs", url: "https://mcp.example.com/mcp" };

Deno.test("configuration: exact server.tool entries only; collisions and strays refused", async () => {
  const cases: [Partial<ConnectAllConfig>, string][] = [
    [{ allow: ["docs.*"] }, "connect_allow_invalid"],
    [{ allow: ["*"] }, "connect_allow_invalid"],
    [{ allow: ["docs.se*rch"] }, "connect_allow_invalid"],
    [{ allow: ["search"] }, "connect_allow_invalid"],
    [{ allow: ["docs."] }, "connect_allow_invalid"],
    [{ allow: ["other.search"] }, "connect_allow_invalid"],
    [{ allow: ["docs.search "] }, "connect_allow_invalid"],
    [{ allow: [`docs.${"t".repeat(59)}`] }, "connect_allow_invalid"],
    [{ allow: ["docs.a.b", "docs.a_b"] }, "connect_name_collision"],
    [{ allow: ["docs.search", "docs.search"] }, "connect_config_invalid"],
    [{ allow: [] }, "connect_config_invalid"],
    [{ allow: ["docs.search"], preApproved: ["docs.fetch"] }, "connect_not_allowed"],
    [{ allow: ["docs.search"], preApproved: ["docs.*"] }, "connect_allow_invalid"],
    [{
      allow: ["docs.search"],
      specs: [{ server: "docs", tool: "fetch", description: "d", inputSchema: {} }],
    }, "connect_not_allowed"],
    [{ servers: [{ id: "1docs", url: SERVER.url }], allow: ["1docs.a"] }, "connect_config_invalid"],
    [{ servers: [SERVER, SERVER], allow: ["docs.a"] }, "connect_config_invalid"],
    [{ servers: [{ id: "do.cs", url: SERVER.url }], allow: ["do.cs.a"] }, "connect_config_invalid"],
    [{ allow: ["docs.a"], minRelistIntervalMs: 99 }, "connect_config_invalid"],
    [{ allow: ["docs.a"], minRelistIntervalMs: 0 }, "connect_config_invalid"],
    [{ allow: ["docs.a"], minRelistIntervalMs: 1_000.5 }, "connect_config_invalid"],
    [{ allow: ["docs.a"], minRelistIntervalMs: 3_600_001 }, "connect_config_invalid"],
  ];
  for (const [overrides, code] of cases) {
    await assert.rejects(
      connectAll({ servers: [SERVER], allow: [], ...overrides } as ConnectAllConfig),
      (error: unknown) => error instanceof ConnectConfigError && error.code === code,
      JSON.stringify(overrides),
    );
  }
  assert.equal(localToolName("docs", "files/read.v2"), "docs__files_read_v2");
  assert.equal(localToolName("docs", "café"), "docs__caf_");
  assert.equal(localToolName("d", "t".repeat(61)), `d__${"t".repeat(61)}`);
  assert.equal(localToolName("d", "t".repeat(62)), undefined);
});

Deno.test("approval policy: owner settings relax, annotations only tighten", () => {
  const table: [boolean, boolean, Record<string, boolean> | null, boolean, string][] = [
    [false, false, null, true, "default"],
    [true, false, null, false, "pre_approved"],
    [false, false, { readOnlyHint: true }, true, "default"],
    [false, true, { readOnlyHint: true }, false, "trusted_read_only_hint"],
    [false, true, { readOnlyHint: false }, true, "default"],
    [false, true, null, true, "default"],
    [true, false, { destructiveHint: true }, true, "destructive_hint"],
    [false, true, { readOnlyHint: true, destructiveHint: true }, true, "destructive_hint"],
    [true, true, { readOnlyHint: false }, false, "pre_approved"],
  ];
  for (const [preApproved, trust, annotations, requiresApproval, reason] of table) {
    assert.deepEqual(approvalPolicy(preApproved, trust, annotations), { requiresApproval, reason });
  }
});

Deno.test("approve callback: only exactly true runs the call; anything else never reaches the server", async () => {
  const server = await startHttpServer();
  const verdicts: [string, () => unknown][] = [
    ["false", () => false],
    ["string", () => "true"],
    ["one", () => 1],
    ["object", () => ({ approved: true })],
    ["undefined", () => undefined],
    ["promise of string", () => Promise.resolve("yes")],
    ["throws", () => {
      throw new Error("approver crashed");
    }],
    ["rejects", () => Promise.reject(new Error("approver crashed"))],
  ];
  let verdict: () => unknown = () => true;
  const asked: unknown[][] = [];
  const events: ConnectEvent[] = [];
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    transport: LOOPBACK,
    approve: (...args) => {
      asked.push(args);
      return verdict();
    },
    onEvent: (event) => events.push(event),
  });
  try {
    assert.equal(connection.report().ready[0].requiresApproval, true);
    for (const [label, next] of verdicts) {
      verdict = next;
      const envelope = await connection.toolkit.call("docs__echo", { message: label });
      assert.deepEqual(envelope, {
        text: [APPROVAL_TEXT.denied],
        structured: null,
        errorCode: "approval_denied",
        effect: "not_started",
        approvalId: envelope.approvalId,
      }, label);
      assert.equal(typeof envelope.approvalId, "string", label);
      assert.equal(events.at(-1)?.approval, "denied", label);
    }
    assert.ok(!server.log.some((entry) => entry.method === "tools/call"), "server not contacted");
    verdict = () => Promise.resolve(true);
    const approved = await connection.toolkit.call("docs__echo", { message: "go" });
    assert.deepEqual({ ...approved, approvalId: undefined, receipt: undefined }, {
      text: ["go"],
      structured: null,
      effect: "committed",
      approvalId: undefined,
      receipt: undefined,
    });
    assert.equal(typeof approved.receipt?.resultDigest, "string");
    assert.equal(events.at(-1)?.approval, "approved");
    assert.deepEqual(asked.at(-1), ["docs", "echo", { message: "go" }]);
    assert.equal(server.log.filter((entry) => entry.method === "tools/call").length, 1);
    // Invalid arguments are refused before anyone is asked.
    const count = asked.length;
    const invalid = await connection.toolkit.call("docs__echo", { message: 7 });
    assert.equal(invalid.errorCode, "mcp_invalid_arguments");
    assert.equal(asked.length, count);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("annotations only tighten; without a callback a flagged call is not run", async () => {
  const server = await startHttpServer();
  const connection = await connectAll({
    servers: [
      { id: "trusting", url: server.url, trustReadOnlyHint: true },
      { id: "plain", url: server.url },
    ],
    allow: ["trusting.add", "trusting.write_like", "plain.add", "plain.echo"],
    preApproved: ["trusting.write_like", "plain.echo"],
    transport: LOOPBACK,
  });
  try {
    const policy = Object.fromEntries(
      connection.report().ready.map((
        tool,
      ) => [tool.name, [tool.requiresApproval, tool.approvalReason]]),
    );
    assert.deepEqual(policy, {
      trusting__add: [false, "trusted_read_only_hint"],
      trusting__write_like: [true, "destructive_hint"],
      plain__add: [true, "default"],
      plain__echo: [false, "pre_approved"],
    });
    const flagged = await connection.toolkit.call("trusting__write_like", {});
    assert.deepEqual(flagged, {
      text: [APPROVAL_TEXT.unavailable],
      structured: null,
      errorCode: "approval_unavailable",
      effect: "not_started",
    });
    assert.deepEqual(await connection.toolkit.call("trusting__add", { a: 1, b: 2 }), {
      text: ['{"sum":3}'],
      structured: { sum: 3 },
    });
    const sent = server.log.filter((entry) => entry.method === "tools/call");
    assert.deepEqual(sent.map((entry) => entry.toolName), ["add"]);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("a throwing or rejecting event handler never breaks discovery or a call", async () => {
  const server = await startHttpServer();
  for (
    const onEvent of [() => {
      throw new Error("sink down");
    }, () => Promise.reject(new Error("sink down"))]
  ) {
    const connection = await connect(server.url, {
      allow: ["echo"],
      preApproved: ["echo"],
      transport: LOOPBACK,
      onEvent: onEvent as () => void,
    });
    try {
      assert.deepEqual(await connection.toolkit.call("mcp__echo", { message: "fine" }), {
        text: ["fine"],
        structured: null,
      });
    } finally {
      await connection.close();
    }
  }
  await server.close();
});

Deno.test("a tool that does not fit is skipped with the setting to change; the others work", async () => {
  const server = await startHttpServer();
  const echoBytes = canonicalize({
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
    additionalProperties: false,
  }).length;
  const addBytes = canonicalize({
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  }).length;
  assert.ok(echoBytes <= 120 && addBytes > 120);
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo", "add", "unsupported_schema", "not_there"],
    preApproved: ["echo"],
    limits: { maxSchemaBytes: 120 },
    transport: LOOPBACK,
  });
  try {
    const report = connection.report();
    assert.deepEqual(report.ready.map((tool) => tool.name), ["docs__echo"]);
    assert.deepEqual(report.skipped, [
      {
        name: "docs__add",
        server: "docs",
        tool: "add",
        code: "mcp_schema_too_large",
        reason: `input schema is ${addBytes} bytes: raise limits.maxSchemaBytes (at most 65,536)`,
      },
      {
        name: "docs__unsupported_schema",
        server: "docs",
        tool: "unsupported_schema",
        code: "mcp_schema_unsupported",
        // No server text: the keyword `x-vendor` of property `q`, by position.
        reason: `input schema uses an unknown keyword at "/properties/[0]/[1]" (\`sluice ` +
          `inspect\` shows the names), outside the schema profile (schema_keyword_unsupported): ` +
          `give the tool an owner spec in specs, or remove it from allow`,
      },
      {
        name: "docs__not_there",
        server: "docs",
        tool: "not_there",
        code: "mcp_tool_missing",
        reason: "the server does not list this tool: check the allow entry",
      },
    ]);
    assert.equal(report.servers[0].status, "ready");
    assert.deepEqual(await connection.toolkit.call("docs__echo", { message: "ok" }), {
      text: ["ok"],
      structured: null,
    });
    assert.equal(
      (await connection.toolkit.call("docs__add", { a: 1, b: 1 })).errorCode,
      "unknown_tool",
    );
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("provider exports have each API's exact shape", async () => {
  const server = await startHttpServer();
  const schema = {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
    additionalProperties: false,
  };
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    specs: [{ tool: "echo", description: "Repeat a message.", inputSchema: schema }],
    transport: LOOPBACK,
  });
  try {
    assert.deepEqual(connection.toolkit.toAnthropicTools(), [
      { name: "docs__echo", description: "Repeat a message.", input_schema: schema },
    ]);
    assert.deepEqual(connection.toolkit.toOpenAITools(), [{
      type: "function",
      function: { name: "docs__echo", description: "Repeat a message.", parameters: schema },
    }]);
    assert.deepEqual(connection.toolkit.toGeminiTools(), [
      { name: "docs__echo", description: "Repeat a message.", parametersJsonSchema: schema },
    ]);
    // Fresh copies: mutating an export changes nothing in sluice.
    const exported = connection.toolkit.toAnthropicTools();
    (exported[0].input_schema as Record<string, unknown>).type = "string";
    assert.deepEqual(connection.toolkit.toAnthropicTools()[0].input_schema, schema);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("sentinels in arguments, results, token and remote errors reach no event or report", async () => {
  const TOKEN = "TOKEN-SENTINEL-5c1d";
  const ARG = "ARG-SENTINEL-8e2f";
  const RESULT = "RESULT-SENTINEL-a41b";
  const open = { type: "object" };
  const ERROR = "ERROR-SENTINEL-77c0";
  const server = startScriptedServer({
    "tools/list": (request) =>
      result(request, {
        tools: [
          tool("echo", { inputSchema: open, annotations: { readOnlyHint: true } }),
          tool("rpc_error", { inputSchema: open, annotations: { readOnlyHint: true } }),
          tool("tool_error", { inputSchema: open, annotations: { readOnlyHint: true } }),
          tool("guarded", { inputSchema: open }),
        ],
      }),
    "tools/call": (request) => {
      switch (request.params.name) {
        case "rpc_error":
          return Response.json({
            jsonrpc: "2.0",
            id: request.id,
            error: { code: -32000, message: `${ERROR} ${REMOTE_SECRET}`, data: { detail: ERROR } },
          });
        case "tool_error":
          return result(request, { content: [{ type: "text", text: ERROR }], isError: true });
        default:
          return result(request, {
            content: [{ type: "text", text: RESULT }],
            structuredContent: { value: RESULT },
          });
      }
    },
  });
  const events: ConnectEvent[] = [];
  const envelopes: unknown[] = [];
  const connection = await connectAll({
    servers: [{ id: "s", url: server.url, token: TOKEN, trustReadOnlyHint: true }],
    allow: ["s.echo", "s.rpc_error", "s.tool_error", "s.guarded"],
    approve: (_server, _tool, args) => JSON.stringify(args).includes("yes"),
    onEvent: (event) => events.push(event),
    transport: LOOPBACK,
  });
  try {
    const echo = await connection.toolkit.call("s__echo", { message: ARG });
    assert.deepEqual(echo.text, [RESULT], "the call really ran and returned the sentinel");
    envelopes.push(await connection.toolkit.call("s__rpc_error", { note: ARG }));
    envelopes.push(await connection.toolkit.call("s__tool_error", { note: ARG }));
    envelopes.push(await connection.toolkit.call("s__guarded", { note: ARG }));
    envelopes.push(await connection.toolkit.call("s__guarded", { note: `${ARG} yes` }));
    envelopes.push(await connection.toolkit.call("s__nope", { note: ARG }));
    assert.deepEqual(
      (envelopes as { errorCode?: string }[]).map((envelope) => envelope.errorCode),
      ["mcp_protocol_error", "mcp_tool_error", "approval_denied", undefined, "unknown_tool"],
    );
    // The token really travelled (to its own origin) on every request.
    assert.ok(
      server.requests.every((request) =>
        request.headers.get("authorization") === `Bearer ${TOKEN}`
      ),
    );
    assert.equal(events.length, 7, "one discovery event and one per call");
    const failures = envelopes.filter((envelope) => (envelope as { errorCode?: string }).errorCode);
    const published = JSON.stringify({ events, report: connection.report(), failures });
    for (const sentinel of [TOKEN, ARG, RESULT, ERROR, REMOTE_SECRET]) {
      assert.ok(!published.includes(sentinel), `${sentinel} leaked`);
    }
    // Events are small: exactly the documented keys.
    for (const event of events) {
      for (const key of Object.keys(event)) {
        assert.ok(
          ["kind", "server", "tool", "ok", "errorCode", "approval", "durationMs", "catalogDigest"]
            .includes(key),
          key,
        );
      }
    }
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("without a callback, flagged calls wait in the approval store; resume runs them once", async () => {
  const server = await startHttpServer();
  const store = new MemoryApprovalStore();
  const events: ConnectEvent[] = [];
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo", "add", "write_like"],
    preApproved: ["add"],
    store,
    allowNonDurableStoreForTests: true,
    transport: LOOPBACK,
    onEvent: (event) => events.push(event),
  });
  const sent = () => server.log.filter((entry) => entry.method === "tools/call").length;
  try {
    const report = connection.report();
    assert.deepEqual(
      report.ready.map((tool) => [tool.name, tool.requiresApproval, tool.deferred]),
      [["docs__add", false, false], ["docs__echo", true, true], ["docs__write_like", true, true]],
    );
    assert.match(report.servers[0].writeCatalogDigest ?? "", /^sha256:[0-9a-f]{64}$/);
    // A pre-approved tool runs at once.
    assert.deepEqual((await connection.toolkit.call("docs__add", { a: 1, b: 1 })).structured, {
      sum: 2,
    });
    // A flagged one is recorded pending; nothing reaches the server.
    const pending = await connection.toolkit.call("docs__echo", { message: "later" });
    assert.equal(pending.errorCode, "approval_pending");
    assert.deepEqual(pending.text, [APPROVAL_TEXT.pending]);
    assert.equal(pending.effect, "not_started");
    const approvalId = pending.approvalId!;
    assert.equal((await store.get(approvalId))?.state, "pending");
    assert.equal(events.at(-1)?.approval, "pending");
    assert.equal(sent(), 1);
    // Still pending: resume does not run it.
    assert.equal((await connection.toolkit.resume(approvalId)).errorCode, "approval_pending");
    assert.equal(sent(), 1);
    // A person approves in the store; resume runs it exactly once.
    await store.approve(approvalId, { by: "reviewer" });
    const done = await connection.toolkit.resume(approvalId);
    assert.deepEqual([done.text, done.effect, done.errorCode], [["later"], "committed", undefined]);
    assert.equal(events.at(-1)?.approval, "approved");
    assert.equal(events.at(-1)?.tool, "echo");
    assert.equal(sent(), 2);
    const again = await connection.toolkit.resume(approvalId);
    assert.equal(again.errorCode, "approval_already_claimed");
    assert.equal(sent(), 2);
    // A denied approval never runs.
    const second = await connection.toolkit.call("docs__write_like", {});
    await store.deny(second.approvalId!, { by: "reviewer" });
    const refused = await connection.toolkit.resume(second.approvalId!);
    assert.equal(refused.errorCode, "approval_denied");
    assert.equal(events.at(-1)?.approval, "denied");
    assert.equal(sent(), 2);
    assert.equal((await connection.toolkit.resume("no-such-id")).errorCode, "approval_not_found");
    // Approved with edits: resume runs the person's arguments, once, and says so.
    const third = await connection.toolkit.call("docs__echo", { message: "the model's" });
    await store.approveWithEdits(third.approvalId!, {
      by: "reviewer",
      arguments: { message: "the person's" },
    });
    const edited = await connection.toolkit.resume(third.approvalId!);
    assert.deepEqual([edited.text, edited.effect], [
      [APPROVAL_TEXT.edited, "the person's"],
      "committed",
    ]);
    assert.equal(sent(), 3);
    assert.equal(
      (await connection.toolkit.resume(third.approvalId!)).errorCode,
      "approval_already_claimed",
    );
    assert.equal(sent(), 3);
  } finally {
    await connection.close();
    await server.close();
  }
});
