/**
 * OAuth against real parts on loopback: oidc-provider (its own process) as the authorization
 * server, a v2 SDK MCP server that checks JWT access tokens with jose, and connect() with an
 * `OAuthClient`. The browser step runs in headless Chromium on the provider's own login and
 * consent pages.
 */
import assert from "node:assert/strict";
import { AuthError, connect, ConnectError, MemoryTokenStore, OAuthClient } from "../../mod.ts";
import { LibsqlTokenStore } from "../../libsql.ts";
import { login } from "../../src/cli/login.ts";
import { browserTestsRun, launchChromium } from "../support/inbox_browser.ts";
import { authorizeInBrowser, withOAuthWorld } from "../support/oauth_browser.ts";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
} from "../../fixtures/oauth_mcp_server.ts";

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
      // The host learns which scopes the server asked for; the model sees only the code.
      assert.deepEqual(auth.scopeNeeded(mcp.url), ["admin:write"]);
      assert.deepEqual(refused.text, []);
    } finally {
      await connection.close();
    }
  } finally {
    await as.stop();
    await mcp.close();
  }
});

Deno.test({
  name: "OAuthClient: authorization code in Chromium, restart reuses the token, refresh once",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url);
  const callback = Promise.withResolvers<string>();
  const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    callback.resolve(request.url);
    return new Response("You may close this page.");
  });
  const redirectUri = `http://127.0.0.1:${listener.addr.port}/callback`;
  const browser = await launchChromium();
  const events: unknown[] = [];
  const reports: unknown[] = [];
  const envelopes: unknown[] = [];
  const errors: string[] = [];
  try {
    mcp.setIssuer(as.issuer);
    // The durable store, sealed with the host's key; the restart below opens the file again.
    const dir = await Deno.makeTempDir({ prefix: "sluice-oauth-" });
    const key = crypto.getRandomValues(new Uint8Array(32));
    const store = await LibsqlTokenStore.open(`${dir}/tokens.db`, { key });
    let authorizationUrl: URL | undefined;
    const auth = new OAuthClient({
      store,
      redirectUri,
      redirect: (url) => {
        authorizationUrl = url;
      },
    });
    const options = {
      id: "docs",
      allow: ["echo"],
      preApproved: ["echo"],
      transport: LOOPBACK,
      onEvent: (event: unknown) => events.push(event),
    };
    // No token yet: connect() rejects, naming what a person must do.
    const first = await connect(mcp.url, { ...options, auth }).then(
      () => assert.fail("connect() must reject before anyone authorized"),
      (error: unknown) => error,
    );
    assert.ok(first instanceof ConnectError, String(first));
    assert.equal(first.code, "auth_authorization_required");
    errors.push(first.message);
    assert.ok(authorizationUrl !== undefined, "redirect() got the authorization URL");
    assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorizationUrl.searchParams.get("resource"), mcp.url.href);

    // The person: oidc-provider's own development login and consent pages.
    await authorizeInBrowser(browser, authorizationUrl.href, "alice");
    const returned = await callback.promise;
    assert.ok(new URL(returned).searchParams.has("iss"), "RFC 9207 iss on the response");
    await auth.finish(returned);
    // A replayed callback is refused: its state was used once.
    await assert.rejects(() => auth.finish(returned), (error) => {
      errors.push(String(error), (error as Error).stack ?? "");
      return error instanceof AuthError && error.code === "auth_callback_invalid";
    });

    const second = await connect(mcp.url, { ...options, auth });
    reports.push(second.report());
    assert.equal(second.report().servers[0]!.status, "ready", JSON.stringify(second.report()));
    envelopes.push(await second.toolkit.call("docs__echo", { message: "after login" }));
    assert.equal((envelopes.at(-1) as { errorCode?: string }).errorCode, undefined);
    await second.close();

    // A restart: a new client over the same database file needs no person.
    store.close();
    const reopened = await LibsqlTokenStore.open(`${dir}/tokens.db`, { key });
    const restarted = new OAuthClient({
      store: reopened,
      redirectUri,
      redirect: () => assert.fail("a stored token must be reused"),
    });
    const third = await connect(mcp.url, { ...options, auth: restarted });
    reports.push(third.report());
    assert.equal(third.report().servers[0]!.status, "ready");
    const before = (await reopened.get(`tokens ${mcp.url.href}`))!;

    // Expired: the server refuses the token; sluice refreshes once and the call succeeds.
    mcp.expireIssuedTokens();
    const seen = mcp.authorizations.length;
    // Tokens issued from the next second on are valid again (JWT `iat` has second precision).
    await new Promise((r) => setTimeout(r, 1100));
    envelopes.push(await third.toolkit.call("docs__echo", { message: "after refresh" }));
    assert.equal(
      (envelopes.at(-1) as { errorCode?: string }).errorCode,
      undefined,
      JSON.stringify(envelopes.at(-1)),
    );
    const after = (await reopened.get(`tokens ${mcp.url.href}`))!;
    assert.notEqual(after.access_token, before.access_token, "a new access token");
    const sent = mcp.authorizations.slice(seen);
    assert.deepEqual(sent, [`Bearer ${before.access_token}`, `Bearer ${after.access_token}`]);
    mcp.requireScope("admin:write");
    envelopes.push(await third.toolkit.call("docs__echo", { message: "more scope" }));
    assert.equal((envelopes.at(-1) as { errorCode?: string }).errorCode, "auth_insufficient_scope");
    mcp.requireScope(undefined);
    reports.push(third.report());
    await third.close();

    // A dynamic registration as a public client (`none`): no credential on any token request.
    assert.ok(as.tokenRequests.length >= 2, JSON.stringify(as.tokenRequests));
    for (const request of as.tokenRequests) {
      assert.deepEqual(
        [request.scheme, request.secretInBody, request.assertion, request.status],
        [null, false, false, 200],
        JSON.stringify(request),
      );
    }

    // Sentinel: no token value in any event, report, envelope or error message.
    const secrets = [
      before.access_token,
      before.refresh_token,
      after.access_token,
      after.refresh_token,
    ]
      .filter((value): value is string => typeof value === "string");
    assert.ok(secrets.length >= 3);
    const haystack = JSON.stringify({ events, reports, envelopes, errors });
    for (const secret of secrets) assert.ok(!haystack.includes(secret), "a token leaked");
    reopened.close();
    const file = new TextDecoder("latin1").decode(await Deno.readFile(`${dir}/tokens.db`));
    for (const secret of secrets) assert.ok(!file.includes(secret), "a token in clear on disk");
    await Deno.remove(dir, { recursive: true });
  } finally {
    await browser.close();
    await listener.shutdown();
    await as.stop();
    await mcp.close();
  }
});

Deno.test({
  name: "login(): prints the URL, stores tokens that a later connect() uses, prints no token",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
}, () =>
  withOAuthWorld(async ({ mcp, browser }) => {
    const printed: string[] = [];
    const store = new MemoryTokenStore();
    const opened = Promise.withResolvers<string>();
    const exit = login({
      url: mcp.url.href,
      store,
      transport: LOOPBACK,
      output: {
        stdout: (text) => {
          printed.push(text);
          const match = /^(http\S+)$/m.exec(text);
          if (match) opened.resolve(match[1]!);
        },
        stderr: (text) => printed.push(text),
      },
    });
    await authorizeInBrowser(browser, await opened.promise, "operator");
    assert.equal(await exit, 0, printed.join(""));
    const tokens = (await store.get(`tokens ${mcp.url.href}`))!;
    assert.equal(typeof tokens.access_token, "string");
    for (const text of printed) {
      assert.ok(!text.includes(tokens.access_token as string), "the access token was printed");
      if (typeof tokens.refresh_token === "string") assert.ok(!text.includes(tokens.refresh_token));
    }
    const connection = await connect(mcp.url, {
      id: "docs",
      auth: new OAuthClient({
        store,
        redirectUri: "http://127.0.0.1:1/callback",
        redirect: () => assert.fail("login stored the tokens"),
      }),
      allow: ["echo"],
      preApproved: ["echo"],
      transport: LOOPBACK,
    });
    try {
      const result = await connection.toolkit.call("docs__echo", { message: "after login" });
      assert.equal(result.errorCode, undefined, JSON.stringify(result));
    } finally {
      await connection.close();
    }
  }));
