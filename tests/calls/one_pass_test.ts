/**
 * One discovery pass: `discoverCatalogs` lists a server once and checks each bound tool once,
 * and the read and write catalogs it builds are exactly those `discoverTools` and
 * `discoverWriteTools` build on their own (same digests), over a real in-memory v2 SDK pair.
 */
import assert from "node:assert/strict";
import {
  discoverCatalogs,
  discoverTools,
  discoverWriteTools,
  DiscoveryError,
  Gate,
  MemoryApprovalStore,
} from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { readBinding, writeBinding } from "../../fixtures/write_bindings.ts";
import { interceptingClient } from "../support/read_host.ts";

Deno.test("one pass: one tools/list for reads and writes, the same catalogs as apart", async () => {
  const server = await startMemoryWriteServer();
  const store = new MemoryApprovalStore();
  try {
    const methods: string[] = [];
    const { client } = interceptingClient(server.client, (method) => methods.push(method));
    const options = { monitor: server.monitor };
    const found = await discoverCatalogs(client, "records", {
      reads: { read_record: readBinding() },
      writes: { write_record: writeBinding() },
    }, options);
    assert.deepEqual(methods.filter((method) => method === "tools/list").length, 1);
    const reads = await discoverTools(server.client, "records", {
      read_record: readBinding(),
    }, options);
    const writes = await discoverWriteTools(server.client, "records", {
      write_record: writeBinding(),
    }, options);
    assert.equal(found.reads?.snapshot.revisionDigest, reads.snapshot.revisionDigest);
    assert.equal(found.writes?.snapshot.revisionDigest, writes.snapshot.revisionDigest);
    assert.deepEqual(found.reads?.registrations, reads.registrations);
    assert.deepEqual(found.writes?.registrations, writes.registrations);
    assert.deepEqual(
      [found.reads?.calls.length, found.writes?.calls.length, found.writes?.calls[0].approval],
      [1, 1, writes.calls[0].approval],
    );
    // One gate runs both catalogs of the one pass.
    const gate = new Gate({
      catalogs: [found.reads!, found.writes!],
      store,
      approve: () => true,
      allowNonDurableStoreForTests: true,
    });
    const [read, write] = await gate.run([
      { id: "r", name: "load_record", arguments: { key: "k" } },
      { id: "w", name: "save_record", arguments: { key: "k", value: SYNTHETIC_VALUE } },
    ], { runId: "one-pass" });
    assert.equal(read.errorCode, undefined);
    assert.deepEqual([write.errorCode, write.effect], [undefined, "committed"]);
  } finally {
    await store.close();
    await server.close();
  }
});

Deno.test("one pass: a name bound on both sides is refused before anything is listed", async () => {
  const server = await startMemoryWriteServer();
  try {
    const methods: string[] = [];
    const { client } = interceptingClient(server.client, (method) => methods.push(method));
    const options = { monitor: server.monitor };
    await assert.rejects(
      discoverCatalogs(client, "records", {
        reads: { write_record: readBinding() },
        writes: { write_record: writeBinding() },
      }, options),
      (error) => error instanceof DiscoveryError && error.code === "binding_invalid",
    );
    await assert.rejects(
      discoverCatalogs(client, "records", {
        reads: { read_record: { ...readBinding(), localName: "save_record" } },
        writes: { write_record: writeBinding() },
      }, options),
      (error) => error instanceof DiscoveryError && error.code === "binding_duplicate_name",
    );
    await assert.rejects(
      discoverCatalogs(client, "records", {}, options),
      (error) => error instanceof DiscoveryError && error.code === "binding_invalid",
    );
    assert.deepEqual(methods, []);
  } finally {
    await server.close();
  }
});
