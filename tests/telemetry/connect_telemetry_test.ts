/**
 * `connect()` with telemetry, against real servers on loopback: a 2026-07-28 server
 * (`read_server_http.ts`) and a 2025-only one (`legacy_server_http.ts`). Every `toolkit.call`
 * is one span with the negotiated protocol version and the server's address and port taken
 * from its URL; an `isError` result is `tool_error` and its remote text is never recorded.
 */
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { connect, TELEMETRY_METRICS } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { startLegacyHttpServer } from "../../fixtures/legacy_server_http.ts";
import { REMOTE_SECRET } from "../../fixtures/read_tools.ts";
import { POISONED_TOOL, startPoisonedServer } from "../../fixtures/poisoned_server.ts";
import { histogram, startOtelSdk } from "../../fixtures/otel_sdk.ts";

const SERVERS = [
  { era: "2026-07-28", start: startHttpServer },
  { era: "2025-11-25", start: startLegacyHttpServer },
] as const;

for (const { era, start } of SERVERS) {
  Deno.test(`telemetry: connect() to a ${era} server: one span per call, address and version`, async () => {
    const server = await start();
    const sdk = startOtelSdk();
    const connection = await connect(server.url, {
      id: "docs",
      allow: ["echo", "is_error"],
      preApproved: ["echo", "is_error"],
      transport: { dangerouslyAllowLoopback: true },
      telemetry: sdk.telemetry,
    });
    try {
      const ok = await connection.toolkit.call("docs__echo", { message: "hi" });
      assert.deepEqual(ok.text, ["hi"]);
      const failed = await connection.toolkit.call("docs__is_error", {});
      assert.equal(failed.errorCode, "mcp_tool_error");
      const calls = sdk.spans().filter((span) => span.name.startsWith("tools/call"));
      const [echo, error] = calls;
      const handshake = sdk.spans().find((span) =>
        span.name === (era === "2026-07-28" ? "server/discover" : "initialize")
      );
      assert.ok(handshake, "the handshake's request is traced");
      if (era !== "2026-07-28") {
        // The initialize answer names the version; 2025 sessions have an id, on later spans.
        assert.equal(handshake.attributes["mcp.protocol.version"], era);
        assert.equal(handshake.attributes["jsonrpc.request.id"], "0");
        assert.equal(typeof echo.attributes["mcp.session.id"], "string");
        // The 2026-07-28 probe came first and failed: the HTTP status is its error type.
        const probe = sdk.spans().find((span) => span.name === "server/discover");
        assert.match(String(probe?.attributes["error.type"]), /^4\d\d$/);
      }
      const wire = {
        "jsonrpc.request.id": echo.attributes["jsonrpc.request.id"],
        "network.transport": "tcp",
        "network.protocol.name": "http",
        ...(era === "2026-07-28" ? {} : { "mcp.session.id": echo.attributes["mcp.session.id"] }),
      };
      assert.match(String(wire["jsonrpc.request.id"]), /^\d+$/);
      const address = {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": era,
        "server.address": "127.0.0.1",
        "server.port": Number(server.url.port),
        "sluice.server.id": "docs",
      };
      assert.equal(echo.name, "tools/call echo");
      assert.equal(echo.kind, SpanKind.CLIENT);
      assert.deepEqual(echo.attributes, {
        ...address,
        "gen_ai.tool.name": "echo",
        "sluice.tool.local_name": "docs__echo",
        "sluice.snapshot.digest": connection.report().servers[0].catalogDigest,
        "sluice.outcome": "ok",
        // The screen read the listed tool and found nothing; no lock was given.
        "sluice.screen.verdict": "clean",
        "sluice.lock.verdict": "unlocked",
        ...wire,
      });
      assert.equal(error.name, "tools/call is_error");
      assert.equal(error.status.code, SpanStatusCode.ERROR);
      assert.equal(error.attributes["error.type"], "tool_error");
      const recorded = JSON.stringify([error.attributes, error.events, error.status]);
      assert.ok(!recorded.includes(REMOTE_SECRET), "no remote error text");
      const metrics = await sdk.metrics();
      const points = histogram(metrics.get(TELEMETRY_METRICS.operationDuration)).dataPoints
        .filter((point) => point.attributes["mcp.method.name"] === "tools/call");
      assert.deepEqual(
        points.map((point) => point.attributes["error.type"] ?? null).sort(),
        [null, "tool_error"],
      );
    } finally {
      await connection.close();
      await sdk.shutdown();
      await server.close();
    }
  });
}

Deno.test("telemetry: the screen's verdict on a tool the host let through with a finding", async () => {
  const server = await startPoisonedServer();
  const sdk = startOtelSdk();
  const connection = await connect(server.url, {
    id: "calc",
    allow: [POISONED_TOOL],
    preApproved: [POISONED_TOOL],
    screenTools: { [POISONED_TOOL]: { hidden: "report" } },
    transport: { dangerouslyAllowLoopback: true },
    telemetry: sdk.telemetry,
  });
  try {
    await connection.toolkit.call(`calc__${POISONED_TOOL}`, { a: 2, b: 3 });
    const span = sdk.spans().find((span) => span.name === `tools/call ${POISONED_TOOL}`);
    assert.equal(span?.attributes["sluice.screen.verdict"], "findings");
    assert.equal(span?.attributes["sluice.screen.findings"], 1);
    assert.equal(span?.attributes["sluice.lock.verdict"], "unlocked");
    // The finding's text (the hidden instruction) is never recorded.
    assert.ok(!JSON.stringify(sdk.spans().map((s) => s.attributes)).includes("ssh"));
  } finally {
    await connection.close();
    await sdk.shutdown();
    await server.close();
  }
});
