/**
 * DPoP (RFC 9449) end to end through connect(): oidc-provider (its own process) issues
 * DPoP-bound tokens and requires its nonce, the protected MCP server takes bound tokens only
 * and requires its own nonce. Checked from both servers' records: every token request and
 * every MCP request carried a fresh proof for its own method and URL, the bound token never
 * travelled as Bearer, the private key never travelled, a refresh stayed bound to the same
 * key, and a token bound to a key this client does not hold is never presented.
 */
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { codeOf, connect, ConnectError, MemoryTokenStore, OAuthClient } from "../../mod.ts";
import { browserTestsRun } from "../support/inbox_browser.ts";
import { authorizeInBrowser } from "../support/oauth_browser.ts";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
} from "../../fixtures/oauth_mcp_server.ts";
import {
  echoAcrossExpiry,
  MCP_OPTIONS as OPTIONS,
  testKeyPair,
  tokenRequestsAfter,
  withCodeFlowWorld,
} from "./oauth_support.ts";

const RS_NONCE = "resource-server-nonce-1";

/** A proof's claims and public key, as the servers received it. */
function readProof(proof: string) {
  const header = decodeProtectedHeader(proof);
  return { claims: decodeJwt(proof), jwk: header.jwk as JsonWebKey, typ: header.typ };
}

Deno.test({
  name: "DPoP with both servers' nonces: client credentials, bound tokens, a proof per request",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const mcp = await startProtectedMcpServer({ dpop: { nonce: RS_NONCE } });
  const as = await startAuthorizationServer(mcp.url, { dpopNonce: true });
  try {
    mcp.setIssuer(as.issuer);
    const store = new MemoryTokenStore();
    // No dpop option: the provider advertises ES256 and the MCP server's metadata takes DPoP.
    const auth = new OAuthClient({
      store,
      clientCredentials: { clientId: "m2m", clientSecret: "m2m-secret" },
    });
    const connection = await connect(mcp.url, { ...OPTIONS, auth });
    try {
      for (const message of ["one", "two"]) {
        const result = await connection.toolkit.call("docs__echo", { message });
        assert.equal(result.errorCode, undefined, JSON.stringify(result));
      }
    } finally {
      await connection.close();
    }
    // The token endpoint: a proof, `use_dpop_nonce`, the same request again with the nonce.
    const requests = await tokenRequestsAfter(as, 0, 2);
    assert.deepEqual(requests.map((request) => request.status), [400, 200]);
    const [first, second] = requests.map((request) => readProof(request.proof!));
    assert.equal(first!.claims.nonce, undefined);
    assert.equal(typeof second!.claims.nonce, "string");
    for (const proof of [first!, second!]) {
      assert.equal(proof.typ, "dpop+jwt");
      assert.equal(proof.claims.htm, "POST");
      assert.equal(proof.claims.htu, `${as.issuer}/token`);
      assert.equal(proof.jwk.d, undefined, "the proof carries the public key only");
    }
    const record = store.entries().find(([key]) => key.startsWith("tokens "))![1];
    assert.equal(record.token_type, "DPoP");
    const token = String(record.access_token);
    assert.equal((decodeJwt(token).cnf as { jkt?: string }).jkt, record.dpop_jkt);
    // The MCP server: the bound token with the DPoP scheme only, never as Bearer.
    const sent = mcp.authorizations.filter((header) => header !== null);
    assert.ok(sent.length > 2, `${sent.length} requests with the token`);
    assert.ok(sent.every((header) => header === `DPoP ${token}`), JSON.stringify(sent));
    // Its nonce was asked for once and carried from then on.
    const withToken = mcp.proofs.filter((seen) => seen.proof !== null);
    const claims = withToken.map((seen) => readProof(seen.proof!).claims);
    assert.equal(claims[0]!.nonce, undefined);
    assert.ok(claims.slice(1).every((claim) => claim.nonce === RS_NONCE));
    // A fresh proof per request, for that request's own method and URL, never reused.
    const jtis = new Set(claims.map((claim) => claim.jti));
    assert.equal(jtis.size, claims.length, "every jti is new");
    for (const [index, seen] of withToken.entries()) {
      const url = new URL(seen.url);
      assert.equal(claims[index]!.htm, seen.method);
      assert.equal(claims[index]!.htu, url.origin + url.pathname);
      assert.equal(typeof claims[index]!.ath, "string");
    }
    assert.ok(
      new Set(withToken.map((seen) => seen.method)).size >= 1 &&
        claims.every((claim) => claim.htu !== `${as.issuer}/token`),
    );
    // A proof captured on the way is refused when presented again (same jti), and for another
    // URL or method it does not match.
    const captured = withToken.at(-1)!;
    const replayed = await fetch(mcp.url, {
      method: "POST",
      headers: {
        authorization: `DPoP ${token}`,
        dpop: captured.proof!,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
    await replayed.body?.cancel();
    assert.equal(replayed.status, 401, "a replayed proof is refused");
    const elsewhere = new URL("/mcp/other", mcp.url);
    assert.notEqual(readProof(captured.proof!).claims.htu, elsewhere.origin + elsewhere.pathname);
  } finally {
    await as.stop();
    await mcp.close();
  }
});

Deno.test({
  name: "DPoP code flow in Chromium with the host's key pair: refreshed bound to the same key; " +
    "another key's client never presents the token",
  ignore: !browserTestsRun(),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const pair = await testKeyPair();
  const privateD = (await crypto.subtle.exportKey("jwk", pair.privateKey)).d!;
  await withCodeFlowWorld({ mcp: { dpop: {} }, as: { dpopNonce: true } }, async (world) => {
    const { mcp, as, browser, redirectUri, callback } = world;
    let authorizationUrl: URL | undefined;
    const store = new MemoryTokenStore();
    const client = { clientId: "web", clientSecret: "web-secret", issuer: as.issuer };
    const auth = new OAuthClient({
      store,
      redirectUri,
      redirect: (url) => {
        authorizationUrl = url;
      },
      clients: [client],
      dpop: pair,
    });
    await connect(mcp.url, { ...OPTIONS, auth }).then(
      () => assert.fail("connect() must reject before anyone authorized"),
      (error: unknown) => assert.ok(error instanceof ConnectError),
    );
    const jkt = authorizationUrl!.searchParams.get("dpop_jkt");
    assert.ok(jkt !== null, "the authorization request names the key (RFC 9449 §10)");
    await authorizeInBrowser(browser, authorizationUrl!.href, "alice");
    await auth.finish(await callback);
    await echoAcrossExpiry(mcp, auth);
    const done = as.tokenRequests.filter((request) => request.status === 200);
    assert.deepEqual(done.map((request) => request.grant), ["authorization_code", "refresh_token"]);
    for (const request of done) {
      assert.equal(
        readProof(request.proof!).jwk.x,
        (await crypto.subtle.exportKey(
          "jwk",
          pair.publicKey,
        )).x,
      );
    }
    const record = store.entries().find(([key]) => key.startsWith("tokens "))![1];
    assert.equal(record.token_type, "DPoP", "the refreshed token is bound too");
    assert.equal(record.dpop_jkt, jkt);
    assert.ok(mcp.authorizations.every((header) => header === null || header.startsWith("DPoP ")));
    // The private key is in nothing any server received, nor in the store.
    const everything = JSON.stringify([as.tokenRequests, mcp.proofs, store.entries()]);
    assert.ok(!everything.includes(privateD), "the private key never leaves the host");

    // Another process with a key of its own: the stored token and refresh token are bound to
    // the host's key, so they are not presented at all (neither as DPoP nor as Bearer).
    const before = mcp.authorizations.length;
    const tokensBefore = as.tokenRequests.length;
    const other = new OAuthClient({
      store,
      redirectUri,
      redirect: () => {},
      clients: [client],
      dpop: true,
    });
    const refused = await connect(mcp.url, { ...OPTIONS, auth: other }).then(
      () => assert.fail("a token bound to another key cannot be used"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ConnectError && refused.code === "auth_authorization_required");
    assert.ok(mcp.authorizations.slice(before).every((header) => header === null));
    assert.equal(as.tokenRequests.length, tokensBefore, "the bound refresh token is not sent");
  });
});

Deno.test({
  name: "dpop: true and a provider that issues a Bearer token anyway: refused, nothing sent",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url, { dpopDisabled: true });
  try {
    mcp.setIssuer(as.issuer);
    const auth = new OAuthClient({
      clientCredentials: { clientId: "m2m", clientSecret: "m2m-secret" },
      dpop: true,
    });
    const refused = await connect(mcp.url, { ...OPTIONS, auth }).then(
      () => assert.fail("a Bearer token where DPoP was asked for must be refused"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ConnectError, String(refused));
    assert.equal(refused.code, "auth_token_failed");
    const [request] = await tokenRequestsAfter(as, 0, 1);
    assert.equal(typeof request!.proof, "string", "the token request carried a proof");
    assert.ok(mcp.authorizations.every((header) => header === null), "no token was sent");
  } finally {
    await as.stop();
    await mcp.close();
  }
});

Deno.test("dpop: a key pair whose public key cannot be exported is refused up front", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const hidden = await crypto.subtle.importKey(
    "jwk",
    await crypto.subtle.exportKey("jwk", pair.publicKey),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const make = (dpop: unknown) => () =>
    new OAuthClient({
      clientCredentials: { clientId: "m2m", clientSecret: "s" },
      dpop: dpop as CryptoKeyPair,
    });
  assert.doesNotThrow(make(pair), "a non-extractable private key is what sluice wants");
  for (const bad of [{ privateKey: pair.privateKey, publicKey: hidden }, { privateKey: "k" }, {}]) {
    assert.throws(make(bad), (error: unknown) => codeOf(error) === "auth_config_invalid");
  }
});
