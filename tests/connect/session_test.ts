// connect() sessions over real HTTP on loopback: the 2026-07-28 path against the v2 fixture
// (createMcpHandler), the legacy fallback and expired-session recovery against the v1 SDK's
// stateful Streamable HTTP transport, the version allowlist, era caching and owner specs.
// The servers' own request logs are the evidence.
import assert from "node:assert/strict";
import { connect, ConnectError, type ConnectEvent, EraCache } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { startLegacyHttpServer } from "../../fixtures/legacy_server_http.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { initializeResult, result, startScriptedServer } from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

Deno.test("2026-07-28: one HTTP request per call, with MCP-Protocol-Version, Mcp-Method, Mcp-Name", async () => {
  const server = await startHttpServer();
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo", "add"],
    preApproved: ["echo", "add"],
    transport: LOOPBACK,
  });
  try {
    const report = connection.report();
    assert.equal(report.servers[0].era, "2026-07-28");
    assert.equal(report.servers[0].protocolVersion, "2026-07-28");
    assert.deepEqual(report.ready.map((tool) => tool.name), ["docs__add", "docs__echo"]);
    // Setup: the discover probe and one tools/list page, nothing else.
    assert.deepEqual(server.log.map((entry) => entry.method), ["server/discover", "tools/list"]);
    const before = server.httpRequests();
    const calls = [
      ["docs__echo", { message: "one" }, "echo"],
      ["docs__add", { a: 2, b: 3 }, "add"],
      ["docs__echo", { message: "three" }, "echo"],
    ] as const;
    for (const [name, args] of calls) {
      const envelope = await connection.toolkit.call(name, args);
      assert.equal(envelope.errorCode, undefined);
    }
    assert.equal(server.httpRequests() - before, calls.length, "exactly one HTTP request per call");
    const logged = server.log.slice(-calls.length);
    calls.forEach(([, , remote], index) => {
      const entry = logged[index];
      assert.equal(entry.method, "tools/call");
      assert.equal(entry.toolName, remote);
      assert.deepEqual(entry.http, {
        httpMethod: "POST",
        protocolVersion: "2026-07-28",
        mcpMethod: "tools/call",
        mcpName: remote,
      });
    });
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("legacy fallback: one session, one HTTP request per call after set-up, headers set", async () => {
  const server = await startLegacyHttpServer();
  const connection = await connect(server.url, {
    id: "old",
    allow: ["echo", "add"],
    preApproved: ["echo", "add"],
    transport: LOOPBACK,
  });
  try {
    const report = connection.report();
    assert.equal(report.servers[0].era, "legacy");
    assert.equal(report.servers[0].protocolVersion, "2025-11-25");
    // The probe is refused by the 2025-only server, then the 2025 handshake and one list.
    assert.deepEqual(server.log.map((entry) => [entry.httpMethod, entry.method, entry.status]), [
      ["POST", "server/discover", 400],
      ["POST", "initialize", 200],
      ["POST", "notifications/initialized", 202],
      ["POST", "tools/list", 200],
    ]);
    const sessionId = server.log[2].sessionId;
    assert.ok(sessionId);
    const setUp = server.log.length;
    for (const message of ["a", "b", "c"]) {
      const envelope = await connection.toolkit.call("old__echo", { message });
      assert.deepEqual(envelope, { text: [message], structured: null });
    }
    const calls = server.log.slice(setUp);
    assert.equal(calls.length, 3, "one HTTP request per call, no GET stream, no re-initialize");
    for (const entry of calls) {
      assert.equal(entry.httpMethod, "POST");
      assert.equal(entry.method, "tools/call");
      assert.equal(entry.sessionId, sessionId);
      assert.equal(entry.protocolVersion, "2025-11-25");
    }
    assert.equal(server.sessionsCreated(), 1);
  } finally {
    await connection.close();
    await server.close();
  }
  // close() deleted the session on the server.
  assert.equal(server.log.at(-1)?.httpMethod, "DELETE");
});

Deno.test("a signal aborted before connect: no handshake is sent, connect() rejects with mcp_aborted", async () => {
  const server = await startHttpServer();
  const aborted = new AbortController();
  aborted.abort();
  try {
    await assert.rejects(
      () =>
        connect(server.url, {
          id: "docs",
          allow: ["echo"],
          preApproved: ["echo"],
          transport: LOOPBACK,
          signal: aborted.signal,
        }),
      (error) => error instanceof ConnectError && error.code === "mcp_aborted",
    );
    assert.equal(server.log.length, 0, "nothing reached the server");
  } finally {
    await server.close();
  }
});

Deno.test("expired legacy session: a 404 triggers one fresh initialize, then the call", async () => {
  const server = await startLegacyHttpServer();
  const connection = await connect(server.url, {
    id: "old",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: LOOPBACK,
  });
  try {
    assert.deepEqual(await connection.toolkit.call("old__echo", { message: "before" }), {
      text: ["before"],
      structured: null,
    });
    await server.expireSessions();
    const mark = server.log.length;
    assert.deepEqual(await connection.toolkit.call("old__echo", { message: "after" }), {
      text: ["after"],
      structured: null,
    });
    // The era is known: no second probe, straight to initialize on a new session.
    assert.deepEqual(server.log.slice(mark).map((entry) => [entry.method, entry.status]), [
      ["tools/call", 404],
      ["initialize", 200],
      ["notifications/initialized", 202],
      ["tools/call", 200],
    ]);
    assert.equal(server.sessionsCreated(), 2);
    assert.equal(connection.report().servers[0].handshakes, 2);

    // A server that keeps answering 404 gets exactly one more initialize per call, not a loop.
    server.setRejectSessions(true);
    const again = server.log.length;
    const envelope = await connection.toolkit.call("old__echo", { message: "lost" });
    // The re-initialize itself failed: the set-up's own code, not a generic transport error.
    assert.equal(envelope.errorCode, "mcp_handshake_failed");
    assert.deepEqual(server.log.slice(again).map((entry) => [entry.method, entry.status]), [
      ["tools/call", 404],
      ["initialize", 200],
      ["notifications/initialized", 404],
    ]);
    assert.equal(server.sessionsCreated(), 3);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("expired legacy session under an approved write: sent again after the 404, run once", async () => {
  const server = await startLegacyHttpServer();
  const dir = await Deno.makeTempDir({ prefix: "sluice-expired-write-" });
  const store = await LibsqlApprovalStore.open(`${dir}/approvals.db`);
  const connection = await connect(server.url, {
    id: "old",
    allow: ["write_like"],
    store,
    transport: LOOPBACK,
  });
  try {
    // Deferred: recorded pending, a person approves in the store, then resume dispatches.
    const pending = await connection.toolkit.call("old__write_like", {});
    assert.equal(pending.errorCode, "approval_pending");
    await store.approve(pending.approvalId!, { by: "reviewer" });
    await server.expireSessions();
    const mark = server.log.length;
    const envelope = await connection.toolkit.resume(pending.approvalId!);
    assert.deepEqual([envelope.text, envelope.effect, envelope.errorCode], [
      ["pretended to write"],
      "committed",
      undefined,
    ]);
    // The 404 says the server never ran the call on the expired session; the one 200 is the run.
    assert.deepEqual(
      server.log.slice(mark).map((entry) => [entry.method, entry.toolName, entry.status]),
      [
        ["tools/call", "write_like", 404],
        ["initialize", undefined, 200],
        ["notifications/initialized", undefined, 202],
        ["tools/call", "write_like", 200],
      ],
    );
    const record = await store.get(envelope.approvalId!);
    assert.equal(record?.state, "committed");
    assert.deepEqual((await store.events(record!.id)).map((event) => event.to), [
      "pending",
      "approved",
      "claimed",
      "committed",
    ]);
  } finally {
    await connection.close();
    await store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("version allowlist: an initialize answer outside 2025-06-18 / 2025-11-25 fails clearly", async () => {
  for (const answered of ["2024-11-05", "2099-01-01"]) {
    const server = startScriptedServer({
      initialize: (request) => result(request, initializeResult(answered)),
    });
    const events: ConnectEvent[] = [];
    try {
      const error = await connect(server.url, {
        id: "x",
        allow: ["echo"],
        transport: LOOPBACK,
        onEvent: (event) => events.push(event),
      }).then(() => undefined, (thrown: unknown) => thrown);
      assert.ok(error instanceof ConnectError, String(error));
      assert.equal(error.code, "mcp_protocol_version_unsupported");
      assert.match(error.message, /legacyProtocolVersions/);
      assert.equal(events[0].errorCode, "mcp_protocol_version_unsupported");
      // sluice never went past the refused answer: no tools/list was sent.
      assert.ok(!server.requests.some((request) => request.method === "tools/list"));
      assert.equal(
        server.requests.find((request) => request.method === "initialize")?.params
          .protocolVersion,
        "2025-11-25",
      );
    } finally {
      await server.close();
    }
  }
  // 2025-06-18 is on the list.
  const server = startScriptedServer({
    initialize: (request) => result(request, initializeResult("2025-06-18")),
  });
  const connection = await connect(server.url, { id: "x", allow: ["echo"], transport: LOOPBACK });
  try {
    assert.equal(connection.report().servers[0].protocolVersion, "2025-06-18");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("an EraCache skips the probe on later connects, for both eras", async () => {
  const modern = await startHttpServer();
  const legacy = await startLegacyHttpServer();
  const eras = new EraCache();
  try {
    for (let round = 0; round < 2; round++) {
      const a = await connect(modern.url, {
        allow: ["echo"],
        transport: LOOPBACK,
        eraCache: eras,
      });
      const b = await connect(legacy.url, {
        allow: ["echo"],
        transport: LOOPBACK,
        eraCache: eras,
      });
      await a.close();
      await b.close();
    }
    assert.equal(eras.eraOf(modern.url), "2026-07-28");
    assert.equal(eras.eraOf(legacy.url), "legacy");
    // Round one probed each server once; round two adopted the cached verdicts.
    assert.deepEqual(modern.log.map((entry) => entry.method), [
      "server/discover",
      "tools/list",
      "tools/list",
    ]);
    assert.equal(legacy.log.filter((entry) => entry.method === "server/discover").length, 1);
    assert.equal(legacy.log.filter((entry) => entry.method === "initialize").length, 2);
  } finally {
    await modern.close();
    await legacy.close();
  }
});

Deno.test("owner specs: nothing fetched at setup; the first request is the call's session set-up", async () => {
  const server = await startHttpServer();
  const ownerSchema = {
    type: "object",
    properties: { message: { type: "string", maxLength: 32 } },
    required: ["message"],
    additionalProperties: false,
  };
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    preApproved: ["echo"],
    specs: [{
      tool: "echo",
      description: "Owner: repeat a short message.",
      inputSchema: ownerSchema,
    }],
    transport: LOOPBACK,
  });
  try {
    assert.equal(server.httpRequests(), 0, "no request at setup");
    assert.equal(connection.report().servers[0].status, "deferred");
    assert.deepEqual(connection.toolkit.toAnthropicTools(), [{
      name: "docs__echo",
      description: "Owner: repeat a short message.",
      input_schema: ownerSchema,
    }]);
    // The owner's schema is enforced locally: the server is not contacted for a bad call.
    const refused = await connection.toolkit.call("docs__echo", { message: "x".repeat(33) });
    assert.equal(refused.errorCode, "mcp_invalid_arguments");
    assert.equal(server.httpRequests(), 0);
    const envelope = await connection.toolkit.call("docs__echo", { message: "hi" });
    assert.deepEqual(envelope, { text: ["hi"], structured: null });
    assert.deepEqual(server.log.map((entry) => entry.method), ["server/discover", "tools/call"]);
    assert.equal(connection.report().servers[0].status, "ready");
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("call signal: aborting ends the call in mcp_aborted at once, and the session stays usable", async () => {
  const server = await startLegacyHttpServer();
  const events: ConnectEvent[] = [];
  const connection = await connect(server.url, {
    id: "old",
    allow: ["slow", "echo"],
    preApproved: ["slow", "echo"],
    transport: LOOPBACK,
    onEvent: (event) => events.push(event),
  });
  try {
    const controller = new AbortController();
    const pending = connection.toolkit.call("old__slow", { ms: 60_000 }, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    // Order, not a time bound: the call settles before a sentinel at 30 s, half the tool's
    // 60 s, so a call that waited for the server's answer loses the race.
    let sentinel: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      sentinel = setTimeout(() => resolve("late"), 30_000);
    });
    const envelope = await Promise.race([pending, late]).finally(() => clearTimeout(sentinel));
    assert.ok(envelope !== "late", "the abort waited for the server");
    assert.equal(envelope.errorCode, "mcp_aborted");
    assert.deepEqual(events.at(-1), {
      kind: "call",
      server: "old",
      tool: "slow",
      ok: false,
      errorCode: "mcp_aborted",
      approval: "not_required",
      durationMs: events.at(-1)!.durationMs,
      catalogDigest: connection.report().servers[0].catalogDigest,
    });
    assert.deepEqual(await connection.toolkit.call("old__echo", { message: "next" }), {
      text: ["next"],
      structured: null,
    });
    assert.equal(server.sessionsCreated(), 1);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("close(): nothing of the handshake keeps the process alive until its deadline", async () => {
  const server = await startHttpServer();
  try {
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "tests/support/connect_close_child.ts", server.url.href],
      cwd: new URL("../../", import.meta.url).pathname,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    // Exit code 3: something (the handshake's 60 s deadline signal) outlived close().
    assert.equal(child.code, 0);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(child.stdout).trim()), {
      errorCode: null,
    });
  } finally {
    await server.close();
  }
});
