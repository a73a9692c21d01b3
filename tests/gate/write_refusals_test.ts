/**
 * Refusals, each with its own code, proven against the independent write server's ledger: the
 * server runs as a separate process (stdio, official v2 SDK) and records every request it
 * receives; after all cases its ledger holds no `write_record` request at all. The store is a
 * real libSQL file; the test process is the host.
 */
import assert from "node:assert/strict";
import {
  discoverWriteTools,
  Gate,
  type GateEnvelope,
  MemoryApprovalStore,
  type WriteDiscoveryResult,
} from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { createWriteWorkspace, processGone } from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { connectWriteStdio } from "../support/write_stdio.ts";
import { cli } from "../support/write_e2e.ts";

const save = (id: string, key: string) => ({
  id,
  name: "save_record",
  arguments: { key, value: SYNTHETIC_VALUE },
});

Deno.test("write refusals: each its own code, recorded, and nothing reaches the server", async (t) => {
  const ws = await createWriteWorkspace();
  const db = `${ws.root}/approvals.db`;
  const store = await LibsqlApprovalStore.open(db);
  const server = await connectWriteStdio(ws, "success", "sluice-refusals");
  try {
    const { client, monitor } = server;
    const discover = (overrides: Record<string, unknown> = {}) =>
      discoverWriteTools(client, "records", { write_record: writeBinding(overrides) }, {
        monitor,
      });
    const original = await discover();
    const gateOver = (catalog: WriteDiscoveryResult, now?: () => number) =>
      new Gate({ catalogs: [catalog], store, approvalTtlMs: 60_000, ...(now ? { now } : {}) });
    const gate = gateOver(original);

    /** Prepares a deferred call and approves it as a person would. */
    const approved = async (runId: string, key: string): Promise<string> => {
      const [pending] = await gate.run([save("c", key)], { runId });
      assert.equal(pending.errorCode, "approval_pending");
      await store.approve(pending.approvalId!, { by: "tester" });
      return pending.approvalId!;
    };
    const refused = async (envelope: GateEnvelope, code: string, state: string) => {
      assert.equal(envelope.errorCode, code);
      assert.equal(envelope.effect, "not_started");
      const record = (await store.get(envelope.approvalId!))!;
      assert.equal(record.state, state);
      return record;
    };

    await t.step("binding mismatch: a rediscovered catalog with another digest", async () => {
      const id = await approved("r-binding", "k-binding");
      const rediscovered = await discover({ bindingRevision: "rev-2" });
      assert.notEqual(
        rediscovered.registrations[0].approvalBinding.bindingRevision,
        original.registrations[0].approvalBinding.bindingRevision,
      );
      const record = await refused(
        await gateOver(rediscovered).resume(id),
        "approval_binding_mismatch",
        "not_started",
      );
      assert.equal(record.refusal?.code, "approval_binding_mismatch");
      // Consumed: the original catalog cannot use it afterwards either.
      assert.equal((await gate.resume(id)).errorCode, "approval_already_claimed");
    });

    await t.step("scope revocation: the scope revision changed", async () => {
      const id = await approved("r-scope", "k-scope");
      const revoked = await discover({ scopeRevision: "scope-2" });
      const record = await refused(
        await gateOver(revoked).resume(id),
        "approval_scope_revoked",
        "not_started",
      );
      assert.equal(record.refusal?.code, "approval_scope_revoked");
    });

    await t.step("expiry: the gate's injected clock passes the approval's expiry", async () => {
      const id = await approved("r-expiry", "k-expiry");
      const record = (await store.get(id))!;
      const late = gateOver(original, () => record.expiresAt + 1);
      await refused(await late.resume(id), "approval_expired", "expired");
    });

    await t.step("denial: a person denies from another process", async () => {
      const [pending] = await gate.run([save("c", "k-deny")], { runId: "r-deny" });
      const denied = await cli(["deny", pending.approvalId!, "--db", db, "--by", "tester"]);
      assert.equal(denied.code, 0);
      await refused(await gate.resume(pending.approvalId!), "approval_denied", "denied");
      // An inline callback that does not return exactly true is a recorded denial too.
      const inline = new Gate({ catalogs: [original], store, approve: () => "yes" });
      await refused(
        (await inline.run([save("c", "k-deny-inline")], { runId: "r-deny-inline" }))[0],
        "approval_denied",
        "denied",
      );
    });

    await t.step(
      "arguments changed after approval: same run and call, other arguments",
      async () => {
        const id = await approved("r-args", "k-args");
        const [changed] = await gate.run([save("c", "k-args-other")], { runId: "r-args" });
        assert.equal(changed.approvalId, id);
        const record = await refused(changed, "approval_arguments_changed", "not_started");
        assert.equal(record.refusal?.code, "approval_arguments_changed");
        assert.deepEqual(record.arguments, { key: "k-args", value: SYNTHETIC_VALUE });
      },
    );

    await t.step("memory store without the test option", async () => {
      const memory = new MemoryApprovalStore();
      const gateOnMemory = new Gate({ catalogs: [original], store: memory, approve: () => true });
      const [envelope] = await gateOnMemory.run([save("c", "k-memory")], { runId: "r-memory" });
      assert.equal(envelope.errorCode, "approval_store_not_durable");
      assert.equal(envelope.effect, "not_started");
      assert.equal((await memory.list()).length, 0);
      await memory.close();
    });

    // The server's own evidence: it never received a single write_record request...
    const events = await readLedger(ws.ledger);
    assert.equal(events.filter((e) => e.event === "started").length, 1);
    assert.equal(events.filter((e) => e.event === "received").length, 0);
    // ...while the same session, store and gate do deliver an approved, unchanged call (the
    // control that makes the empty ledger above mean something).
    const id = await approved("r-control", "k-control");
    const done = await gate.resume(id);
    assert.equal(done.effect, "committed");
    assert.deepEqual([...receivedCounts(await readLedger(ws.ledger))], [["k-control", 1]]);
  } finally {
    await server.close();
    await store.close();
    assert.ok(await processGone(server.pid));
    await ws.remove();
  }
});
