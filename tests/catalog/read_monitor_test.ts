/**
 * CatalogMonitor: accepted protocol versions, the message hook composed with the SDK's own
 * handler on real in-memory v1 and v2 pairs, changes during discovery, and listen streams.
 */
import assert from "node:assert/strict";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ACCEPTED_PROTOCOL_VERSIONS, CatalogMonitor, discoverTools } from "../../mod.ts";
import { startMemoryServerV1 } from "../../fixtures/read_server_v1.ts";
import { startMemoryServerV2 } from "../../fixtures/read_server_v2.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { CHANGE_TOOL_NAME } from "../../fixtures/read_tools.ts";
import { bind, interceptingClient } from "../support/read_host.ts";
import { openSession, waitFor } from "../support/sessions.ts";
import { gatedReads } from "../support/read_gate.ts";

Deno.test("monitor: accepted protocol versions and change detection per version", () => {
  assert.deepEqual(ACCEPTED_PROTOCOL_VERSIONS, ["2026-07-28", "2025-11-25", "2025-06-18"]);
  for (const version of ACCEPTED_PROTOCOL_VERSIONS) {
    const monitor = new CatalogMonitor();
    assert.equal(monitor.acceptProtocolVersion(version), true);
    assert.equal(
      monitor.changeDetection,
      version === "2026-07-28" ? "unavailable" : "notifications",
    );
  }
  for (const version of ["2024-11-05", "2025-03-26", "2026-07-29", "", undefined, 20250618]) {
    assert.equal(new CatalogMonitor().acceptProtocolVersion(version), false, String(version));
  }
});

Deno.test("monitor: a listen stream without tool list changes does not count", async () => {
  const monitor = new CatalogMonitor();
  monitor.acceptProtocolVersion("2026-07-28");
  let end!: () => void;
  const closed = new Promise<void>((resolve) => (end = resolve));
  monitor.watchSubscription({ honoredFilter: { toolsListChanged: false }, closed });
  assert.equal(monitor.changeDetection, "unavailable");
  monitor.watchSubscription({ honoredFilter: { toolsListChanged: true }, closed });
  assert.equal(monitor.changeDetection, "subscription");
  const generation = monitor.generation;
  end();
  await closed;
  await Promise.resolve();
  assert.equal(monitor.changeDetection, "unavailable");
  assert.equal(monitor.status(generation), "stale");
});

for (const sdk of ["v1", "v2"] as const) {
  Deno.test(`monitor: transport message hook composes with the ${sdk} client's handler`, async () => {
    const server = sdk === "v1" ? await startMemoryServerV1() : await startMemoryServerV2();
    const monitor = new CatalogMonitor();
    // The host hooks the transport before connecting; the SDK chains it before its own handler.
    server.clientTransport.onmessage = monitor.onMessage;
    // v1 reports the negotiated version only through this optional transport hook.
    let negotiated: string | undefined;
    (server.clientTransport as { setProtocolVersion?: (v: string) => void }).setProtocolVersion = (
      version,
    ) => (negotiated = version);
    let hostHandlerCalls = 0;
    const client = sdk === "v1"
      ? new ClientV1({ name: "t", version: "0" })
      : new ClientV2({ name: "t", version: "0" });
    if (client instanceof ClientV1) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        hostHandlerCalls++;
      });
    } else {
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        hostHandlerCalls++;
      });
    }
    try {
      await client.connect(server.clientTransport);
      if (client instanceof ClientV2) negotiated = client.getNegotiatedProtocolVersion();
      assert.equal(negotiated, "2025-11-25");
      assert.ok(monitor.acceptProtocolVersion(negotiated));
      const reads = await discoverTools(client, "fixture", {
        echo: bind("echo_text"),
      }, { monitor });
      assert.deepEqual(await gatedReads(reads)[0].call({ message: "a" }), {
        text: ["a"],
        structured: null,
      });
      server.catalog.changeTools();
      assert.ok(await waitFor(() => hostHandlerCalls === 1), "the host's handler still runs");
      assert.equal(
        (await gatedReads(reads)[0].call({ message: "b" })).errorCode,
        "mcp_catalog_stale",
      );
      const calls = server.log.filter((entry) => entry.method === "tools/call");
      assert.equal(calls.length, 1, "no tools/call after the change");
    } finally {
      monitor.close();
      await client.close();
      await server.close();
    }
  });
}

Deno.test("monitor: a change during discovery leaves the new catalog stale at once, and says so", async () => {
  const session = await openSession("memory-v2");
  const monitor = new CatalogMonitor();
  monitor.acceptProtocolVersion(session.protocolVersion);
  try {
    const { client } = interceptingClient(session.client, (method) => {
      // The notification lands while the list is being read.
      if (method === "tools/list") {
        monitor.handleNotification({ method: "notifications/tools/list_changed" });
      }
    });
    const found = await discoverTools(client, "fixture", {
      echo: bind("echo_text"),
    }, { monitor });
    assert.equal(found.stale, true);
    assert.equal(found.staleReason, "tools_list_changed");
    assert.equal(
      (await gatedReads(found)[0].call({ message: "x" })).errorCode,
      "mcp_catalog_stale",
    );
    assert.equal((await session.log()).filter((e) => e.method === "tools/call").length, 0);
  } finally {
    monitor.close();
    await session.close();
  }
});

for (const mode of ["auto", "legacy"] as const) {
  const era = mode === "auto" ? "2026-07-28" : "2025-11-25";
  Deno.test(`monitor: the README's wiring works over Streamable HTTP (${era})`, async () => {
    const fixture = await startHttpServer();
    const client = new ClientV2({ name: "t", version: "0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode },
    });
    const monitor = new CatalogMonitor();
    const transport = new StreamableHTTPClientTransport(fixture.url);
    // As the README's quick start: the hook is set before connecting, nothing else is wired.
    transport.onmessage = monitor.onMessage;
    let subscription: { close(): Promise<void> } | undefined;
    try {
      await client.connect(transport);
      assert.equal(client.getNegotiatedProtocolVersion(), era);
      assert.ok(monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion()));
      if (mode === "auto") {
        const opened = await client.listen({ toolsListChanged: true });
        subscription = opened;
        monitor.watchSubscription(opened);
      }
      const reads = await discoverTools(client, "fixture", {
        echo: bind("echo_text"),
      }, { monitor });
      assert.equal(
        reads.snapshot.changeDetection,
        mode === "auto" ? "subscription" : "notifications",
      );
      assert.deepEqual(await gatedReads(reads)[0].call({ message: "a" }), {
        text: ["a"],
        structured: null,
      });
      const generation = monitor.generation;
      if (mode === "auto") fixture.changeTools();
      else {
        // The stateless 2025 fallback tells a client only on a response to its own request.
        await client.request({
          method: "tools/call",
          params: { name: CHANGE_TOOL_NAME, arguments: {} },
        });
      }
      assert.ok(await waitFor(() => monitor.generation > generation), "the hook saw the change");
      assert.equal(
        (await gatedReads(reads)[0].call({ message: "b" })).errorCode,
        "mcp_catalog_stale",
      );
      const echoes = fixture.log.filter((entry) =>
        entry.method === "tools/call" && entry.toolName === "echo"
      );
      assert.equal(echoes.length, 1, "no tools/call after the change");
    } finally {
      await subscription?.close();
      monitor.close();
      await client.close();
      await fixture.close();
    }
  });
}
