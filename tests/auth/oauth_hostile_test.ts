/**
 * Hostile OAuth metadata: every URL the transport refuses, placed in `authorization_servers`,
 * `token_endpoint`, `registration_endpoint` and `jwks_uri`; an issuer mismatch; a redirect on
 * the token endpoint; an oversized metadata document. Each is refused before any request leaves
 * for the bad address: the underlying fetch (the network, here an in-process router on
 * https names a table resolver answers public) records every URL actually requested.
 * Client authentication: Basic credentials reach the token endpoint's exact URL and nothing
 * else, a private key is never sent (only an assertion for the issuer), a secret bound to its
 * issuer never goes to another, and no advertised method the client can use means no request.
 * Assertion grants: the person's ID token reaches the identity provider's checked token
 * endpoint only, the ID-JAG and a workload's JWT the authorization server's only, never in a
 * header; a refused or mismatched identity provider gets nothing; a refusal is not retried.
 * DPoP: a server that wants a new nonce every time gets one retry, each origin its own nonce,
 * every proof new and for its own URL, the bound token never as Bearer.
 */
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import {
  connect,
  type FetchFunction,
  OAuthClient,
  type OAuthClientOptions,
  type Resolver,
  secureFetch,
} from "../../mod.ts";
import { endpointFetch } from "../../src/auth/client_auth.ts";
import { setupCode } from "../../fixtures/connect_servers.ts";

const PUBLIC = "93.184.216.34";
const TABLE: Record<string, string> = {
  "mcp.test": PUBLIC,
  "as.test": PUBLIC,
  "plain.test": PUBLIC,
  "ftp.test": PUBLIC,
  "creds.test": PUBLIC,
  "evil.test": PUBLIC,
  "idp.test": PUBLIC,
  "internal.test": "10.0.0.7",
  "rebind.test": "127.0.0.1",
  "linklocal.test": "169.254.169.254",
};
const resolve: Resolver = (name) =>
  TABLE[name] ? Promise.resolve([TABLE[name]!]) : Promise.reject(new Error("NXDOMAIN"));

/** Each refused spelling, with the host that must never be requested. */
const SPELLINGS: readonly string[] = [
  "https://10.0.0.7/x",
  "https://169.254.169.254/latest/meta-data/",
  "https://127.0.0.1/x",
  "https://[::1]/x",
  "https://0x7f000001/x",
  "https://2130706433/x",
  "https://[::ffff:169.254.169.254]/x",
  "https://[fe80::1]/x",
  "https://localhost/x",
  "https://metadata.google.internal/x",
  "https://internal.test/x",
  "https://rebind.test/x",
  "https://linklocal.test/x",
  "http://plain.test/x",
  "ftp://ftp.test/x",
  "https://user:pw@creds.test/x",
];
const FIELDS = ["authorization_servers", "token_endpoint", "registration_endpoint", "jwks_uri"];

interface World {
  readonly requested: URL[];
  /** Every request as it left the hardened fetch: URL, headers, body. */
  readonly sent: { url: string; headers: Headers; body: string }[];
  readonly fetch: FetchFunction;
}

/** The network: `route` answers each request, every one recorded as it left the hardened fetch. */
function recording(route: (url: URL) => Response | Promise<Response>): World {
  const requested: URL[] = [];
  const sent: World["sent"] = [];
  const fetch: FetchFunction = async (input) => {
    const request = input as Request;
    const url = new URL(request.url);
    requested.push(url);
    sent.push({ url: request.url, headers: request.headers, body: await request.clone().text() });
    return await route(url);
  };
  return { requested, sent, fetch };
}

function world(
  asMetadata: (base: Record<string, unknown>) => unknown,
  servers?: unknown[],
  token?: () => Response,
): World {
  return recording((url) => {
    if (url.hostname === "mcp.test" && url.pathname === "/mcp") {
      return Promise.resolve(
        new Response(null, {
          status: 401,
          headers: {
            "www-authenticate":
              'Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"',
          },
        }),
      );
    }
    if (url.hostname === "mcp.test") {
      return Promise.resolve(Response.json({
        resource: "https://mcp.test/mcp",
        authorization_servers: servers ?? ["https://as.test"],
      }));
    }
    if (url.hostname === "as.test" && url.pathname === "/.well-known/oauth-authorization-server") {
      const body = asMetadata({
        issuer: "https://as.test",
        authorization_endpoint: "https://as.test/auth",
        token_endpoint: "https://as.test/token",
        registration_endpoint: "https://as.test/register",
        jwks_uri: "https://as.test/jwks",
        code_challenge_methods_supported: ["S256"],
      });
      return Promise.resolve(
        typeof body === "string" ? new Response(body) : Response.json(body),
      );
    }
    if (url.hostname === "as.test" && url.pathname === "/token" && token) {
      return Promise.resolve(token());
    }
    return Promise.resolve(new Response("unexpected", { status: 500 }));
  });
}

function serverCode(
  w: World,
  options: OAuthClientOptions = { clientCredentials: { clientId: "c", clientSecret: "s" } },
): Promise<string | undefined> {
  return setupCode(connect("https://mcp.test/mcp", {
    id: "docs",
    auth: new OAuthClient(options),
    allow: ["echo"],
    transport: { resolve, fetch: w.fetch, timeoutMs: 5_000 },
  }));
}

Deno.test("OAuth hostile metadata: every refused spelling in every field, before any request to it", async () => {
  for (const field of FIELDS) {
    for (const bad of SPELLINGS) {
      const w = field === "authorization_servers"
        ? world((base) => base, [bad])
        : world((base) => ({ ...base, [field]: bad }));
      const code = await serverCode(w);
      assert.equal(code, "auth_metadata_refused", `${field} = ${bad}`);
      const badHost = new URL(bad).hostname;
      const hosts = w.requested.map((url) => url.hostname);
      assert.ok(!hosts.includes(badHost), `${field} = ${bad}: requested ${hosts}`);
      assert.ok(hosts.every((host) => host === "mcp.test" || host === "as.test"));
      assert.ok(!w.requested.some((url) => url.pathname === "/token"), "no token request");
    }
  }
});

Deno.test("OAuth hostile metadata: issuer mismatch, token redirect, oversized document", async () => {
  const mismatch = world((base) => ({ ...base, issuer: "https://evil.test" }));
  assert.equal(await serverCode(mismatch), "auth_issuer_mismatch");
  assert.ok(!mismatch.requested.some((url) => url.pathname === "/token"));

  const redirect = world(
    (base) => base,
    undefined,
    () => new Response(null, { status: 302, headers: { location: "https://evil.test/steal" } }),
  );
  assert.equal(await serverCode(redirect), "transport_redirect_refused");
  assert.ok(!redirect.requested.some((url) => url.hostname === "evil.test"));

  const oversized = world((base) => JSON.stringify({ ...base, padding: "x".repeat(200_000) }));
  assert.equal(await serverCode(oversized), "transport_response_too_large");
  assert.ok(!oversized.requested.some((url) => url.pathname === "/token"));
});

const TOKEN = () => Response.json({ access_token: "issued-access", token_type: "Bearer" });

Deno.test("OAuth client_secret_basic: Basic credentials go to the token endpoint's URL only", async () => {
  const w = world(
    (base) => ({ ...base, token_endpoint_auth_methods_supported: ["client_secret_basic"] }),
    undefined,
    TOKEN,
  );
  // The server refuses the issued token (this world's MCP server answers 401 to everything).
  assert.equal(
    await serverCode(w, {
      clientCredentials: { clientId: "ops-client", clientSecret: "s3-cr:et" },
    }),
    "auth_unauthorized",
  );
  const basic = w.sent.filter((request) =>
    request.headers.get("authorization")?.startsWith("Basic")
  );
  assert.deepEqual(basic.map((request) => request.url), ["https://as.test/token"]);
  assert.equal(
    basic[0]!.headers.get("authorization"),
    `Basic ${btoa("ops-client:s3-cr%3Aet")}`,
    "RFC 6749 §2.3.1: each part form-encoded",
  );
  assert.ok(!basic[0]!.body.includes("s3-cr"), "the secret is not in the body too");
  for (const request of w.sent) {
    if (request.url === "https://as.test/token") continue;
    const header = request.headers.get("authorization");
    assert.ok(header === null || header === "Bearer issued-access", `${request.url}: ${header}`);
    assert.ok(!request.body.includes("s3-cr"), request.url);
  }
  assert.ok(
    w.sent.some((request) =>
      request.url === "https://mcp.test/mcp" &&
      request.headers.get("authorization") === "Bearer issued-access"
    ),
    "the access token went to the MCP server",
  );
});

Deno.test("OAuth client_secret_basic: the endpoint fetch refuses every other URL before sending", async () => {
  const w = world((base) => base);
  const send = endpointFetch({ resolve, fetch: w.fetch }, new URL("https://as.test/token"), "eA==");
  for (
    const other of ["https://as.test/token?x=1", "https://as.test/other", "https://evil.test/token"]
  ) {
    await assert.rejects(
      () => send(other, { method: "POST" }),
      (error: Error & { code?: string }) => error.code === "auth_credential_refused",
    );
  }
  assert.deepEqual(w.requested, [], "nothing left");
  // The hardened fetch itself: a caller-set Authorization never travels, and the Basic token
  // option reaches its origin only.
  const hardened = secureFetch({
    resolve,
    fetch: w.fetch,
    token: "eA==",
    tokenScheme: "Basic",
    tokenOrigin: "https://as.test",
  });
  await hardened("https://mcp.test/x", { headers: { authorization: "Basic stolen" } });
  await hardened("https://as.test/token", { method: "POST", body: "a=b" });
  assert.equal(w.sent[0]!.headers.get("authorization"), null);
  assert.equal(w.sent[1]!.headers.get("authorization"), "Basic eA==");
  assert.throws(
    () =>
      secureFetch({ token: "x", tokenOrigin: "https://as.test", tokenScheme: "Digest" as "Basic" }),
    (error: Error & { code?: string }) => error.code === "transport_config_invalid",
  );
});

Deno.test("OAuth private_key_jwt: the key never leaves, the assertion is for the issuer", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const jwk = { ...(await crypto.subtle.exportKey("jwk", pair.privateKey)), kid: "key-1" };
  for (const privateKey of [pair.privateKey, jwk]) {
    const w = world(
      (base) => ({
        ...base,
        token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"],
      }),
      undefined,
      TOKEN,
    );
    assert.equal(
      await serverCode(w, {
        clientCredentials: { clientId: "jwt-client", privateKey, clientSecret: "unused-secret" },
      }),
      "auth_unauthorized",
    );
    const token = w.sent.filter((request) => request.url === "https://as.test/token");
    assert.equal(token.length, 1);
    const body = new URLSearchParams(token[0]!.body);
    assert.equal(
      body.get("client_assertion_type"),
      "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    );
    assert.equal(body.get("client_secret"), null, "the key is preferred over the secret");
    const assertion = body.get("client_assertion")!;
    const { payload } = await jwtVerify(assertion, pair.publicKey, { audience: "https://as.test" });
    assert.equal(payload.iss, "jwt-client");
    assert.equal(payload.sub, "jwt-client");
    assert.equal(typeof payload.jti, "string");
    const header = decodeProtectedHeader(assertion);
    assert.equal(header.alg, "ES256");
    assert.equal(header.jwk, undefined, "no key in the header");
    if (privateKey === jwk) assert.equal(header.kid, "key-1");
    for (const request of w.sent) {
      const seen = request.body + JSON.stringify([...request.headers]);
      assert.ok(!seen.includes(jwk.d!), `the private key went to ${request.url}`);
      assert.ok(!seen.includes("unused-secret"), `the secret went to ${request.url}`);
      assert.ok(!request.headers.get("authorization")?.startsWith("Basic"), request.url);
    }
  }
});

Deno.test("OAuth pre-registered clients: a secret bound to its issuer never goes to another", async () => {
  const bound = world((base) => base, undefined, TOKEN);
  assert.equal(
    await serverCode(bound, {
      clientCredentials: {
        clientId: "c",
        clientSecret: "bound-secret",
        issuer: "https://other.test",
      },
    }),
    "auth_config_invalid",
  );
  assert.ok(!bound.requested.some((url) => url.pathname === "/token"));

  // No method the server advertises is one the client has credentials for: nothing is sent.
  const unsupported = world(
    (base) => ({ ...base, token_endpoint_auth_methods_supported: ["tls_client_auth"] }),
    undefined,
    TOKEN,
  );
  assert.equal(await serverCode(unsupported), "auth_client_auth_unsupported");
  assert.ok(!unsupported.requested.some((url) => url.pathname === "/token"));

  // A code-flow client pre-registered at this issuer: no registration request, Basic to /token.
  let authorization: URL | undefined;
  const code = world((base) => base, undefined, TOKEN);
  assert.equal(
    await serverCode(code, {
      redirectUri: "http://127.0.0.1:9/callback",
      redirect: (url) => {
        authorization = url;
      },
      clients: [
        { clientId: "elsewhere", clientSecret: "x", issuer: "https://other.test" },
        { clientId: "web", clientSecret: "web-secret", issuer: "https://as.test" },
      ],
    }),
    "auth_authorization_required",
  );
  assert.equal(authorization?.searchParams.get("client_id"), "web");
  assert.ok(!code.requested.some((url) => url.pathname === "/register"), "no registration");
});

/**
 * A 2025-03-26 server: no protected resource metadata, its authorization server's metadata at
 * its own origin (`metadata`), or none (`undefined`: that revision's default endpoints).
 */
function legacyWorld(metadata: Record<string, unknown> | undefined): World {
  return recording((url) => {
    if (url.pathname === "/mcp") {
      return new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server" && metadata !== undefined) {
      return Response.json(metadata);
    }
    if (url.pathname === "/token") return TOKEN();
    return new Response("not found", { status: 404 });
  });
}

function legacyCode(w: World, legacy: boolean): Promise<string | undefined> {
  return setupCode(connect("https://mcp.test/mcp", {
    id: "docs",
    auth: new OAuthClient({ clientCredentials: { clientId: "c", clientSecret: "s" } }),
    allow: ["echo"],
    transport: { resolve, fetch: w.fetch, timeoutMs: 5_000 },
    ...(legacy ? { legacyProtocolVersions: ["2025-11-25", "2025-06-18", "2025-03-26"] } : {}),
  }));
}

Deno.test("OAuth 2025-03-26 discovery: only when the host enables it, under the same checks", async () => {
  const origin = "https://mcp.test";
  const base = {
    issuer: `${origin}/oauth`,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/token`,
    code_challenge_methods_supported: ["S256"],
  };
  // Not enabled: no protected resource metadata is the RFC 9728 failure, nothing guessed.
  const off = legacyWorld(base);
  assert.equal(await legacyCode(off, false), "auth_metadata_invalid");
  assert.ok(!off.requested.some((url) => url.pathname.includes("oauth-authorization-server")));
  assert.ok(!off.requested.some((url) => url.pathname === "/token"));

  // Enabled: the origin's metadata (its issuer on that origin) names the token endpoint.
  const on = legacyWorld(base);
  assert.equal(await legacyCode(on, true), "auth_unauthorized");
  const tokenRequest = on.sent.find((request) => request.url === `${origin}/token`);
  assert.ok(tokenRequest !== undefined, JSON.stringify(on.requested));
  assert.equal(
    on.sent.find((request) => request.url.endsWith("/.well-known/oauth-authorization-server"))
      ?.headers.get("mcp-protocol-version"),
    "2025-03-26",
  );

  // No metadata either: the revision's default endpoints at the origin.
  const fallback = legacyWorld(undefined);
  assert.equal(await legacyCode(fallback, true), "auth_unauthorized");
  assert.ok(fallback.requested.some((url) => url.href === `${origin}/token`));

  // The same checks: a refused endpoint is never requested, another origin's issuer refused.
  for (
    const bad of ["https://10.0.0.7/token", "https://rebind.test/token", "http://plain.test/t"]
  ) {
    const refused = legacyWorld({ ...base, token_endpoint: bad });
    assert.equal(await legacyCode(refused, true), "auth_metadata_refused", bad);
    assert.ok(!refused.requested.some((url) => url.href === bad), bad);
  }
  const elsewhere = legacyWorld({ ...base, issuer: "https://evil.test" });
  assert.equal(await legacyCode(elsewhere, true), "auth_issuer_mismatch");
  assert.ok(!elsewhere.requested.some((url) => url.pathname === "/token"));
});

const ID_TOKEN = "person-id-token";
const ID_JAG = "the-id-jag";
const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
const ID_JAG_ANSWER = () =>
  Response.json({ access_token: ID_JAG, issued_token_type: ID_JAG_TYPE, token_type: "N_A" });

/**
 * The hostile world plus an enterprise identity provider at idp.test (OpenID discovery only);
 * the authorization server issues an access token the MCP server refuses, as everywhere here.
 */
function enterpriseWorld(
  idpMetadata: (base: Record<string, unknown>) => unknown = (base) => base,
  idpToken: () => Response = ID_JAG_ANSWER,
  asMetadata: (base: Record<string, unknown>) => unknown = (base) => base,
): World {
  const rest = world(asMetadata, undefined, TOKEN);
  return recording((url) => {
    if (url.hostname !== "idp.test") return rest.fetch(new Request(url));
    if (url.pathname === "/.well-known/openid-configuration") {
      return Response.json(idpMetadata({
        issuer: "https://idp.test",
        authorization_endpoint: "https://idp.test/authorize",
        token_endpoint: "https://idp.test/token",
        jwks_uri: "https://idp.test/jwks",
      }));
    }
    if (url.pathname === "/token") return idpToken();
    return new Response("not found", { status: 404 });
  });
}

const ENTERPRISE: OAuthClientOptions = {
  clients: [{ clientId: "mcp-client", clientSecret: "mcp-secret", issuer: "https://as.test" }],
  assertionGrant: {
    kind: "enterpriseManaged",
    identityProvider: "https://idp.test",
    identityProviderClient: { clientId: "idp-client", authMethod: "none" },
    idToken: ID_TOKEN,
  },
};

/** The requests that carried `secret` anywhere (URL, header, body). */
function carrying(w: World, secret: string): { url: string; inHeader: boolean }[] {
  return w.sent.flatMap((request) => {
    const inHeader = JSON.stringify([...request.headers]).includes(secret);
    return inHeader || request.body.includes(secret) || request.url.includes(secret)
      ? [{ url: request.url, inHeader }]
      : [];
  });
}

Deno.test("OAuth enterprise-managed: the ID token to the IdP's token endpoint, the ID-JAG to the AS's", async () => {
  const w = enterpriseWorld();
  assert.equal(await serverCode(w, ENTERPRISE), "auth_unauthorized");
  assert.deepEqual(carrying(w, ID_TOKEN), [{ url: "https://idp.test/token", inHeader: false }]);
  assert.deepEqual(carrying(w, ID_JAG), [{ url: "https://as.test/token", inHeader: false }]);
  const exchange = new URLSearchParams(
    w.sent.find((request) => request.url === "https://idp.test/token")!.body,
  );
  assert.deepEqual(Object.fromEntries(exchange), {
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: ID_JAG_TYPE,
    audience: "https://as.test",
    resource: "https://mcp.test/mcp",
    subject_token: ID_TOKEN,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    client_id: "idp-client",
  });
  const bearer = w.sent.find((request) => request.url === "https://as.test/token")!;
  const grant = new URLSearchParams(bearer.body);
  assert.equal(grant.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(grant.get("resource"), "https://mcp.test/mcp");
  assert.equal(bearer.headers.get("authorization"), `Basic ${btoa("mcp-client:mcp-secret")}`);
  assert.deepEqual(carrying(w, "mcp-secret"), [], "the secret is Basic-encoded, never plain");
  assert.ok(
    w.sent.some((request) =>
      request.url === "https://mcp.test/mcp" &&
      request.headers.get("authorization") === "Bearer issued-access"
    ),
  );
});

Deno.test("OAuth enterprise-managed: a refused or mismatched identity provider gets no ID token", async () => {
  for (const bad of SPELLINGS) {
    const w = enterpriseWorld((base) => ({ ...base, token_endpoint: bad }));
    assert.equal(await serverCode(w, ENTERPRISE), "auth_metadata_refused", bad);
    assert.deepEqual(carrying(w, ID_TOKEN), [], bad);
    assert.ok(!w.requested.some((url) => url.href === new URL(bad).href), bad);
  }
  const refusedIssuer = enterpriseWorld();
  assert.equal(
    await serverCode(refusedIssuer, {
      ...ENTERPRISE,
      assertionGrant: { ...ENTERPRISE.assertionGrant!, identityProvider: "https://10.0.0.7" },
    } as OAuthClientOptions),
    "auth_metadata_refused",
  );
  assert.ok(!refusedIssuer.requested.some((url) => url.hostname === "10.0.0.7"));
  const mismatch = enterpriseWorld((base) => ({ ...base, issuer: "https://evil.test" }));
  assert.equal(await serverCode(mismatch, ENTERPRISE), "auth_issuer_mismatch");
  assert.deepEqual(carrying(mismatch, ID_TOKEN), []);
  // The MCP server's own authorization server is checked first: nothing goes to the IdP.
  const badAs = enterpriseWorld(undefined, undefined, (base) => ({
    ...base,
    token_endpoint: "https://169.254.169.254/token",
  }));
  assert.equal(await serverCode(badAs, ENTERPRISE), "auth_metadata_refused");
  assert.ok(!badAs.requested.some((url) => url.hostname === "idp.test"));
  // A redirect from the IdP's token endpoint is not followed with the ID token.
  const redirect = enterpriseWorld(
    undefined,
    () => new Response(null, { status: 307, headers: { location: "https://evil.test/steal" } }),
  );
  assert.equal(await serverCode(redirect, ENTERPRISE), "transport_redirect_refused");
  assert.ok(!redirect.requested.some((url) => url.hostname === "evil.test"));
});

Deno.test("OAuth enterprise-managed: an exchange that issues no ID-JAG ends before the AS", async () => {
  for (
    const answer of [
      () =>
        Response.json({
          access_token: "x",
          issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
          token_type: "Bearer",
        }),
      () => Response.json({ access_token: "x", token_type: "N_A" }),
      () => Response.json({ error: "invalid_grant" }, { status: 400 }),
    ]
  ) {
    const w = enterpriseWorld(undefined, answer);
    assert.equal(await serverCode(w, ENTERPRISE), "auth_token_failed");
    assert.ok(!w.requested.some((url) => url.href === "https://as.test/token"));
  }
});

Deno.test("OAuth JWT bearer (workload identity): the JWT to the token endpoint only, a refusal is final", async () => {
  let asked = 0;
  const assertion = () => {
    asked++;
    return Promise.resolve("workload-jwt");
  };
  const options: OAuthClientOptions = {
    clients: [{ clientId: "workload", authMethod: "none" }],
    assertionGrant: { kind: "jwtBearer", assertion },
  };
  const w = world((base) => base, undefined, TOKEN);
  assert.equal(await serverCode(w, options), "auth_unauthorized");
  assert.deepEqual(carrying(w, "workload-jwt"), [{
    url: "https://as.test/token",
    inHeader: false,
  }]);
  const body = new URLSearchParams(w.sent.find((r) => r.url === "https://as.test/token")!.body);
  assert.equal(body.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
  assert.equal(body.get("assertion"), "workload-jwt");
  assert.equal(body.get("client_id"), "workload");
  assert.equal(asked, 1);
  for (const error of ["invalid_grant", "invalid_scope", "unauthorized_client"]) {
    const refused = world(
      (base) => base,
      undefined,
      () => Response.json({ error }, { status: 400 }),
    );
    assert.equal(await serverCode(refused, options), "auth_token_failed", error);
    assert.equal(
      refused.requested.filter((url) => url.href === "https://as.test/token").length,
      1,
      `${error}: one token request, no retry, no other grant`,
    );
  }
});

Deno.test("OAuth assertion grants: checked when the client is made, and need a client at the issuer", async () => {
  for (
    const grant of [
      { kind: "saml" },
      { kind: "jwtBearer", assertion: "" },
      {
        kind: "enterpriseManaged",
        identityProvider: "nope",
        identityProviderClient: { clientId: "c" },
        idToken: "t",
      },
      {
        kind: "enterpriseManaged",
        identityProvider: "https://idp.test",
        identityProviderClient: {},
        idToken: "t",
      },
      {
        kind: "enterpriseManaged",
        identityProvider: "https://idp.test",
        identityProviderClient: { clientId: "c" },
      },
    ]
  ) {
    assert.throws(
      () => new OAuthClient({ assertionGrant: grant as never }),
      (error: Error & { code?: string }) => error.code === "auth_config_invalid",
      JSON.stringify(grant),
    );
  }
  const w = enterpriseWorld();
  assert.equal(
    await serverCode(w, {
      ...ENTERPRISE,
      clients: [{ clientId: "elsewhere", clientSecret: "s", issuer: "https://other.test" }],
    }),
    "auth_config_invalid",
  );
  assert.deepEqual(carrying(w, ID_TOKEN), [], "no client here: the ID token is not exchanged");
});

Deno.test("OAuth DPoP: nonces kept per origin, one retry each, every proof fresh for its URL", async () => {
  let rsNonces = 0;
  let tokenCalls = 0;
  const w = recording((url) => {
    if (url.hostname === "mcp.test" && url.pathname === "/mcp") {
      // A server that wants a new nonce every time: the client must not loop.
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate": 'DPoP error="use_dpop_nonce", resource_metadata=' +
            '"https://mcp.test/.well-known/oauth-protected-resource/mcp"',
          "dpop-nonce": `rs-${++rsNonces}`,
        },
      });
    }
    if (url.hostname === "mcp.test") {
      return Response.json({
        resource: "https://mcp.test/mcp",
        authorization_servers: ["https://as.test"],
        dpop_signing_alg_values_supported: ["ES256"],
      });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: "https://as.test",
        token_endpoint: "https://as.test/token",
        dpop_signing_alg_values_supported: ["ES256"],
      });
    }
    if (url.pathname === "/token") {
      return ++tokenCalls === 1
        ? Response.json({ error: "use_dpop_nonce" }, {
          status: 400,
          headers: { "dpop-nonce": "as-nonce" },
        })
        : Response.json({ access_token: "bound-access", token_type: "DPoP" });
    }
    return new Response("unexpected", { status: 500 });
  });
  assert.equal(await serverCode(w), "auth_unauthorized");
  const proofs = w.sent.map((request) => {
    const proof = request.headers.get("dpop");
    return { request, claims: proof === null ? undefined : decodeJwt(proof) };
  });
  const tokenProofs = proofs.filter(({ request }) => request.url === "https://as.test/token");
  assert.deepEqual(tokenProofs.map(({ claims }) => claims?.nonce), [undefined, "as-nonce"]);
  const mcpProofs = proofs.filter(({ claims, request }) =>
    claims !== undefined && request.url.startsWith("https://mcp.test/mcp")
  );
  // The bound token once without a nonce, once with the one that answer gave (rs-1 went to the
  // request without a token): then it stops.
  assert.deepEqual(mcpProofs.map(({ claims }) => claims!.nonce), [undefined, "rs-2"]);
  assert.equal(rsNonces, 3, "three requests to the MCP server in all");
  for (const { request, claims } of [...tokenProofs, ...mcpProofs]) {
    const url = new URL(request.url);
    assert.equal(claims!.htu, url.origin + url.pathname);
    assert.equal(claims!.htm, "POST");
  }
  for (const { request } of mcpProofs) {
    assert.equal(request.headers.get("authorization"), "DPoP bound-access", "never as Bearer");
  }
  const jtis = [...tokenProofs, ...mcpProofs].map(({ claims }) => claims!.jti);
  assert.equal(new Set(jtis).size, jtis.length, "no proof is sent twice");
  assert.ok(
    w.sent.every((request) =>
      request.url.startsWith("https://as.test/token") ||
      !request.headers.get("authorization")?.startsWith("Bearer")
    ),
  );
});
