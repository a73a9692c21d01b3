// DNS pinning against a rebinding resolver, loopback only, real TLS with a throwaway CA: sluice's
// check sees `localhost` as 127.0.0.2 (the test resolver), the system resolver that a runtime's
// own fetch uses says 127.0.0.1. A pinned request must reach 127.0.0.2 and open no connection to
// 127.0.0.1; the same request without pinning does reach 127.0.0.1, so the setup can tell.
import assert from "node:assert/strict";
import {
  describeTransport,
  type FetchFunction,
  secureFetch,
  type SecureFetchOptions,
  TransportError,
} from "../../src/transport/mod.ts";
import { parseConnectHead, pinnedTarget, PinTable } from "../../src/transport/pinning.ts";
import { OAuthClient } from "../../src/auth/mod.ts";
import { makeCa, type Pki } from "../../fixtures/pki.ts";
import { checkedResolver, type RebindingPair, startRebindingPair } from "../support/rebinding.ts";
import { writeJavaScript } from "../../fixtures/package/javascript.ts";
import { packageGraph } from "../../fixtures/package/package_graph.ts";
import {
  bunBinary,
  ensureInstalled,
  installedNode22,
  onPath,
  root,
  run,
  RUNTIME_CACHE,
  RUNTIME_VERSIONS,
} from "../../fixtures/package/npm_cache.ts";

interface Tls {
  dir: string;
  pki: Pki;
  cert: { cert: string; key: string };
}

async function withTls(body: (tls: Tls) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-pinning-" });
  try {
    const pki = await makeCa(dir);
    await Deno.writeTextFile(`${dir}/ca.pem`, pki.ca);
    await body({ dir, pki, cert: await pki.issue("localhost", "DNS:localhost") });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function withPair(
  tls: Tls["cert"] | undefined,
  body: (pair: RebindingPair) => Promise<void>,
  handler?: Parameters<typeof startRebindingPair>[1],
): Promise<void> {
  const pair = startRebindingPair(tls, handler);
  try {
    await body(pair);
  } finally {
    await pair.close();
  }
}

const loopback: SecureFetchOptions = {
  dangerouslyAllowLoopback: true,
  resolve: checkedResolver,
  timeoutMs: 10_000,
};

Deno.test("Deno reports DNS pinning as enforced by default", () => {
  assert.equal(describeTransport().dnsPinning, "enforced");
  assert.equal(describeTransport({ resolve: checkedResolver }).dnsPinning, "enforced");
  // A fetch of the caller's own makes its own connections: nothing is pinned, and it says so.
  assert.equal(describeTransport({ fetch }).dnsPinning, "unavailable");
  assert.throws(
    () => secureFetch({ fetch, caCerts: ["x"] }),
    (error) => error instanceof TransportError && error.code === "transport_config_invalid",
  );
});

Deno.test("Deno: a pinned https request reaches the checked address, never the rebound one", async () => {
  await withTls(async ({ pki, cert }) => {
    await withPair(cert, async (pair) => {
      const url = `https://localhost:${pair.port}/mcp`;
      const pinned = secureFetch({ ...loopback, caCerts: [pki.ca] });
      assert.equal(pinned.describe().dnsPinning, "enforced");
      // Two requests in a row, and two at once: every one goes to 127.0.0.2.
      for (let round = 0; round < 2; round++) {
        const response = await pinned(url);
        assert.deepEqual(await response.json(), {
          who: "approved",
          host: `localhost:${pair.port}`,
        });
      }
      const both = await Promise.all([pinned(url), pinned(url)]);
      for (const response of both) assert.equal((await response.json()).who, "approved");
      assert.equal(pair.approvedRequests(), 4);
      assert.equal(pair.reboundConnections(), 0);

      // The control: the same request through the runtime's own connection (a fetch that trusts
      // the same CA) is resolved again by the system and lands on 127.0.0.1.
      const client = Deno.createHttpClient({ caCerts: [pki.ca] });
      try {
        const trusting: FetchFunction = (input, init) =>
          fetch(input, { ...init, client } as RequestInit);
        const unpinned = secureFetch({ ...loopback, fetch: trusting });
        assert.equal(unpinned.describe().dnsPinning, "unavailable");
        assert.deepEqual(await (await unpinned(url)).json(), { who: "rebound" });
        assert.equal(pair.reboundConnections(), 1);
      } finally {
        client.close();
      }
    });
  });
});

Deno.test("Deno: hold() keeps one pinned connection for requests in a row; without it, none stays", async () => {
  await withTls(async ({ pki, cert }) => {
    // The approved server answers with the client port it sees: one port, one connection.
    await withPair(cert, async (pair) => {
      const url = `https://localhost:${pair.port}/mcp`;
      const pinned = secureFetch({ ...loopback, caCerts: [pki.ca] });
      const port = async () => (await (await pinned(url)).json()).port as number;
      const release = pinned.hold();
      const held = [await port(), await port(), await port()];
      release();
      assert.equal(new Set(held).size, 1, `held requests used ports ${held}`);
      // Released: the next requests each start from nothing (a new proxy, a new connection).
      const unheld = [await port(), await port()];
      assert.equal(new Set(unheld).size, 2, `unheld requests used ports ${unheld}`);
      assert.ok(!unheld.includes(held[0]));
      assert.equal(pair.reboundConnections(), 0);
    }, (_request, info) => Response.json({ port: info.remoteAddr.port }));
  });
});

Deno.test("Deno: TLS inside the pinned tunnel still verifies the URL's host name", async () => {
  await withTls(async ({ pki }) => {
    const other = await pki.issue("other", "DNS:other.test");
    await withPair(other, async (pair) => {
      const pinned = secureFetch({ ...loopback, caCerts: [pki.ca] });
      await assert.rejects(
        pinned(`https://localhost:${pair.port}/mcp`),
        (error) => error instanceof TransportError && error.code === "transport_tls_failed",
      );
      // Without the throwaway CA the pinned connection trusts only the system roots.
      await assert.rejects(
        secureFetch(loopback)(`https://localhost:${pair.port}/mcp`),
        (error) => error instanceof TransportError && error.code === "transport_tls_failed",
      );
      assert.equal(pair.reboundConnections(), 0);
    });
  });
});

Deno.test("Deno: plain http to a loopback name is pinned too", async () => {
  await withPair(undefined, async (pair) => {
    const url = `http://localhost:${pair.port}/mcp`;
    const response = await secureFetch(loopback)(url, { method: "POST", body: "{}" });
    assert.deepEqual(await response.json(), { who: "approved", host: `localhost:${pair.port}` });
    assert.equal(pair.reboundConnections(), 0);
    const unpinned = secureFetch({ ...loopback, fetch: (input, init) => fetch(input, init) });
    assert.deepEqual(await (await unpinned(url)).json(), { who: "rebound" });
    assert.equal(pair.reboundConnections(), 1);
  });
});

Deno.test("the tunnel proxy allows only this proxy's credential and a pinned host:port", () => {
  const table = new PinTable();
  const credential = `Basic ${btoa(`${table.username}:${table.password}`)}`;
  table.pin(pinnedTarget(new URL("https://mcp.example.com/mcp"), ["93.184.216.34"]));
  const head = (line: string, auth = credential) => `${line}\r\nProxy-Authorization: ${auth}`;
  const allowed = (text: string) => {
    const request = parseConnectHead(text);
    return request === undefined ? undefined : table.allowed(request);
  };
  assert.deepEqual(allowed(head("CONNECT mcp.example.com:443 HTTP/1.1")), ["93.184.216.34"]);
  assert.deepEqual(allowed(head("CONNECT MCP.example.com:443 HTTP/1.1")), ["93.184.216.34"]);
  // Another port, another host, another credential, no credential, not a CONNECT.
  assert.equal(allowed(head("CONNECT mcp.example.com:8443 HTTP/1.1")), undefined);
  assert.equal(allowed(head("CONNECT internal.example:443 HTTP/1.1")), undefined);
  assert.equal(
    allowed(head("CONNECT mcp.example.com:443 HTTP/1.1", "Basic c2x1aWNlOng=")),
    undefined,
  );
  assert.equal(allowed("CONNECT mcp.example.com:443 HTTP/1.1"), undefined);
  assert.equal(allowed(head("GET http://mcp.example.com/ HTTP/1.1")), undefined);
  assert.equal(allowed(head("CONNECT mcp.example.com:99999 HTTP/1.1")), undefined);
  // Another proxy's table does not know this one's pins or credential.
  const second = new PinTable();
  assert.notEqual(second.password, table.password);
  // An IP literal pins to itself.
  assert.deepEqual(pinnedTarget(new URL("https://[::1]:8443/"), []), {
    hostname: "[::1]",
    port: 8443,
    addresses: ["::1"],
  });
});

Deno.test("Deno: OAuth discovery and token requests go through the pinned path", async () => {
  await withTls(async ({ pki, cert }) => {
    const seen: string[] = [];
    let origin = "";
    const handler = async (
      request: Request,
      info: Deno.ServeHandlerInfo<Deno.NetAddr>,
    ): Promise<Response> => {
      const path = new URL(request.url).pathname;
      seen.push(`${request.method} ${path}`);
      if (path === "/mcp") {
        if (request.headers.get("authorization") === "Bearer pinned-access") {
          return Response.json({ who: "approved", port: info.remoteAddr.port });
        }
        return new Response(null, {
          status: 401,
          headers: {
            "www-authenticate":
              `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
          },
        });
      }
      if (path === "/.well-known/oauth-protected-resource/mcp") {
        return Response.json({ resource: `${origin}/mcp`, authorization_servers: [origin] });
      }
      if (path === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: origin,
          token_endpoint: `${origin}/token`,
          authorization_endpoint: `${origin}/authorize`,
          grant_types_supported: ["client_credentials"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (path === "/token") {
        await request.text();
        return Response.json({ access_token: "pinned-access", token_type: "Bearer" });
      }
      return new Response("not found", { status: 404 });
    };
    await withPair(cert, async (pair) => {
      origin = `https://localhost:${pair.port}`;
      const auth = new OAuthClient({
        clientCredentials: { clientId: "pinned-client", clientSecret: "pinned-secret" },
      });
      const resource = new URL(`${origin}/mcp`);
      const authFetch = auth.fetchFor(resource, { ...loopback, caCerts: [pki.ca] });
      // Held, as connect() holds it: the token requests after the first share one connection.
      const release = authFetch.hold();
      const answers = [];
      try {
        for (let round = 0; round < 3; round++) {
          const response = await authFetch(resource, { method: "POST", body: "{}" });
          assert.equal(response.status, 200);
          answers.push(await response.json());
        }
      } finally {
        release();
      }
      assert.deepEqual(answers.map((answer) => answer.who), ["approved", "approved", "approved"]);
      assert.equal(new Set(answers.map((answer) => answer.port)).size, 1, JSON.stringify(answers));
      for (const step of ["/.well-known/oauth-protected-resource/mcp", "/token"]) {
        assert.ok(seen.some((line) => line.endsWith(step)), `${step} not requested: ${seen}`);
      }
      assert.equal(pair.reboundConnections(), 0);
    }, handler);
  });
});

/** Bun: the binary on PATH, or the pinned npm one (installed if missing, as the smoke does). */
/** Starts `tests/support/pinning_child` on another runtime: its command line for the mode. */
type ChildCommand = (
  url: string,
  caPath: string,
  mode: "pinned" | "unpinned",
) => { binary: string; args: string[]; env?: Record<string, string> };

/**
 * The rebinding test on another runtime, https then plain http: pinned, the child reaches the
 * approved address and nothing reaches 127.0.0.1; unpinned (its own fetch), it is rebound.
 */
async function rebindingOn(command: ChildCommand): Promise<void> {
  await withTls(async ({ dir, cert }) => {
    for (const tls of [cert, undefined]) {
      await withPair(tls, async (pair) => {
        const url = `${tls ? "https" : "http"}://localhost:${pair.port}/mcp`;
        const child = async (mode: "pinned" | "unpinned") => {
          const { binary, args, env } = command(url, `${dir}/ca.pem`, mode);
          const { code, stdout, stderr } = await run(binary, args, { timeoutMs: 60_000, env });
          assert.equal(code, 0, stderr);
          return JSON.parse(stdout.trim().split("\n").at(-1)!);
        };
        const pinned = await child("pinned");
        assert.equal(pinned.report.dnsPinning, "enforced");
        assert.deepEqual(pinned.answer, { who: "approved", host: `localhost:${pair.port}` });
        assert.equal(pair.reboundConnections(), 0);
        const unpinned = await child("unpinned");
        assert.equal(unpinned.report.dnsPinning, "unavailable");
        assert.deepEqual(unpinned.answer, { who: "rebound" });
        assert.equal(pair.reboundConnections(), 1);
      });
    }
  });
}

Deno.test("Bun: pinned https and http reach the checked address; unpinned ones are rebound", async () => {
  const binary = await bunBinary();
  await rebindingOn((url, caPath, mode) => ({
    binary,
    args: [`${root}tests/support/pinning_child.ts`, url, caPath, mode],
  }));
});

/**
 * The child and its imports as JavaScript in a temporary folder (Node 20 strips no types), its
 * npm dependencies (undici among them) installed in the runtime cache, resolved from there by
 * `scripts/node/register_deps.mjs`.
 */
async function withNodeChild(body: (script: string) => Promise<void>): Promise<void> {
  const child = "tests/support/pinning_child.ts";
  const graph = await packageGraph([child]);
  assert.ok(graph.dependencies.undici, "undici is not among the child's dependencies");
  await ensureInstalled(RUNTIME_CACHE, { node: RUNTIME_VERSIONS.node, ...graph.dependencies });
  const dir = await Deno.makeTempDir({ prefix: "sluice-pinning-node-" });
  try {
    assert.deepEqual(await writeJavaScript(graph.files, dir), []);
    await body(`${dir}/${child.replace(/\.ts$/, ".js")}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const version of ["20", "22"]) {
  Deno.test(`Node ${version}: pinned https and http reach the checked address; unpinned ones are rebound`, async () => {
    await withNodeChild(async (script) => {
      // Node 20 is the one on PATH (as the npm consumer check has it), Node 22 the pinned npm one.
      const node = version === "20" ? await onPath("node") : await installedNode22(RUNTIME_CACHE);
      assert.ok(node !== undefined, "node is not on PATH");
      const reported = (await run(node, ["--version"])).stdout.trim();
      assert.ok(reported.startsWith(`v${version}.`), `${node} is ${reported}, not Node ${version}`);
      await rebindingOn((url, caPath, mode) => ({
        binary: node,
        args: ["--import", `${root}scripts/node/register_deps.mjs`, script, url, caPath, mode],
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          SLUICE_DEPS_DIR: RUNTIME_CACHE,
          // Node's own fetch (the unpinned control) trusts the CA this way; the pinned child
          // must do with `caCerts`.
          ...(mode === "unpinned" ? { NODE_EXTRA_CA_CERTS: caPath } : {}),
        },
      }));
    });
  });
}
