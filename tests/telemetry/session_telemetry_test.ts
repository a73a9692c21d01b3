/**
 * Every request sluice sends, traced: `server/discover` / `initialize`, `tools/list`,
 * `tools/call` (the gate's span) and `subscriptions/listen`, on connect()'s sessions and a
 * host-owned one, with the conventions' JSON-RPC and network attributes, trace context in
 * `params._meta` that a server on the official SDK (`fixtures/traced_server.ts`) extracts so its
 * SERVER spans join the client's trace, a JSON-RPC error's status code, and the session's
 * duration.
 */
import assert from "node:assert/strict";
import {
  context,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import {
  CatalogMonitor,
  connect,
  discoverTools,
  Gate,
  type GateTelemetry,
  TELEMETRY_METRICS,
  tracedSession,
} from "../../mod.ts";
import { startTracedServer, W3C_PROPAGATOR } from "../../fixtures/traced_server.ts";
import { histogram, type OtelSdk, startOtelSdk } from "../../fixtures/otel_sdk.ts";

/** The host's propagator hook, as docs/telemetry.md shows it, with the W3C propagators. */
const inject: GateTelemetry["inject"] = (carrier, span) =>
  W3C_PROPAGATOR.inject(
    span ? trace.setSpan(ROOT_CONTEXT, span as Span) : context.active(),
    carrier,
    defaultTextMapSetter,
  );

function named(sdk: OtelSdk, name: string, kind = SpanKind.CLIENT): ReadableSpan[] {
  return sdk.spans().filter((span) => span.name === name && span.kind === kind);
}

/** The attributes of a `tools/list` span at `version`, to a server on 127.0.0.1:`port`. */
function listAttributes(list: ReadableSpan, version: string, port: number) {
  return {
    "mcp.method.name": "tools/list",
    "mcp.protocol.version": version,
    "jsonrpc.request.id": list.attributes["jsonrpc.request.id"],
    "sluice.server.id": "docs",
    "server.address": "127.0.0.1",
    "server.port": port,
    "network.transport": "tcp",
    "network.protocol.name": "http",
  };
}

function traceparentOf(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-01`;
}

/** The server's span of the request the client's `client` span made: a child of it. */
function assertJoined(sdk: OtelSdk, client: ReadableSpan, serverName: string): void {
  const servers = named(sdk, serverName, SpanKind.SERVER).filter((span) =>
    span.parentSpanContext?.spanId === client.spanContext().spanId
  );
  assert.equal(servers.length, 1, `one server span ${serverName} parented to ${client.name}`);
  assert.equal(servers[0].spanContext().traceId, client.spanContext().traceId);
}

Deno.test("telemetry: connect() to a 2026-07-28 server: a span per request, context in _meta, traces join", async () => {
  const sdk = startOtelSdk({ inject });
  const server = await startTracedServer(sdk.tracerProvider.getTracer("fixture-server"));
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo", "fail"],
    preApproved: ["echo", "fail"],
    transport: { dangerouslyAllowLoopback: true },
    telemetry: sdk.telemetry,
  });
  const address = {
    "server.address": "127.0.0.1",
    "server.port": Number(server.url.port),
    "network.transport": "tcp",
    "network.protocol.name": "http",
  };
  try {
    const ok = await connection.toolkit.call("docs__echo", { message: "hi" });
    assert.deepEqual(ok.text, ["hi"]);
    const failed = await connection.toolkit.call("docs__fail", {});
    assert.equal(failed.errorCode, "mcp_protocol_error");

    const [discover] = named(sdk, "server/discover");
    assert.ok(discover, "server/discover is traced");
    assert.deepEqual(discover.attributes, {
      "mcp.method.name": "server/discover",
      "jsonrpc.request.id": discover.attributes["jsonrpc.request.id"],
      "sluice.server.id": "docs",
      ...address,
    });
    // The SDK's probe has string ids of its own.
    assert.match(String(discover.attributes["jsonrpc.request.id"]), /^server-discover-probe-\d+$/);

    const [list] = named(sdk, "tools/list");
    assert.deepEqual(list.attributes, listAttributes(list, "2026-07-28", Number(server.url.port)));
    assert.notEqual(
      list.attributes["jsonrpc.request.id"],
      discover.attributes["jsonrpc.request.id"],
    );

    const [echo] = named(sdk, "tools/call echo");
    assert.equal(echo.attributes["mcp.protocol.version"], "2026-07-28");
    assert.equal(echo.attributes["network.transport"], "tcp");
    assert.match(String(echo.attributes["jsonrpc.request.id"]), /^\d+$/);
    assert.equal(named(sdk, "tools/call").length, 0, "no second span for the call's request");

    const [fail] = named(sdk, "tools/call fail");
    assert.equal(fail.status.code, SpanStatusCode.ERROR);
    assert.equal(fail.status.message, undefined, "no remote error text");
    assert.equal(fail.attributes["rpc.response.status_code"], "-32602");
    assert.equal(fail.attributes["error.type"], "-32602");
    assert.equal(fail.attributes["sluice.error_code"], "mcp_protocol_error");

    // The server saw each request's context, unprefixed, and its spans are the client's children.
    const calls = server.received.filter((request) => request.method === "tools/call");
    assert.deepEqual(calls.map((request) => request.meta.traceparent), [
      traceparentOf(echo),
      traceparentOf(fail),
    ]);
    const discovered = server.received.find((request) => request.method === "server/discover");
    assert.equal(discovered?.meta.traceparent, traceparentOf(discover));
    assertJoined(sdk, list, "tools/list");
    assertJoined(sdk, echo, "tools/call echo");
    assertJoined(sdk, fail, "tools/call fail");

    const metrics = await sdk.metrics();
    const operations = histogram(metrics.get(TELEMETRY_METRICS.operationDuration)).dataPoints;
    const methods = operations.map((point) => String(point.attributes["mcp.method.name"])).sort();
    assert.deepEqual([...new Set(methods)], ["server/discover", "tools/call", "tools/list"]);
    const failedPoint = operations.find((point) => point.attributes["error.type"] === "-32602");
    assert.equal(failedPoint?.attributes["rpc.response.status_code"], "-32602");
  } finally {
    await connection.close();
  }
  try {
    const metrics = await sdk.metrics();
    const sessions = histogram(metrics.get(TELEMETRY_METRICS.sessionDuration));
    assert.equal(sessions.descriptor.unit, "s");
    assert.equal(sessions.dataPoints.length, 1);
    assert.deepEqual(sessions.dataPoints[0].attributes, {
      "mcp.protocol.version": "2026-07-28",
      ...address,
    });
    assert.equal(sessions.dataPoints[0].value.count, 1);
  } finally {
    await sdk.shutdown();
    await server.close();
  }
});

Deno.test("telemetry: connect() with change detection traces subscriptions/listen until its ack", async () => {
  const sdk = startOtelSdk({ inject });
  const server = await startTracedServer(sdk.tracerProvider.getTracer("fixture-server"));
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    preApproved: ["echo"],
    changeDetection: true,
    transport: { dangerouslyAllowLoopback: true },
    telemetry: sdk.telemetry,
  });
  try {
    const listens = named(sdk, "subscriptions/listen");
    assert.equal(listens.length, 1, "one listen span, ended by the acknowledgement");
    assert.equal(listens[0].attributes["mcp.method.name"], "subscriptions/listen");
    assert.match(String(listens[0].attributes["jsonrpc.request.id"]), /^listen:/);
  } finally {
    await connection.close();
    await sdk.shutdown();
    await server.close();
  }
});

Deno.test("telemetry: a host-owned 2025-11-25 session: tools/list and tools/call traced, context in _meta", async () => {
  const sdk = startOtelSdk({ inject });
  const server = await startTracedServer(sdk.tracerProvider.getTracer("fixture-server"));
  const client = new Client({ name: "host", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "legacy" },
  });
  const transport = new StreamableHTTPClientTransport(server.url);
  const monitor = new CatalogMonitor();
  transport.onmessage = monitor.onMessage;
  await client.connect(transport);
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion()!);
  try {
    const session = tracedSession(client, sdk.telemetry, {
      serverId: "docs",
      address: "127.0.0.1",
      port: Number(server.url.port),
    });
    const catalog = await discoverTools(session, "docs", {
      echo: {
        localName: "echo",
        policy: { mode: "read", title: "Echo" },
        scope: null,
        concurrencySafe: true,
      },
    }, { monitor });
    const gate = new Gate({ catalogs: [catalog], telemetry: sdk.telemetry });
    const [envelope] = await gate.run(
      [{ id: "c1", name: "echo", arguments: { message: "hi" } }],
      { runId: "run-1" },
    );
    assert.deepEqual(envelope.text, ["hi"]);
    const [list] = named(sdk, "tools/list");
    assert.deepEqual(list.attributes, listAttributes(list, "2025-11-25", Number(server.url.port)));
    // The host's handshake was its own (initialize was id 0): sluice's requests come after.
    assert.equal(list.attributes["jsonrpc.request.id"], "1");
    const [echo] = named(sdk, "tools/call echo");
    assert.equal(echo.attributes["jsonrpc.request.id"], "2");
    assert.equal(echo.attributes["mcp.protocol.version"], "2025-11-25");
    assert.equal(sdk.spans().filter((span) => span.kind === SpanKind.CLIENT).length, 2);
    const call = server.received.find((request) => request.method === "tools/call");
    assert.equal(call?.meta.traceparent, traceparentOf(echo));
    assertJoined(sdk, list, "tools/list");
    assertJoined(sdk, echo, "tools/call echo");
  } finally {
    monitor.close();
    await client.close();
    await sdk.shutdown();
    await server.close();
  }
});

Deno.test("telemetry: without inject nothing is added to _meta", async () => {
  const sdk = startOtelSdk();
  const server = await startTracedServer(sdk.tracerProvider.getTracer("fixture-server"));
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    preApproved: ["echo"],
    transport: { dangerouslyAllowLoopback: true },
    telemetry: sdk.telemetry,
  });
  try {
    await connection.toolkit.call("docs__echo", { message: "hi" });
    assert.ok(server.received.length >= 3);
    assert.deepEqual(
      server.received.map((request) => request.meta),
      server.received.map(() => ({})),
    );
    assert.equal(named(sdk, "tools/call echo").length, 1);
  } finally {
    await connection.close();
    await sdk.shutdown();
    await server.close();
  }
});
