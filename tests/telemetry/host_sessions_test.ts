/**
 * `tracedSession` over every host-owned session path the read suite knows (v1 and v2 SDK
 * clients, in memory, over stdio, Streamable HTTP in both eras): a `tools/list` sent through it
 * is one CLIENT span with the id the host's SDK gave the request, the network attributes the host
 * declared, and `mcp.protocol.version` (from a v2 client; from the host for a v1 client).
 */
import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import { tracedSession } from "../../mod.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";
import { SESSION_KINDS, withSession } from "../support/sessions.ts";

for (const kind of SESSION_KINDS) {
  Deno.test(`telemetry: tracedSession over a host-owned ${kind} client`, async () => {
    const sdk = startOtelSdk();
    try {
      await withSession(kind, {}, async (fixture) => {
        const pipe = kind === "stdio-v1";
        const session = tracedSession(fixture.client, sdk.telemetry, {
          serverId: "fixture",
          // What a v1 client over memory or stdio cannot say itself.
          ...(fixture.sdk === "v1" ? { protocolVersion: fixture.protocolVersion } : {}),
          ...(pipe ? { transport: "pipe" as const } : { address: "127.0.0.1" }),
        });
        await session.request("tools/list", {}, { timeoutMs: 10_000 });
        await session.request("tools/list", {}, { timeoutMs: 10_000 });
        const spans = sdk.spans().filter((span) => span.name === "tools/list");
        assert.equal(spans.length, 2);
        const [first, second] = spans;
        assert.equal(first.kind, SpanKind.CLIENT);
        // Consecutive ids of the host's SDK (numbered after its handshake's; the 2026-07-28 probe has ids of its own).
        const id = Number(first.attributes["jsonrpc.request.id"]);
        assert.ok(Number.isInteger(id) && id >= 0, `a request id: ${id}`);
        assert.equal(second.attributes["jsonrpc.request.id"], String(id + 1));
        assert.equal(first.attributes["network.transport"], pipe ? "pipe" : "tcp");
        assert.equal(first.attributes["network.protocol.name"], pipe ? undefined : "http");
        const version = first.attributes["mcp.protocol.version"];
        assert.equal(version, fixture.protocolVersion);
      });
    } finally {
      await sdk.shutdown();
    }
  });
}
