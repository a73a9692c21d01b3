/**
 * Hostile OAuth metadata: every URL the transport refuses, placed in `authorization_servers`,
 * `token_endpoint`, `registration_endpoint` and `jwks_uri`; an issuer mismatch; a redirect on
 * the token endpoint; an oversized metadata document. Each is refused before any request leaves
 * for the bad address: the underlying fetch (the network, here an in-process router on
 * https names a table resolver answers public) records every URL actually requested.
 */
import assert from "node:assert/strict";
import { connect, type FetchFunction, OAuthClient, type Resolver } from "../../mod.ts";
import { setupCode } from "../../fixtures/connect_servers.ts";

const PUBLIC = "93.184.216.34";
const TABLE: Record<string, string> = {
  "mcp.test": PUBLIC,
  "as.test": PUBLIC,
  "plain.test": PUBLIC,
  "ftp.test": PUBLIC,
  "creds.test": PUBLIC,
  "evil.test": PUBLIC,
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
  readonly fetch: FetchFunction;
}

function world(
  asMetadata: (base: Record<string, unknown>) => unknown,
  servers?: unknown[],
  token?: () => Response,
): World {
  const requested: URL[] = [];
  const fetch: FetchFunction = (input) => {
    const request = input as Request;
    const url = new URL(request.url);
    requested.push(url);
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
  };
  return { requested, fetch };
}

function serverCode(w: World): Promise<string | undefined> {
  return setupCode(connect("https://mcp.test/mcp", {
    id: "docs",
    auth: new OAuthClient({ clientCredentials: { clientId: "c", clientSecret: "s" } }),
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
