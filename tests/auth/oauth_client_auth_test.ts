/**
 * Client authentication at a real authorization server (oidc-provider in its own process, a
 * client registered per method) end to end through connect(): `client_secret_basic`,
 * `client_secret_post`, `private_key_jwt` with a CryptoKey and with a JWK, and a pre-registered
 * code flow client signed in from Chromium, refreshed later. The provider reports how each
 * token request authenticated; the MCP server reports every `Authorization` it received.
 */
import assert from "node:assert/strict";
import { connect, ConnectError, MemoryTokenStore, OAuthClient } from "../../mod.ts";
import type { PreRegisteredClient } from "../../mod.ts";
import { browserTestsRun, launchChromium } from "../support/inbox_browser.ts";
import { authorizeInBrowser } from "../support/oauth_browser.ts";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
  type TokenRequestSeen,
} from "../../fixtures/oauth_mcp_server.ts";
import {
  echoAcrossExpiry,
  MCP_OPTIONS as OPTIONS,
  testKeyPair,
  tokenRequestsAfter,
} from "./oauth_support.ts";

Deno.test({
  name: "client credentials against oidc-provider: Basic, post, private_key_jwt (CryptoKey, JWK)",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const pair = await testKeyPair();
  const publicJwk = { ...(await crypto.subtle.exportKey("jwk", pair.publicKey)), kid: "m2m-key" };
  const privateJwk = { ...(await crypto.subtle.exportKey("jwk", pair.privateKey)), kid: "m2m-key" };
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url, { jwk: publicJwk });
  const cases: { client: PreRegisteredClient; seen: Partial<TokenRequestSeen> }[] = [
    // oidc-provider lists every method: with a secret, Basic comes first.
    {
      client: { clientId: "m2m-basic", clientSecret: "m2m-basic-secret" },
      seen: { scheme: "Basic", client: "m2m-basic", secretInBody: false, assertion: false },
    },
    {
      client: { clientId: "m2m", clientSecret: "m2m-secret", authMethod: "client_secret_post" },
      seen: { scheme: null, client: "m2m", secretInBody: true, assertion: false },
    },
    {
      client: { clientId: "m2m-jwt", privateKey: pair.privateKey, keyId: "m2m-key" },
      seen: { scheme: null, client: "m2m-jwt", secretInBody: false, assertion: true },
    },
    {
      client: { clientId: "m2m-jwt", privateKey: privateJwk, issuer: as.issuer },
      seen: { scheme: null, client: "m2m-jwt", secretInBody: false, assertion: true },
    },
  ];
  try {
    mcp.setIssuer(as.issuer);
    for (const { client, seen } of cases) {
      const from = as.tokenRequests.length;
      const store = new MemoryTokenStore();
      const connection = await connect(mcp.url, {
        ...OPTIONS,
        auth: new OAuthClient({ store, clientCredentials: client }),
      });
      try {
        const result = await connection.toolkit.call("docs__echo", { message: "hi" });
        assert.equal(result.errorCode, undefined, `${client.clientId}: ${JSON.stringify(result)}`);
      } finally {
        await connection.close();
      }
      const [request] = await tokenRequestsAfter(as, from);
      const { scheme, client: id, secretInBody, assertion } = request!;
      assert.deepEqual({ scheme, client: id, secretInBody, assertion }, seen);
      assert.equal(request!.grant, "client_credentials");
      assert.equal(request!.status, 200, JSON.stringify(request));
      // The host's secret or key is not written to the store.
      const kept = JSON.stringify(store.entries());
      assert.ok(!kept.includes("secret") && !kept.includes(privateJwk.d!), kept);
    }
    assert.ok(
      mcp.authorizations.every((header) => header === null || header.startsWith("Bearer ")),
      "the MCP server saw bearer tokens only",
    );
  } finally {
    await as.stop();
    await mcp.close();
  }
});

Deno.test({
  name: "a pre-registered code flow client (client_secret_basic) in Chromium, refreshed with Basic",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const callback = Promise.withResolvers<string>();
  const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    callback.resolve(request.url);
    return new Response("You may close this page.");
  });
  const redirectUri = `http://127.0.0.1:${listener.addr.port}/callback`;
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url, { redirectUri });
  const browser = await launchChromium();
  try {
    mcp.setIssuer(as.issuer);
    let authorizationUrl: URL | undefined;
    const store = new MemoryTokenStore();
    const auth = new OAuthClient({
      store,
      redirectUri,
      redirect: (url) => {
        authorizationUrl = url;
      },
      clients: [
        { clientId: "web", clientSecret: "web-secret", issuer: as.issuer },
        { clientId: "not-this-one", clientSecret: "other", issuer: "https://other.example" },
      ],
    });
    const first = await connect(mcp.url, { ...OPTIONS, auth }).then(
      () => assert.fail("connect() must reject before anyone authorized"),
      (error: unknown) => error,
    );
    assert.ok(first instanceof ConnectError && first.code === "auth_authorization_required");
    assert.equal(authorizationUrl?.searchParams.get("client_id"), "web", "no registration");
    await authorizeInBrowser(browser, authorizationUrl!.href, "alice");
    const from = as.tokenRequests.length;
    await auth.finish(await callback.promise);
    // Expired: one refresh, authenticated the same way.
    await echoAcrossExpiry(mcp, auth);
    const requests = await tokenRequestsAfter(as, from, 2);
    assert.deepEqual(
      requests.map(({ scheme, client, secretInBody, grant, status }) => ({
        scheme,
        client,
        secretInBody,
        grant,
        status,
      })),
      ["authorization_code", "refresh_token"].map((grant) => ({
        scheme: "Basic",
        client: "web",
        secretInBody: false,
        grant,
        status: 200,
      })),
    );
    const kept = JSON.stringify(store.entries());
    assert.ok(!kept.includes("web-secret"), "the host's secret is not stored");
  } finally {
    await browser.close();
    await listener.shutdown();
    await as.stop();
    await mcp.close();
  }
});
