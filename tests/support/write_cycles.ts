/**
 * Inline and deferred write cycles through a real `Gate` over a given store and the in-memory v2
 * write server: what the commit-sync tests count the synced commits of.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ApprovalStore, discoverWriteTools, Gate } from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";

/** Write cycles on one store. */
export interface WriteCycles {
  /**
   * A call approved inline (the callback says `true`). A new call: the approval with its claim
   * (`prepareClaimed`), then the outcome; one left pending by {@link WriteCycles.pending}:
   * approve, claim, outcome.
   */
  inline(key: string): Promise<void>;
  /** A deferred call left pending (`approval_pending`): prepare only. */
  pending(key: string): Promise<void>;
  /**
   * A deferred call: the gate prepares it (`approval_pending`), a person approves it in the
   * store, the gate resumes it: claim, outcome.
   */
  deferred(key: string): Promise<void>;
  /** Closes the server (not the store). */
  close(): Promise<void>;
}

/** Gates over `store` with and without an inline approver. */
export async function writeCycles(store: ApprovalStore): Promise<WriteCycles> {
  const server = await startMemoryWriteServer();
  const writes = await discoverWriteTools(server.client, "cycles", {
    write_record: writeBinding(),
  }, { monitor: server.monitor });
  const inline = new Gate({ catalogs: [writes], store, approve: () => true });
  const deferred = new Gate({ catalogs: [writes], store });
  const call = (key: string) => ({
    id: `call-${key}`,
    name: "save_record",
    arguments: { key, value: SYNTHETIC_VALUE },
  });
  /** Leaves the call pending; returns its approval's id. */
  const pending = async (key: string) => {
    const [envelope] = await deferred.run([call(key)], { runId: "cycles" });
    assert.equal(envelope.errorCode, "approval_pending", JSON.stringify(envelope));
    return envelope.approvalId!;
  };
  return {
    async inline(key) {
      const [envelope] = await inline.run([call(key)], { runId: "cycles" });
      assert.equal(envelope.effect, "committed", JSON.stringify(envelope));
    },
    async pending(key) {
      await pending(key);
    },
    async deferred(key) {
      const approvalId = await pending(key);
      await store.approve(approvalId, { by: "person" });
      const envelope = await deferred.resume(approvalId);
      assert.equal(envelope.effect, "committed", JSON.stringify(envelope));
    },
    close: () => server.close(),
  };
}
