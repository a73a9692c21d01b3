// Real TLS on loopback: a throwaway CA and server certificates made with openssl at test start,
// trusted explicitly through Deno.createHttpClient({ caCerts }) passed as the underlying fetch.
import assert from "node:assert/strict";
import { type FetchFunction, secureFetch, TransportError } from "../../src/transport/mod.ts";
import { connect } from "../../mod.ts";
import { setupCode } from "../../fixtures/connect_servers.ts";
import { makeCa } from "../../fixtures/pki.ts";
import { startHttpServer, startRawServer, tableResolver } from "../support/transport_servers.ts";

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    const response = await promise;
    assert.fail(`expected ${code}, got a response ${(response as Response).status}`);
  } catch (error) {
    assert.ok(error instanceof TransportError, String(error));
    assert.equal(error.code, code);
  }
}

Deno.test("real TLS: a trusted throwaway certificate works; a name mismatch is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-tls-" });
  const client = { current: undefined as Deno.HttpClient | undefined };
  const servers: { close(): Promise<void> }[] = [];
  try {
    const pki = await makeCa(dir);
    const good = await pki.issue("localhost", "DNS:localhost,IP:127.0.0.1");
    const wrong = await pki.issue("other", "DNS:other.test");

    const seenAuthorization: (string | null)[] = [];
    const goodServer = startHttpServer((request) => {
      seenAuthorization.push(request.headers.get("authorization"));
      return Response.json({ secure: new URL(request.url).protocol });
    }, good);
    servers.push(goodServer);
    const wrongServer = startHttpServer(() => new Response("should not be reached"), wrong);
    servers.push(wrongServer);

    client.current = Deno.createHttpClient({ caCerts: [pki.ca] });
    const httpClient = client.current;
    const trustingFetch: FetchFunction = (input, init) =>
      fetch(input, { ...init, client: httpClient } as RequestInit);
    // Loopback is only reachable with the loud option; the resolver stands in for DNS.
    const dns = tableResolver({ localhost: ["127.0.0.1"] });
    const safeFetch = secureFetch({
      dangerouslyAllowLoopback: true,
      resolve: dns.resolve,
      fetch: trustingFetch,
      token: "tls-token",
      tokenOrigin: `https://localhost:${goodServer.port}`,
      timeoutMs: 5_000,
    });

    const response = await safeFetch(`https://localhost:${goodServer.port}/mcp`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { secure: "https:" });
    assert.deepEqual(seenAuthorization, ["Bearer tls-token"]);

    // Same trusted CA, but the certificate names only other.test: the name alone must fail it.
    await expectCode(
      safeFetch(`https://localhost:${wrongServer.port}/mcp`),
      "transport_tls_failed",
    );
    // The same good server, not trusted: the default client does not know the throwaway CA.
    await expectCode(
      secureFetch({ dangerouslyAllowLoopback: true, resolve: dns.resolve, timeoutMs: 5_000 })(
        `https://localhost:${goodServer.port}/mcp`,
      ),
      "transport_tls_failed",
    );
    // Production rules are intact: without the loud option loopback is refused before TLS.
    await expectCode(
      secureFetch({ resolve: dns.resolve, fetch: trustingFetch })(
        `https://localhost:${goodServer.port}/mcp`,
      ),
      "transport_host_refused",
    );
    assert.equal(seenAuthorization.length, 1, "a refused request reached the good server");
  } finally {
    client.current?.close();
    for (const server of servers) await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a plain connection failure to a host named like TLS is not reported as TLS", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const safeFetch = secureFetch({
    dangerouslyAllowLoopback: true,
    resolve: () => Promise.resolve(["127.0.0.1"]),
    timeoutMs: 5_000,
  });
  // Whatever fails here (name lookup by the runtime or a refused connection), it is not TLS.
  await expectCode(
    safeFetch(`http://tls-ssl-certificate-handshake.localhost:${closedPort}/`),
    "transport_failed",
  );
  await expectCode(safeFetch(`http://127.0.0.1:${closedPort}/ssl/tls`), "transport_failed");
});

/** What a peer that speaks no TLS sends where its handshake belongs. */
const NOT_A_HANDSHAKE: Record<string, Uint8Array> = {
  "plain HTTP": new TextEncoder().encode("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi"),
  "random bytes": Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff),
  "a handshake record of junk": Uint8Array.of(0x16, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5),
  "an oversized record": Uint8Array.of(0x16, 0x03, 0x03, 0xff, 0xff, 1, 2, 3),
  "a truncated server hello": Uint8Array.of(0x16, 0x03, 0x03, 0x00, 0x08, 2, 0, 0, 4, 3, 3),
  "a fatal alert": Uint8Array.of(0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28),
  "nothing (closes at once)": new Uint8Array(0),
};

Deno.test("a TLS peer that sends garbage instead of a handshake is transport_tls_failed", async () => {
  for (const [name, junk] of Object.entries(NOT_A_HANDSHAKE)) {
    // A real TCP listener on 127.0.0.1: it reads the client hello, answers junk, and hangs up.
    const server = startRawServer(async (conn) => {
      await conn.read(new Uint8Array(4096)).catch(() => null);
      if (junk.byteLength > 0) await conn.write(junk).catch(() => 0);
      conn.close();
    });
    try {
      const safeFetch = secureFetch({
        dangerouslyAllowLoopback: true,
        resolve: tableResolver({ localhost: ["127.0.0.1"] }).resolve,
        timeoutMs: 5_000,
      });
      try {
        await safeFetch(`https://localhost:${server.port}/mcp`);
        assert.fail(`${name}: a response arrived`);
      } catch (error) {
        assert.ok(error instanceof TransportError, `${name}: ${error}`);
        assert.equal(error.code, "transport_tls_failed", name);
      }
      // The same bytes to a plain-http request are no TLS failure (there is no TLS layer).
      if (name === "random bytes") {
        await expectCode(safeFetch(`http://localhost:${server.port}/mcp`), "transport_failed");
      }
      // And through connect(): the server is reported with the same code.
      const code = await setupCode(connect(`https://localhost:${server.port}/mcp`, {
        id: "g",
        allow: ["echo"],
        transport: {
          dangerouslyAllowLoopback: true,
          resolve: tableResolver({ localhost: ["127.0.0.1"] }).resolve,
          timeoutMs: 5_000,
        },
      }));
      assert.equal(code, "transport_tls_failed", name);
    } finally {
      await server.close();
    }
  }
});
