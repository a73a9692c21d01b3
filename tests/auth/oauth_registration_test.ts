/**
 * Dynamic client registration answers: sluice asks for a public client; a server may register it
 * as `client_secret_post` or `client_secret_basic` instead (RFC 7591), and the token request
 * then carries that secret as registered: in its body, or as HTTP Basic to the token endpoint. A secret issued without `client_secret_expires_at` (as the conformance suite's server
 * does) is no reason to refuse the registration. The network is an in-process router behind the
 * `fetch` option that records every request.
 */
import assert from "node:assert/strict";
import {
  connect,
  ConnectError,
  type FetchFunction,
  OAuthClient,
  type Resolver,
} from "../../mod.ts";

const resolve: Resolver = () => Promise.resolve(["93.184.216.34"]);
const SECRET = "registered-secret-sentinel";

interface Recorded {
  readonly url: URL;
  readonly body: string;
  readonly authorization: string | null;
}

function router(registration: Record<string, unknown>, status = 201) {
  const requests: Recorded[] = [];
  const fetch: FetchFunction = async (input) => {
    const request = input as Request;
    const url = new URL(request.url);
    requests.push({
      url,
      body: await request.text(),
      authorization: request.headers.get("authorization"),
    });
    if (url.hostname === "mcp.test" && url.pathname === "/mcp") {
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp"',
        },
      });
    }
    if (url.hostname === "mcp.test") {
      return Response.json({
        resource: "https://mcp.test/mcp",
        authorization_servers: ["https://as.test"],
      });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: "https://as.test",
        authorization_endpoint: "https://as.test/auth",
        token_endpoint: "https://as.test/token",
        registration_endpoint: "https://as.test/register",
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/register") return Response.json(registration, { status });
    if (url.pathname === "/token") {
      return Response.json({ access_token: "at", token_type: "Bearer", expires_in: 60 });
    }
    return new Response("unexpected", { status: 500 });
  };
  return { requests, fetch };
}

/** Runs connect() until the authorization URL, then finish() with a code for it. */
async function authorize(net: ReturnType<typeof router>): Promise<string | undefined> {
  let authorizationUrl: URL | undefined;
  const auth = new OAuthClient({
    redirectUri: "http://127.0.0.1:8976/callback",
    redirect: (url) => {
      authorizationUrl = url;
    },
  });
  const error = await connect("https://mcp.test/mcp", {
    id: "docs",
    auth,
    allow: ["echo"],
    transport: { resolve, fetch: net.fetch, timeoutMs: 5_000 },
  }).then(() => assert.fail("no token yet: connect() must reject"), (thrown: unknown) => thrown);
  assert.ok(error instanceof ConnectError, String(error));
  const code = error.code;
  assert.ok(!JSON.stringify(error.failures).includes(SECRET), "the secret is in no failure");
  assert.ok(!error.message.includes(SECRET), "the secret is in no message");
  if (authorizationUrl === undefined) return code;
  const callback = new URL("http://127.0.0.1:8976/callback");
  callback.searchParams.set("code", "the-code");
  callback.searchParams.set("state", authorizationUrl.searchParams.get("state")!);
  await auth.finish(callback);
  return code;
}

const tokenBody = (net: ReturnType<typeof router>) =>
  new URLSearchParams(net.requests.find((request) => request.url.pathname === "/token")!.body);

Deno.test("OAuth registration: a client registered as client_secret_post sends its secret to the token endpoint", async () => {
  const net = router({
    client_id: "registered",
    client_secret: SECRET,
    token_endpoint_auth_method: "client_secret_post",
  });
  assert.equal(await authorize(net), "auth_authorization_required");
  const body = tokenBody(net);
  assert.equal(body.get("client_id"), "registered");
  assert.equal(body.get("client_secret"), SECRET);
  assert.equal(body.get("grant_type"), "authorization_code");
  const register = JSON.parse(net.requests.find((r) => r.url.pathname === "/register")!.body);
  assert.equal(register.token_endpoint_auth_method, "none");
});

Deno.test("OAuth registration: a secret without client_secret_expires_at, no method: a public client", async () => {
  const net = router({ client_id: "public", client_secret: SECRET });
  assert.equal(await authorize(net), "auth_authorization_required");
  const body = tokenBody(net);
  assert.equal(body.get("client_id"), "public");
  assert.equal(body.get("client_secret"), null);
});

Deno.test("OAuth registration: an answer that is not 201 with a client_id is auth_registration_failed", async () => {
  for (
    const [answer, status] of [[{ client_id: "x" }, 200], [{ client_secret: "s" }, 201]] as const
  ) {
    const net = router(answer, status);
    assert.equal(await authorize(net), "auth_registration_failed", JSON.stringify(answer));
    assert.ok(!net.requests.some((request) => request.url.pathname === "/token"));
  }
});

Deno.test("OAuth registration: a client registered as client_secret_basic sends Basic to the token endpoint only", async () => {
  const net = router({
    client_id: "registered",
    client_secret: SECRET,
    token_endpoint_auth_method: "client_secret_basic",
  });
  assert.equal(await authorize(net), "auth_authorization_required");
  const body = tokenBody(net);
  assert.equal(body.get("client_secret"), null);
  assert.equal(body.get("client_id"), null, "the Basic credential names the client");
  const withCredentials = net.requests.filter((request) => request.authorization !== null);
  assert.deepEqual(withCredentials.map((request) => request.url.href), ["https://as.test/token"]);
  assert.equal(withCredentials[0]!.authorization, `Basic ${btoa(`registered:${SECRET}`)}`);
});
