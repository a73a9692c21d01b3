/**
 * Transport failures against the real HTTP fixture: the client talks to the fixture through a
 * loopback forwarding proxy; shutting the proxy down makes the next request fail at the
 * transport (connection refused), which a call reports as `mcp_transport_error` and
 * discovery as a `DiscoveryError` with the same code.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { CatalogMonitor, discoverTools, DiscoveryError } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { bind } from "../support/read_host.ts";
import { gatedReads } from "../support/read_gate.ts";

/** A loopback proxy that forwards every request to `target`. */
function startProxy(target: URL): { url: URL; shutdown(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const incoming = new URL(request.url);
      const forwarded = new URL(incoming.pathname + incoming.search, target);
      const body = request.method === "GET" || request.method === "HEAD"
        ? undefined
        : await request.arrayBuffer();
      const response = await fetch(forwarded, {
        method: request.method,
        headers: request.headers,
        body,
        signal: request.signal,
      });
      return new Response(response.body, { status: response.status, headers: response.headers });
    },
  );
  return {
    url: new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    shutdown: async () => {
      await server.shutdown();
    },
  };
}

for (const mode of ["auto", "legacy"] as const) {
  Deno.test(`transport failure (${mode === "auto" ? "2026-07-28" : "2025-11-25"})`, async () => {
    const fixture = await startHttpServer();
    const proxy = startProxy(fixture.url);
    const client = new Client({ name: "sluice-tests", version: "0.0.0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode },
    });
    let proxyUp = true;
    const monitor = new CatalogMonitor();
    try {
      await client.connect(new StreamableHTTPClientTransport(proxy.url));
      assert.ok(monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion()));
      const reads = await discoverTools(client, "fixture", {
        echo: bind("echo_text"),
      }, { monitor });
      const [echo] = gatedReads(reads);
      assert.deepEqual(await echo.call({ message: "up" }), { text: ["up"], structured: null });
      await proxy.shutdown();
      proxyUp = false;
      assert.deepEqual(await echo.call({ message: "down" }), {
        text: [],
        structured: null,
        errorCode: "mcp_transport_error",
      });
      const calls = fixture.log.filter((entry) => entry.method === "tools/call");
      assert.equal(calls.length, 1, "the failed request never reached the server");
      await assert.rejects(
        () => discoverTools(client, "fixture", { echo: bind("echo_text") }, { monitor }),
        (error) => error instanceof DiscoveryError && error.code === "mcp_transport_error",
      );
    } finally {
      monitor.close();
      await client.close().catch(() => {});
      if (proxyUp) await proxy.shutdown();
      await fixture.close();
    }
  });
}
