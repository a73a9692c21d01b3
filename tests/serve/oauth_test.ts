// `sluice serve` as an OAuth 2.1 protected resource, against a real authorization server
// (oidc-provider, its own process) issuing JWT access tokens for the endpoint's URL: the
// RFC 9728 metadata names it, a request without a token is 401 with `resource_metadata`, a
// v2 SDK client with a client-credentials token lists and calls only its client's allowlist,
// and a forged token, a token of a client not configured, or one without the required scope is
// refused. The events name the token's client.
import assert from "node:assert/strict";
import { generateKeyPair, SignJWT } from "jose";
import { MemoryApprovalStore } from "../../mod.ts";
import { serve, type ServeConfig, type Served, type ServeEvent } from "../../serve.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { startAuthorizationServer } from "../../fixtures/oauth_mcp_server.ts";
import { connectClient, docsConfig, outcomeOf, textOf } from "./setup.ts";

async function tokenFor(
  issuer: string,
  client: string,
  secret: string,
  resource: URL,
  scope?: string,
) {
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: client,
    client_secret: secret,
    resource: resource.href,
    ...(scope === undefined ? {} : { scope }),
  });
  const response = await fetch(`${issuer}/token`, { method: "POST", body });
  const json = await response.json();
  assert.equal(response.status, 200, JSON.stringify(json));
  return json.access_token as string;
}

Deno.test("serve oauth: JWT access tokens of a real authorization server; metadata, 401/403, per-client allowlists", async () => {
  const upstream = await startHttpServer();
  // The endpoint's URL must exist before the authorization server, which issues tokens for it.
  let served: Served | undefined;
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => served?.fetch(request) ?? new Response("starting", { status: 503 }),
  );
  const url = new URL(`http://127.0.0.1:${listener.addr.port}/mcp`);
  const as = await startAuthorizationServer(url);
  const events: ServeEvent[] = [];
  try {
    served = await serve(docsConfig(upstream.url, ["echo", "add"], {
      oauth: {
        issuer: as.issuer,
        resource: url.href,
        requiredScopes: ["mcp:tools"],
        clients: [{ clientId: "m2m", name: "agent", allow: ["docs__echo"] }],
      },
      onEvent: (event) => events.push(event),
    }));

    // RFC 9728 metadata, at the path-inserted well-known URL and at the root one.
    for (
      const path of [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
      ]
    ) {
      const metadata = await fetch(new URL(path, url));
      assert.equal(metadata.status, 200);
      assert.deepEqual(await metadata.json(), {
        resource: url.href,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp:tools"],
      });
    }
    const post = (authorization?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const bare = await post();
    assert.equal(bare.status, 401);
    assert.equal(
      bare.headers.get("www-authenticate"),
      `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
    );
    assert.deepEqual(await bare.json(), { error: "serve_unauthorized" });

    // A real token of the configured client: only its allowlist, under the client's name.
    const token = await tokenFor(as.issuer, "m2m", "m2m-secret", url, "mcp:tools");
    const client = await connectClient(url, token);
    try {
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["docs__echo"]);
      const echo = await client.callTool({ name: "docs__echo", arguments: { message: "hi" } });
      assert.deepEqual(textOf(echo), ["hi"]);
      const hidden = await client.callTool({ name: "docs__add", arguments: { a: 1, b: 2 } });
      assert.equal(outcomeOf(hidden).errorCode, "unknown_tool");
    } finally {
      await client.close();
    }
    const call = events.find((event) => event.kind === "call" && event.tool === "docs__echo");
    assert.equal(call?.kind === "call" ? call.client : undefined, "agent");
    assert.match(call?.kind === "call" ? call.runId : "", /^serve:agent:/);

    // A token signed by someone else's key, with the right claims: 401 invalid_token.
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await new SignJWT({ client_id: "m2m", scope: "mcp:tools" })
      .setProtectedHeader({ alg: "RS256", kid: "forged" }).setIssuer(as.issuer)
      .setAudience(url.href).setIssuedAt().setExpirationTime("5m").sign(privateKey);
    const refused = await post(`Bearer ${forged}`);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate")!, /error="invalid_token"/);
    await refused.body?.cancel();
    // A valid token of a client not configured: 403.
    const other = await tokenFor(as.issuer, "m2m-basic", "m2m-basic-secret", url, "mcp:tools");
    const forbidden = await post(`Bearer ${other}`);
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.headers.get("www-authenticate")!, /error="insufficient_scope"/);
    assert.deepEqual(await forbidden.json(), { error: "serve_forbidden" });
    // The configured client's token without the required scope: 403 naming it.
    const narrow = await tokenFor(as.issuer, "m2m", "m2m-secret", url);
    const unscoped = await post(`Bearer ${narrow}`);
    assert.equal(unscoped.status, 403);
    assert.match(unscoped.headers.get("www-authenticate")!, /scope="mcp:tools"/);
    await unscoped.body?.cancel();
    assert.ok(events.every((event) => !JSON.stringify(event).includes(token)));
  } finally {
    await served?.close();
    await listener.shutdown();
    await as.stop();
    await upstream.close();
  }
});

Deno.test("serve oauth: an issuer whose metadata cannot be read is serve_oauth_unavailable; bad settings are serve_config_invalid", async () => {
  // Checked before any upstream is contacted (this one does not exist).
  const serveToolkit = (_: unknown, options: ServeConfig["serve"]) =>
    serve({
      servers: [{ id: "docs", url: "http://127.0.0.1:1/mcp" }],
      allow: ["docs.echo"],
      store: new MemoryApprovalStore(),
      allowNonDurableStoreForTests: true,
      serve: options,
    });
  const toolkit = undefined;
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(
    () =>
      serveToolkit(toolkit, {
        oauth: {
          issuer: `http://127.0.0.1:${port}`,
          resource: "http://127.0.0.1:1/mcp",
          clients: [{ clientId: "a" }],
        },
      }),
    { code: "serve_oauth_unavailable" },
  );
  for (
    const oauth of [
      {
        issuer: "http://issuer.example",
        resource: "https://mcp.example/mcp",
        clients: [{ clientId: "a" }],
      },
      { issuer: "https://issuer.example", resource: "https://mcp.example/mcp", clients: [] },
      {
        issuer: "https://issuer.example",
        resource: "https://mcp.example/mcp",
        clients: [{ clientId: "a" }, { clientId: "a" }],
      },
    ]
  ) {
    await assert.rejects(() => serveToolkit(toolkit, { oauth }), { code: "serve_config_invalid" });
  }
  await assert.rejects(() => serveToolkit(toolkit, {}), { code: "serve_config_invalid" });
});
