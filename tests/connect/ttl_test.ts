/**
 * The bounds on re-listing after a `ttlMs` hint: a hostile 0 cannot make connect() list in a
 * loop, a huge hint does not park the timer beyond an hour.
 */
import assert from "node:assert/strict";
import { connect, ConnectError } from "../../mod.ts";
import {
  MODERN_HANDLERS,
  result,
  type ScriptedRequest,
  startScriptedServer,
  tool,
} from "../../fixtures/connect_servers.ts";
import { MAX_TTL_RELIST_MS, MIN_TTL_RELIST_MS, ttlRelistDelay } from "../../src/connect/ttl.ts";

Deno.test("ttlRelistDelay() clamps the hint to 1 s..1 h", () => {
  assert.equal(MIN_TTL_RELIST_MS, 1_000);
  assert.equal(MAX_TTL_RELIST_MS, 3_600_000);
  assert.equal(ttlRelistDelay(0), MIN_TTL_RELIST_MS);
  assert.equal(ttlRelistDelay(1), MIN_TTL_RELIST_MS);
  assert.equal(ttlRelistDelay(999), MIN_TTL_RELIST_MS);
  assert.equal(ttlRelistDelay(1_000), 1_000);
  assert.equal(ttlRelistDelay(45_000), 45_000);
  assert.equal(ttlRelistDelay(Number.MAX_SAFE_INTEGER), MAX_TTL_RELIST_MS);
});

/** connect() with change detection against a scripted 2026-07-28 server listing `pages`. */
async function mechanismFor(pages: readonly Record<string, unknown>[]) {
  const server = startScriptedServer({
    ...MODERN_HANDLERS,
    // No listen on this server: it says so, as a JSON-RPC error.
    "subscriptions/listen": (request: ScriptedRequest) =>
      Response.json({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32601, message: "Method not found" },
      }),
    "tools/list": (request: ScriptedRequest) => {
      const cursor = request.params.cursor;
      const index = typeof cursor === "string" ? Number(cursor) : 0;
      return result(request, {
        tools: [tool(`tool_${index}`)],
        resultType: "complete",
        cacheScope: "private",
        ...(index + 1 < pages.length ? { nextCursor: String(index + 1) } : {}),
        ...pages[index],
      });
    },
  });
  let connection;
  try {
    connection = await connect(server.url, {
      allow: pages.map((_, index) => `tool_${index}`),
      changeDetection: true,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: 5_000 },
    });
  } catch (error) {
    await server.close();
    // The SDK's own result schema refuses the listing as a whole.
    if (error instanceof ConnectError) return `refused: ${error.code}`;
    throw error;
  }
  try {
    return connection.report().servers[0].changeDetection;
  } finally {
    await connection.close();
    await server.close();
  }
}

Deno.test("connect({ changeDetection }): only a non-negative integer ttlMs is a hint", async () => {
  assert.equal(await mechanismFor([{ ttlMs: 0 }]), "ttl");
  assert.equal(await mechanismFor([{ ttlMs: 60_000 }, { ttlMs: 5 }]), "ttl");
  // A hint that is not a non-negative integer is never taken: the SDK's result schema refuses
  // the whole listing, so connect() rejects rather than list on a bogus timer.
  for (const hostile of [-1, 1.5, "5", null, 1e400]) {
    assert.equal(
      await mechanismFor([{ ttlMs: hostile }]),
      "refused: mcp_protocol_error",
      String(hostile),
    );
  }
});
