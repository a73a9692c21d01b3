/**
 * Loud failures: a server that cannot be reached or is refused makes `connect()` reject with a
 * `ConnectError` carrying the server's code; `connectAll` keeps partial success, says so in the
 * report, answers a call to a failed server's tool `mcp_server_unavailable` (the cause in
 * `envelope.cause`), rejects with `requireAll` (or when no server came up), and retries one
 * server with `reconnect(id)`. Real HTTP on loopback: the read fixture, and a port nothing
 * listens on (taken from the system, then closed).
 */
import assert from "node:assert/strict";
import {
  codeOf,
  connect,
  connectAll,
  ConnectConfigError,
  ConnectError,
  type ConnectEvent,
  MemoryApprovalStore,
} from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { freePort } from "../../fixtures/connect_servers.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

Deno.test("connect(): nobody listening rejects with ConnectError transport_failed, saying what to check", async () => {
  const port = freePort();
  const error = await connect(`http://127.0.0.1:${port}/mcp`, {
    id: "docs",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: LOOPBACK,
  }).then(() => undefined, (thrown: unknown) => thrown);
  assert.ok(error instanceof ConnectError, String(error));
  assert.equal(error.code, "transport_failed");
  assert.equal(codeOf(error), "transport_failed");
  assert.equal(error.server, "docs");
  assert.deepEqual(error.failures.map((failure) => [failure.server, failure.code]), [
    ["docs", "transport_failed"],
  ]);
  // People read it: the server, the origin, the code and what to check.
  assert.match(error.message, /"docs"/);
  assert.match(error.message, new RegExp(`http://127\\.0\\.0\\.1:${port}`));
  assert.match(error.message, /transport_failed/);
  assert.match(error.message, /running/);
});

Deno.test("connect(): plain http to loopback without the option rejects, naming the option", async () => {
  const server = await startHttpServer();
  try {
    const error = await connect(server.url, { id: "docs", allow: ["echo"] })
      .then(() => undefined, (thrown: unknown) => thrown);
    assert.ok(error instanceof ConnectError, String(error));
    assert.equal(error.code, "transport_scheme_refused");
    assert.match(error.message, /dangerouslyAllowLoopback/);
    assert.match(error.failures[0].reason, /dangerouslyAllowLoopback/);
    assert.equal(server.log.length, 0, "a refused URL reached the server");
  } finally {
    await server.close();
  }
});

Deno.test("connectAll: a down server is reported with a reason; its tools answer mcp_server_unavailable", async () => {
  const up = await startHttpServer();
  const port = freePort();
  const events: ConnectEvent[] = [];
  const connection = await connectAll({
    servers: [
      { id: "up", url: up.url },
      { id: "down", url: `http://127.0.0.1:${port}/mcp` },
    ],
    allow: ["up.echo", "down.echo", "down.add"],
    preApproved: ["up.echo", "down.echo", "down.add"],
    transport: LOOPBACK,
    onEvent: (event) => events.push(event),
  });
  try {
    const report = connection.report();
    const down = report.servers.find((server) => server.id === "down")!;
    assert.equal(down.status, "failed");
    assert.equal(down.errorCode, "transport_failed");
    assert.match(down.reason ?? "", /running/);
    assert.equal(report.servers.find((server) => server.id === "up")!.reason, undefined);
    assert.deepEqual(connection.toolkit.tools.map((tool) => tool.name), ["up__echo"]);
    assert.deepEqual(
      (await connection.toolkit.call("up__echo", { message: "hi" })).text,
      ["hi"],
    );
    const unavailable = await connection.toolkit.call("down__echo", { message: "hi" });
    assert.deepEqual(unavailable, {
      text: [],
      structured: null,
      errorCode: "mcp_server_unavailable",
      cause: "transport_failed",
    });
    // A name nobody allowed is still unknown.
    assert.equal((await connection.toolkit.call("down__nope", {})).errorCode, "unknown_tool");
    const call = events.filter((event) => event.kind === "call").at(-2)!;
    assert.deepEqual([call.server, call.tool, call.errorCode], [
      "down",
      "echo",
      "mcp_server_unavailable",
    ]);
  } finally {
    await connection.close();
    await up.close();
  }
});

Deno.test("connectAll: requireAll rejects like connect(); every server down rejects without it", async () => {
  const up = await startHttpServer();
  const port = freePort();
  try {
    const servers = [
      { id: "up", url: up.url },
      { id: "down", url: `http://127.0.0.1:${port}/mcp` },
    ];
    const required = await connectAll({
      servers,
      allow: ["up.echo", "down.echo"],
      transport: LOOPBACK,
      requireAll: true,
    }).then(() => undefined, (thrown: unknown) => thrown);
    assert.ok(required instanceof ConnectError, String(required));
    assert.equal(required.code, "transport_failed");
    assert.equal(required.server, "down");
    assert.deepEqual(required.failures.map((failure) => failure.server), ["down"]);

    const none = await connectAll({
      servers: [servers[1], { id: "other", url: `http://127.0.0.1:${port}/other` }],
      allow: ["down.echo", "other.echo"],
      transport: LOOPBACK,
    }).then(() => undefined, (thrown: unknown) => thrown);
    assert.ok(none instanceof ConnectError, String(none));
    assert.deepEqual(none.failures.map((failure) => [failure.server, failure.code]), [
      ["down", "transport_failed"],
      ["other", "transport_failed"],
    ]);
  } finally {
    await up.close();
  }
});

Deno.test("reconnect(id): the server comes up, its tools appear (new frozen list, exports, lock, events)", async () => {
  const up = await startHttpServer();
  const port = freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  // The lock of both servers as they are when both run.
  const later = await startHttpServer({ port });
  const reference = await connectAll({
    servers: [{ id: "up", url: up.url }, { id: "down", url }],
    allow: ["up.echo", "down.echo", "down.add"],
    preApproved: ["up.echo", "down.echo", "down.add"],
    transport: LOOPBACK,
  });
  const lock = await reference.lock();
  await reference.close();
  await later.close();

  const events: ConnectEvent[] = [];
  const connection = await connectAll({
    servers: [{ id: "up", url: up.url }, { id: "down", url }],
    allow: ["up.echo", "down.echo", "down.add"],
    preApproved: ["up.echo", "down.echo", "down.add"],
    transport: LOOPBACK,
    lock,
    onEvent: (event) => events.push(event),
  });
  let down: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  try {
    const before = connection.toolkit.tools;
    const exported = connection.toolkit.toAnthropicTools();
    assert.deepEqual(exported.map((tool) => tool.name), ["up__echo"]);
    assert.deepEqual(Object.keys((await connection.lock()).servers), ["up"]);

    // Still down: the retry rejects the same way, and nothing changes.
    const again = await connection.reconnect("down").then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(again instanceof ConnectError, String(again));
    assert.equal(again.code, "transport_failed");
    assert.equal(connection.toolkit.tools, before);
    assert.equal(
      (await connection.toolkit.call("down__echo", { message: "x" })).errorCode,
      "mcp_server_unavailable",
    );

    down = await startHttpServer({ port });
    const seen = events.length;
    const report = await connection.reconnect("down");
    assert.equal(report.status, "ready");
    assert.equal(report.errorCode, undefined);
    assert.deepEqual(
      events.slice(seen).map((event) => [event.kind, event.server, event.ok]),
      [["discovery", "down", true]],
    );
    // A new frozen list; the one handed out before stays as it was.
    assert.notEqual(connection.toolkit.tools, before);
    assert.ok(Object.isFrozen(connection.toolkit.tools));
    assert.deepEqual(before.map((tool) => tool.name), ["up__echo"]);
    assert.deepEqual(connection.toolkit.tools.map((tool) => tool.name), [
      "down__add",
      "down__echo",
      "up__echo",
    ]);
    // Exports made before are unchanged; exports made now include the server's tools.
    assert.deepEqual(exported.map((tool) => tool.name), ["up__echo"]);
    assert.deepEqual(connection.toolkit.toAnthropicTools().map((tool) => tool.name), [
      "down__add",
      "down__echo",
      "up__echo",
    ]);
    const providers = connection.report().providers.anthropic.tools.map((line) => line.tool);
    assert.deepEqual(providers, ["down__add", "down__echo", "up__echo"]);
    assert.deepEqual(
      (await connection.toolkit.call("down__echo", { message: "back" })).text,
      ["back"],
    );
    // The lock was checked: both tools match, and the lock now covers the server.
    const servers = connection.report().servers;
    assert.deepEqual(servers.find((server) => server.id === "down")!.lock?.matched, [
      "add",
      "echo",
    ]);
    assert.deepEqual(Object.keys((await connection.lock()).servers).toSorted(), ["down", "up"]);
    // A ready server: nothing to do.
    const handshakes = report.handshakes;
    assert.equal((await connection.reconnect("down")).handshakes, handshakes);
    await assert.rejects(
      () => connection.reconnect("nobody"),
      (error) => error instanceof ConnectConfigError && error.code === "connect_config_invalid",
    );
  } finally {
    await connection.close();
    await down?.close();
    await up.close();
  }
});

Deno.test("reconnect(id) under a lock: a tool that changed while the server was down is refused", async () => {
  const port = freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const first = await startHttpServer({ port });
  const reference = await connect(url, {
    id: "docs",
    allow: ["echo", "add"],
    preApproved: ["echo", "add"],
    transport: LOOPBACK,
  });
  const lock = await reference.lock();
  await reference.close();
  await first.close();
  const up = await startHttpServer();
  const connection = await connectAll({
    servers: [{ id: "up", url: up.url }, { id: "docs", url }],
    allow: ["up.echo", "docs.echo", "docs.add"],
    preApproved: ["up.echo", "docs.echo", "docs.add"],
    transport: LOOPBACK,
    lock: { ...lock, servers: { ...lock.servers } },
  });
  const changed = await startHttpServer({ port });
  try {
    changed.changeTools(); // echo's description differs from the locked one
    await connection.reconnect("docs");
    const report = connection.report();
    assert.deepEqual(
      report.skipped.filter((tool) => tool.server === "docs").map((tool) => [tool.tool, tool.code]),
      [["echo", "catalog_lock_mismatch"]],
    );
    assert.equal((await connection.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode, undefined);
    // Skipped for its own reason, not because its server is down.
    assert.equal(
      (await connection.toolkit.call("docs__echo", { message: "x" })).errorCode,
      "unknown_tool",
    );
  } finally {
    await connection.close();
    await changed.close();
    await up.close();
  }
});

Deno.test("resume of an approval whose server is down: mcp_server_unavailable, the approval stays usable", async () => {
  const port = freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const store = new MemoryApprovalStore();
  const options = {
    servers: [{ id: "docs", url }],
    allow: ["docs.write_like"],
    store,
    allowNonDurableStoreForTests: true,
    transport: LOOPBACK,
  };
  const first = await startHttpServer({ port });
  const before = await connectAll(options);
  const pending = await before.toolkit.call("docs__write_like", {});
  assert.equal(pending.errorCode, "approval_pending");
  await before.close();
  await first.close();
  await store.approve(pending.approvalId!, { by: "reviewer" });

  const other = await startHttpServer();
  const connection = await connectAll({
    ...options,
    servers: [...options.servers, { id: "other", url: other.url }],
    allow: [...options.allow, "other.echo"],
  });
  let back: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  try {
    const refused = await connection.toolkit.resume(pending.approvalId!);
    assert.deepEqual(refused, {
      text: [],
      structured: null,
      errorCode: "mcp_server_unavailable",
      cause: "transport_failed",
      effect: "not_started",
      approvalId: pending.approvalId,
    });
    assert.equal((await store.get(pending.approvalId!))?.state, "approved");
    back = await startHttpServer({ port });
    await connection.reconnect("docs");
    const resumed = await connection.toolkit.resume(pending.approvalId!);
    assert.deepEqual([resumed.errorCode, resumed.effect], [undefined, "committed"]);
  } finally {
    await connection.close();
    await back?.close();
    await other.close();
  }
});
