/**
 * Against the real `@modelcontextprotocol/server-everything` (pinned, stdio): which of its
 * tools a host can bind (discovery succeeds) and the exact error for the others, then a few
 * calls through sluice; then the same bindings through a host-owned v1 and a v2 client give one
 * snapshot digest and the same envelopes. The server lists 13 tools when the client declares no
 * capabilities.
 */
import assert from "node:assert/strict";
import { CatalogMonitor, discoverTools, DiscoveryError, type ReadToolBinding } from "../../mod.ts";
import { EVERYTHING_DATA_URI, openServerEverything } from "../support/sessions.ts";
import { processGone } from "../../fixtures/process.ts";
import { gatedRead } from "../support/read_gate.ts";

const BINDABLE = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
];

function binding(localName: string): ReadToolBinding {
  return {
    localName,
    policy: { mode: "read", title: localName },
    scope: null,
    concurrencySafe: false,
  };
}

function localOf(remote: string): string {
  return remote.replaceAll("-", "_");
}

Deno.test("server-everything: which tools bind, the exact error for the rest, calls", async () => {
  const session = await openServerEverything();
  const pid = session.pid;
  const monitors: CatalogMonitor[] = [];
  const monitor = () => {
    const created = new CatalogMonitor();
    created.acceptProtocolVersion(session.protocolVersion);
    monitors.push(created);
    return created;
  };
  try {
    assert.equal(session.protocolVersion, "2025-11-25");
    // Every bindable tool at once: one discovery, one snapshot.
    const bindings = Object.fromEntries(BINDABLE.map((name) => [name, binding(localOf(name))]));
    const found = await discoverTools(
      session.client,
      "everything",
      bindings,
      {
        monitor: monitor(),
      },
    );
    const { snapshot } = found;
    assert.deepEqual(snapshot.entries.map((entry) => entry.remoteName), BINDABLE);
    // Their inputs declare draft-07, which the profile admits (same semantics for its keywords).
    assert.equal(
      snapshot.entries[0].inputSchema.$schema,
      "http://json-schema.org/draft-07/schema#",
    );

    // The one tool that cannot be bound, alone and next to bindable ones.
    const alone: Record<string, ReadToolBinding>[] = [{}, { echo: binding("echo") }];
    for (const extra of alone) {
      await assert.rejects(
        () =>
          discoverTools(session.client, "everything", {
            ...extra,
            "simulate-research-query": binding("research"),
          }, { monitor: monitor() }),
        (error) => {
          assert.ok(error instanceof DiscoveryError);
          assert.equal(error.code, "mcp_tool_task_required");
          assert.equal(error.tool, "simulate-research-query");
          assert.equal(error.keyword, undefined);
          assert.equal(error.path, undefined);
          return true;
        },
      );
    }

    const call = (remote: string, args: Record<string, unknown>) =>
      gatedRead(found, found.registrations.find((r) => r.remoteName === remote)!.localName)
        .call(args);
    assert.deepEqual(await call("echo", { message: "hi" }), {
      text: ["Echo: hi"],
      structured: null,
    });
    assert.equal((await call("echo", {})).errorCode, "mcp_invalid_arguments");
    const sum = await call("get-sum", { a: 2, b: 3 });
    assert.equal(sum.errorCode, undefined);
    assert.match(sum.text.join(" "), /5/);
    const weather = await call("get-structured-content", { location: "Chicago" });
    assert.equal(weather.errorCode, undefined);
    assert.deepEqual(Object.keys(weather.structured as Record<string, unknown>).sort(), [
      "conditions",
      "humidity",
      "temperature",
    ]);
    assert.equal((await call("get-tiny-image", {})).errorCode, "mcp_result_unsupported");
    assert.equal(
      (await call("gzip-file-as-resource", { data: EVERYTHING_DATA_URI, name: "a.gz" }))
        .errorCode,
      "mcp_result_unsupported",
    );
    assert.equal(
      (await call("get-resource-links", { count: 1 })).errorCode,
      "mcp_result_unsupported",
    );
  } finally {
    for (const created of monitors) created.close();
    await session.close();
  }
  assert.ok(await processGone(pid!), "server exited");
});

Deno.test("server-everything over stdio: v1 and v2 host-owned clients, one snapshot digest", async () => {
  const seen: { digest: string; version: string; envelopes: unknown[] }[] = [];
  for (const sdk of ["v1", "v2"] as const) {
    const session = await openServerEverything(sdk);
    const pid = session.pid;
    const monitor = new CatalogMonitor();
    monitor.acceptProtocolVersion(session.protocolVersion);
    try {
      const bindings = Object.fromEntries(BINDABLE.map((name) => [name, binding(localOf(name))]));
      const found = await discoverTools(
        session.client,
        "everything",
        bindings,
        { monitor },
      );
      const { snapshot } = found;
      const call = (remote: string, args: Record<string, unknown>) =>
        gatedRead(found, found.registrations.find((r) => r.remoteName === remote)!.localName)
          .call(args);
      seen.push({
        digest: snapshot.revisionDigest,
        version: snapshot.protocolVersion,
        envelopes: [
          await call("echo", { message: sdk }),
          await call("get-sum", { a: 2, b: 3 }),
          await call("echo", {}),
          await call("get-tiny-image", {}),
        ],
      });
    } finally {
      monitor.close();
      await session.close();
    }
    assert.ok(await processGone(pid!), `server exited (${sdk})`);
  }
  const [v1, v2] = seen;
  assert.equal(v1.version, "2025-11-25");
  assert.equal(v2.version, v1.version);
  assert.match(v1.digest, /^sha256:[0-9a-f]{64}$/);
  assert.equal(v2.digest, v1.digest, "the same catalog through either SDK");
  assert.deepEqual(v1.envelopes.slice(1), v2.envelopes.slice(1));
  assert.deepEqual(v1.envelopes[0], { text: ["Echo: v1"], structured: null });
  assert.deepEqual(v2.envelopes[0], { text: ["Echo: v2"], structured: null });
});
