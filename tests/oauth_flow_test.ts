/**
 * OAuth against real parts on loopback: oidc-provider (its own process) as the authorization
 * server, a v2 SDK MCP server that checks JWT access tokens with jose, and connect() with an
 * `OAuthClient`. The browser step runs in headless Chromium on the provider's own login and
 * consent pages.
 */
import assert from "node:assert/strict";
import { connect, MemoryTokenStore, OAuthClient } from "../mod.ts";
import { startAuthorizationServer, startProtectedMcpServer } from "../fixtures/oauth_mcp_server.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 15_000 } as const;

Deno.test({
  name: "OAuthClient: client credentials against oidc-provider, 403 insufficient_scope named",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url);
  try {
    mcp.setIssuer(as.issuer);
    const auth = new OAuthClient({
      clientCredentials: { clientId: "m2m", clientSecret: "m2m-secret" },
    });
    const events: unknown[] = [];
    const connection = await connect(mcp.url, {
      id: "docs",
      auth,
      allow: ["echo"],
      preApproved: ["echo"],
      transport: LOOPBACK,
      onEvent: (event) => events.push(event),
    });
    try {
      const report = connection.report();
      assert.equal(report.servers[0]!.status, "ready", JSON.stringify(report));
      const result = await connection.toolkit.call("docs__echo", { message: "hi" });
      assert.equal(result.errorCode, undefined, JSON.stringify(result));
      mcp.requireScope("admin:write");
      const refused = await connection.toolkit.call("docs__echo", { message: "hi" });
      assert.equal(refused.errorCode, "auth_insufficient_scope", JSON.stringify(refused));
    } finally {
      await connection.close();
    }
  } finally {
    await as.stop();
    await mcp.close();
  }
});
