/**
 * The two store extensions the gate needs, on both stores (memory, and a real libSQL file):
 * `findCall(runId, callId)` and the claim naming a scope revision change `approval_scope_revoked`
 * even when the catalog digest (which covers the scope revision) changed with it.
 */
import assert from "node:assert/strict";
import { type ApprovalStore, MemoryApprovalStore } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { expectationFor, makeRequest, testClock } from "../../fixtures/approval_requests.ts";

async function withStores(body: (store: ApprovalStore, name: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "sluice-gate-ext-" });
  try {
    const clock = testClock();
    const stores: [string, ApprovalStore][] = [
      ["memory", new MemoryApprovalStore({ now: clock.now })],
      ["libsql", await LibsqlApprovalStore.open(`${dir}/a.db`, { now: clock.now })],
    ];
    for (const [name, store] of stores) {
      try {
        await body(store, name);
      } finally {
        await store.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("store findCall: the approval of one run and call id, or undefined", async () => {
  await withStores(async (store, name) => {
    const now = testClock().t;
    const prepared = await store.prepare(await makeRequest(now, { runId: "r1", callId: "c1" }));
    await store.prepare(await makeRequest(now, { runId: "r1", callId: "c2" }));
    assert.equal((await store.findCall("r1", "c1"))?.id, prepared.id, name);
    assert.equal(await store.findCall("r1", "c3"), undefined, name);
    assert.equal(await store.findCall("r2", "c1"), undefined, name);
  });
});

Deno.test("store claim: a scope revision change is a revocation even with a new catalog digest", async () => {
  await withStores(async (store, name) => {
    const request = await makeRequest(testClock().t);
    const { id } = await store.prepare(request);
    await store.approve(id, { by: "alice" });
    const result = await store.claim(
      id,
      expectationFor(request, {
        scopeRevision: "scope-2",
        catalogDigest: "sha256:" + "b".repeat(64),
      }),
    );
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.code, "approval_scope_revoked", name);
    assert.equal((await store.get(id))?.refusal?.code, "approval_scope_revoked");
    // The catalog digest alone still names a binding mismatch.
    const second = await makeRequest(testClock().t, {}, { document: "doc-2" });
    const other = await store.prepare(second);
    await store.approve(other.id, { by: "alice" });
    const mismatch = await store.claim(
      other.id,
      expectationFor(second, { catalogDigest: "sha256:" + "c".repeat(64) }),
    );
    assert.equal(!mismatch.ok && mismatch.code, "approval_binding_mismatch", name);
  });
});
