/**
 * Provider profiles against oidc-provider made to deviate like Entra (refuses `resource` with
 * AADSTS9010010, wants `<resource>/.default`) and Auth0 (wants `audience`), end to end through
 * connect() with the client credentials grant: without the profile the provider refuses the
 * token request, with it the call goes through; a profile for another issuer changes nothing.
 */
import assert from "node:assert/strict";
import { connect, ConnectError, MemoryTokenStore, OAuthClient } from "../../mod.ts";
import type { OAuthClientOptions, ProviderProfile } from "../../mod.ts";
import {
  type AuthorizationServerOptions,
  type AuthorizationServerProcess,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
  type TokenRequestSeen,
} from "../../fixtures/oauth_mcp_server.ts";

const OPTIONS = {
  id: "docs",
  allow: ["echo"],
  preApproved: ["echo"],
  transport: { dangerouslyAllowLoopback: true, timeoutMs: 15_000 },
} as const;
const AUDIENCE = "https://api.example/mcp";
const CLIENT = { clientId: "m2m-basic", clientSecret: "m2m-basic-secret" } as const;

/** The token request after the first `from`, once the provider's log line arrived. */
async function tokenRequestAfter(
  as: AuthorizationServerProcess,
  from: number,
): Promise<TokenRequestSeen> {
  for (let wait = 0; as.tokenRequests.length <= from && wait < 40; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return as.tokenRequests[from]!;
}

/** Runs `body` against a protected MCP server and oidc-provider started with `options`. */
function inWorld(
  options: AuthorizationServerOptions,
  body: (mcp: ProtectedMcpServer, as: AuthorizationServerProcess) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const mcp = await startProtectedMcpServer();
    const as = await startAuthorizationServer(mcp.url, options);
    try {
      mcp.setIssuer(as.issuer);
      await body(mcp, as);
    } finally {
      await as.stop();
      await mcp.close();
    }
  };
}

/** One connect() and call with `options`; its error code (undefined on success). */
async function callWith(
  mcp: ProtectedMcpServer,
  options: Omit<OAuthClientOptions, "clientCredentials">,
): Promise<string | undefined> {
  const auth = new OAuthClient({
    store: new MemoryTokenStore(),
    clientCredentials: CLIENT,
    ...options,
  });
  let connection;
  try {
    connection = await connect(mcp.url, { ...OPTIONS, auth });
  } catch (error) {
    assert.ok(error instanceof ConnectError, String(error));
    return error.code;
  }
  try {
    const result = await connection.toolkit.call("docs__echo", { message: "hi" });
    return result.errorCode;
  } finally {
    await connection.close();
  }
}

Deno.test(
  {
    name:
      "an Entra-like provider: refused without the profile, served with it (no resource, .default)",
    sanitizeOps: false,
    sanitizeResources: false,
  },
  inWorld({ profile: "entra" }, async (mcp, as) => {
    const entra: ProviderProfile = {
      issuer: as.issuer,
      resourceIndicator: "omit",
      scopeForm: "resourceDefault",
    };
    let from = as.tokenRequests.length;
    assert.equal(await callWith(mcp, {}), "auth_token_failed");
    let seen = await tokenRequestAfter(as, from);
    assert.deepEqual([seen.resource, seen.status], [true, 400], "RFC 8707 is refused");
    // Named for another issuer, the profile is not used here.
    from = as.tokenRequests.length;
    assert.equal(
      await callWith(mcp, { profiles: [{ ...entra, issuer: "https://login.example/t/v2.0" }] }),
      "auth_token_failed",
    );
    assert.equal((await tokenRequestAfter(as, from)).resource, true);
    // The host that wants an explicit scope keeps it: Entra then refuses (no .default).
    from = as.tokenRequests.length;
    assert.equal(
      await callWith(mcp, { profiles: [entra], scope: "mcp:tools" }),
      "auth_token_failed",
    );
    seen = await tokenRequestAfter(as, from);
    assert.deepEqual([seen.resource, seen.scope, seen.status], [false, "mcp:tools", 400]);
    from = as.tokenRequests.length;
    assert.equal(await callWith(mcp, { profiles: [entra] }), undefined);
    seen = await tokenRequestAfter(as, from);
    assert.deepEqual(
      { resource: seen.resource, scope: seen.scope, status: seen.status },
      { resource: false, scope: `${mcp.url.href}/.default`, status: 200 },
    );
    // scopeResource names the application ID URI; a profile without issuer applies anywhere.
    from = as.tokenRequests.length;
    await callWith(mcp, {
      profiles: [{
        resourceIndicator: "omit",
        scopeForm: "resourceDefault",
        scopeResource: "api://app/",
      }],
    });
    assert.equal((await tokenRequestAfter(as, from)).scope, "api://app/.default");
  }),
);

Deno.test(
  {
    name: "an Auth0-like provider: refused without audience, served with the profile's",
    sanitizeOps: false,
    sanitizeResources: false,
  },
  inWorld({ profile: "auth0", audience: AUDIENCE }, async (mcp, as) => {
    const audience = AUDIENCE;
    let from = as.tokenRequests.length;
    assert.equal(await callWith(mcp, {}), "auth_token_failed");
    assert.deepEqual(
      [(await tokenRequestAfter(as, from)).audience, as.tokenRequests[from]!.status],
      [null, 403],
    );
    from = as.tokenRequests.length;
    assert.equal(await callWith(mcp, { profiles: [{ issuer: as.issuer, audience }] }), undefined);
    const seen = await tokenRequestAfter(as, from);
    assert.deepEqual(
      { audience: seen.audience, resource: seen.resource, status: seen.status },
      { audience, resource: true, status: 200 },
    );
  }),
);

Deno.test(
  {
    name: "a profile shapes the authorization URL: no resource, audience, the .default scope",
    sanitizeOps: false,
    sanitizeResources: false,
  },
  inWorld({}, async (mcp, as) => {
    const urls: URL[] = [];
    const authorize = async (profiles?: ProviderProfile[]) => {
      const auth = new OAuthClient({
        redirectUri: "http://127.0.0.1:1/callback",
        redirect: (url) => {
          urls.push(url);
        },
        ...(profiles !== undefined ? { profiles } : {}),
      });
      const error = await connect(mcp.url, { ...OPTIONS, auth }).then(
        () => assert.fail("no one authorized"),
        (error: unknown) => error,
      );
      assert.ok(error instanceof ConnectError && error.code === "auth_authorization_required");
      return urls.at(-1)!.searchParams;
    };
    const plain = await authorize();
    assert.equal(plain.get("resource"), mcp.url.href);
    assert.equal(plain.get("audience"), null);
    const shaped = await authorize([{
      issuer: as.issuer,
      resourceIndicator: "omit",
      audience: "urn:mcp",
      scopeForm: "resourceDefault",
      scopeResource: "api://app",
    }]);
    assert.equal(shaped.get("resource"), null);
    assert.equal(shaped.get("audience"), "urn:mcp");
    // offline_access still rides along where the server lists it.
    assert.equal(shaped.get("scope"), "api://app/.default offline_access");
  }),
);

Deno.test("profiles are checked when the client is made", () => {
  const base = { clientCredentials: CLIENT } as const;
  for (
    const profiles of [
      "entra",
      [null],
      [{ issuer: "not a url" }],
      [{ resourceIndicator: "never" }],
      [{ audience: "" }],
      [{ scopeForm: "entra" }],
      [{ scopeResource: "has space" }],
    ]
  ) {
    assert.throws(
      () => new OAuthClient({ ...base, profiles: profiles as unknown as ProviderProfile[] }),
      (error: unknown) => (error as { code?: string }).code === "auth_config_invalid",
      JSON.stringify(profiles),
    );
  }
});
