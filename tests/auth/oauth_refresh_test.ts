/**
 * A token is refreshed by the client registration that obtained it, across processes, against
 * the real OAuth world (oidc-provider in its own process, its default refresh-token policy: only
 * for `offline_access`): `sluice login` signs in from one process, its redirect listener on one
 * port; once the access token has expired, another process configured with a redirect URI on
 * another port connects, and the stored refresh token is presented as the login's client. No
 * person is asked, no client is registered again.
 */
import assert from "node:assert/strict";
import { LibsqlTokenStore } from "../../libsql.ts";
import { browserTestsRun } from "../support/inbox_browser.ts";
import { authorizeInBrowser, startLogin, withOAuthWorld } from "../support/oauth_browser.ts";
import { freePort } from "../../fixtures/connect_servers.ts";
import { root, run } from "../../fixtures/package/npm_cache.ts";

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

Deno.test({
  name:
    "sluice login, then another process with another redirect port: the expired token is refreshed as the login's client",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
}, () =>
  withOAuthWorld(async ({ mcp, as, browser }) => {
    const dir = await Deno.makeTempDir({ prefix: "sluice-refresh-" });
    const db = `${dir}/tokens.db`;
    const keyBytes = crypto.getRandomValues(new Uint8Array(32));
    const env = { SLUICE_TOKEN_KEY: base64(keyBytes) };
    try {
      const loginPort = freePort();
      const login = await startLogin(
        [Deno.execPath(), "run", "-A", "--quiet", "cli.ts"],
        [mcp.url.href, "--db", db, "--allow-loopback", "--port", String(loginPort)],
        env,
      );
      const asked = new URL(login.authorizationUrl);
      assert.equal(
        asked.searchParams.get("redirect_uri"),
        `http://127.0.0.1:${loginPort}/callback`,
      );
      // The authorization server lists offline_access: asked for, with the consent OIDC requires.
      assert.deepEqual(asked.searchParams.get("scope")?.split(" "), [
        "mcp:tools",
        "offline_access",
      ]);
      assert.equal(asked.searchParams.get("prompt"), "consent");
      await authorizeInBrowser(browser, login.authorizationUrl, "operator");
      const ended = await login.done;
      assert.equal(ended.code, 0, ended.stdout + ended.stderr);

      const store = await LibsqlTokenStore.open(db, { key: keyBytes });
      const before = (await store.get(`tokens ${mcp.url.href}`))!;
      const registration = await store.get(`client ${as.issuer}`);
      store.close();
      assert.equal(typeof before.refresh_token, "string", "a refresh token was issued");
      assert.equal(typeof before.client_id, "string");
      assert.equal(before.redirect_uri, `http://127.0.0.1:${loginPort}/callback`);
      assert.equal(registration?.client_id, before.client_id);

      // The access token expires; tokens issued from the next second on are valid again.
      mcp.expireIssuedTokens();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const seen = mcp.authorizations.length;
      const later = await run(Deno.execPath(), [
        "run",
        "-A",
        "--quiet",
        `${root}tests/support/oauth_connect_child.ts`,
        mcp.url.href,
        db,
        String(freePort()),
      ], { env, timeoutMs: 60_000 });
      assert.equal(later.code, 0, later.stderr);
      const outcome = JSON.parse(later.stdout.trim().split("\n").at(-1)!);
      assert.deepEqual(outcome, {
        redirected: false,
        envelope: { text: ["later"], structured: null },
      });

      const reopened = await LibsqlTokenStore.open(db, { key: keyBytes });
      const after = (await reopened.get(`tokens ${mcp.url.href}`))!;
      const registrationAfter = await reopened.get(`client ${as.issuer}`);
      reopened.close();
      assert.notEqual(after.access_token, before.access_token, "a new access token");
      assert.equal(after.client_id, before.client_id, "refreshed as the login's client");
      assert.equal(after.redirect_uri, before.redirect_uri);
      assert.deepEqual(registrationAfter, registration, "no client was registered again");
      // The old token was refused, then the refreshed one carried the call.
      const sent = mcp.authorizations.slice(seen);
      assert.equal(sent[0], `Bearer ${before.access_token}`);
      assert.ok(sent.includes(`Bearer ${after.access_token}`));
      assert.ok(!sent.includes(null), "never without a token");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }));
