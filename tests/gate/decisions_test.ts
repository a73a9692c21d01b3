/**
 * Edit before approving and standing grants end to end, proven against the independent write
 * server's ledger: the server runs as a separate process (stdio, official v2 SDK) and records
 * every request it receives; the store is a real libSQL file; the test process is the host.
 */
import assert from "node:assert/strict";
import {
  APPROVAL_TEXT,
  createGrant,
  discoverWriteTools,
  Gate,
  grantScopeOf,
  type JsonObject,
} from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { createWriteWorkspace, processGone } from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { connectWriteStdio } from "../support/write_stdio.ts";

const save = (id: string, key: string, value: unknown = SYNTHETIC_VALUE) => ({
  id,
  name: "save_record",
  arguments: { key, value } as JsonObject,
});

Deno.test("decisions against the write server: edits run as edited, once; grants approve N calls, then a person decides", async (t) => {
  const ws = await createWriteWorkspace();
  const db = `${ws.root}/approvals.db`;
  const store = await LibsqlApprovalStore.open(db);
  let clock = Date.now();
  const counts = async () => receivedCounts(await readLedger(ws.ledger));
  const server = await connectWriteStdio(ws, "success", "sluice-decisions");
  try {
    const { client, monitor } = server;
    // The scope refuses one key, so an edit that moves the call out of scope is caught at resume.
    const catalog = await discoverWriteTools(client, "records", {
      write_record: writeBinding({
        scope: (_state: unknown, args: JsonObject) =>
          args.key === "k-out-of-scope" ? "outside this scope" : undefined,
      }),
    }, { monitor });
    const gate = new Gate({ catalogs: [catalog], store, approvalTtlMs: 60_000, now: () => clock });

    await t.step("edit: the server receives the edited value exactly once", async () => {
      const [pending] = await gate.run([save("c1", "k-model")], { runId: "r-edit" });
      assert.equal(pending.errorCode, "approval_pending");
      const { original, approval } = await store.approveWithEdits(pending.approvalId!, {
        by: "erin",
        note: "use the person's key",
        arguments: { key: "k-person", value: SYNTHETIC_VALUE },
      });
      assert.equal(original.state, "superseded");
      assert.equal((await counts()).size, 0, "nothing sent before resume");
      const done = await gate.resume(pending.approvalId!);
      assert.equal(done.effect, "committed");
      assert.equal(done.id, "c1");
      assert.equal(done.approvalId, approval.id);
      assert.equal(done.text[0], APPROVAL_TEXT.edited);
      assert.equal((await store.get(approval.id))?.state, "committed");
      assert.deepEqual([...await counts()], [["k-person", 1]]);
      // A second resume, of either id, and the model's retried call never send again.
      const again = await gate.resume(pending.approvalId!);
      assert.equal(again.errorCode, "approval_already_claimed");
      assert.equal(again.effect, "committed");
      assert.equal(again.text[0], APPROVAL_TEXT.edited);
      assert.equal((await gate.resume(approval.id)).errorCode, "approval_already_claimed");
      const [retried] = await gate.run([save("c1", "k-model")], { runId: "r-edit" });
      assert.equal(retried.errorCode, "approval_already_claimed");
      assert.deepEqual([...await counts()], [["k-person", 1]]);
    });

    await t.step(
      "edit: the edited arguments are checked against the schema and the scope again",
      async () => {
        for (
          const [key, args, code] of [
            ["k-schema", { key: 7, value: SYNTHETIC_VALUE }, "mcp_invalid_arguments"],
            ["k-scope", { key: "k-out-of-scope", value: SYNTHETIC_VALUE }, "mcp_scope_denied"],
          ] as const
        ) {
          const [pending] = await gate.run([save("c1", key)], { runId: `r-${key}` });
          const { approval } = await store.approveWithEdits(pending.approvalId!, {
            by: "erin",
            arguments: args,
          });
          const refused = await gate.resume(pending.approvalId!);
          assert.equal(refused.errorCode, code);
          assert.equal(refused.effect, "not_started");
          assert.equal((await store.get(approval.id))?.state, "not_started");
        }
        assert.deepEqual([...await counts()], [["k-person", 1]]);
      },
    );

    await t.step(
      "grant for 2 calls: calls 1 and 2 run without a person, call 3 waits",
      async () => {
        const [first] = await gate.run([save("g0", "k-g0")], { runId: "r-grant" });
        assert.equal(first.errorCode, "approval_pending");
        const grant = await createGrant(store, {
          ...grantScopeOf((await store.get(first.approvalId!))!),
          runId: "r-grant",
          maxUses: 2,
          by: "gina",
        });
        const envelopes = await gate.run(
          [save("g1", "k-g1"), save("g2", "k-g2"), save("g3", "k-g3")],
          { runId: "r-grant" },
        );
        assert.deepEqual(envelopes.map((e) => e.effect), ["committed", "committed", "not_started"]);
        assert.equal(envelopes[2].errorCode, "approval_pending");
        for (const envelope of envelopes.slice(0, 2)) {
          const record = (await store.get(envelope.approvalId!))!;
          assert.equal(record.grantId, grant.id);
          assert.equal(record.decision?.by, `grant:${grant.id}`);
        }
        assert.equal((await store.get(envelopes[2].approvalId!))?.state, "pending");
        assert.equal((await store.getGrant(grant.id))?.uses, 2);
        const received = await counts();
        assert.equal(received.get("k-g1"), 1);
        assert.equal(received.get("k-g2"), 1);
        assert.equal(received.has("k-g3"), false);
        // The same grant does not reach another run.
        const [otherRun] = await gate.run([save("g4", "k-g4")], { runId: "r-other" });
        assert.equal(otherRun.errorCode, "approval_pending");
      },
    );

    await t.step(
      "revoked and expired grants approve nothing; a schema grant only what matches",
      async () => {
        const [probe] = await gate.run([save("p", "k-probe")], { runId: "r-probe" });
        const scope = grantScopeOf((await store.get(probe.approvalId!))!);
        const revoked = await createGrant(store, {
          ...scope,
          expiresAt: clock + 60_000,
          maxUses: 5,
          by: "gina",
        });
        await store.revokeGrant(revoked.id, { by: "rita" });
        const [afterRevoke] = await gate.run([save("v1", "k-revoked")], { runId: "r-revoked" });
        assert.equal(afterRevoke.errorCode, "approval_pending");
        const expiring = await createGrant(store, {
          ...scope,
          expiresAt: clock + 1_000,
          maxUses: 5,
          by: "gina",
        });
        clock += 1_000;
        const [afterExpiry] = await gate.run([save("x1", "k-expired")], { runId: "r-expired" });
        assert.equal(afterExpiry.errorCode, "approval_pending");
        assert.equal((await store.getGrant(expiring.id))?.uses, 0);
        assert.equal((await store.getGrant(revoked.id))?.uses, 0);
        const drafts = await createGrant(store, {
          ...scope,
          expiresAt: clock + 60_000,
          maxUses: 5,
          argumentsSchema: {
            type: "object",
            properties: { key: { type: "string", pattern: "^k-draft-" } },
          },
          by: "gina",
        });
        const [draft] = await gate.run([save("s1", "k-draft-1")], { runId: "r-schema" });
        assert.equal(draft.effect, "committed");
        const [final] = await gate.run([save("s2", "k-final-1")], { runId: "r-schema" });
        assert.equal(final.errorCode, "approval_pending");
        // With an inline approver the approver decides; grants stand in only for a waiting person.
        const inline = new Gate({
          catalogs: [catalog],
          store,
          approve: () => false,
          now: () => clock,
        });
        const [denied] = await inline.run([save("s3", "k-draft-2")], { runId: "r-inline" });
        assert.equal(denied.errorCode, "approval_denied");
        assert.equal((await store.getGrant(drafts.id))?.uses, 1);
        await store.revokeGrant(drafts.id, { by: "rita" });
        const received = await counts();
        assert.equal(received.get("k-draft-1"), 1);
        for (const key of ["k-revoked", "k-expired", "k-final-1", "k-draft-2"]) {
          assert.equal(received.has(key), false);
        }
        // A schema sluice's profile refuses is refused before any store sees it.
        await assert.rejects(
          createGrant(store, {
            ...scope,
            expiresAt: clock + 60_000,
            maxUses: 1,
            argumentsSchema: { $ref: "https://example.com/remote.json" },
            by: "gina",
          }),
          (error: unknown) => (error as { code?: string }).code === "schema_unsupported",
        );
        assert.equal((await store.listGrants()).length, 4);
      },
    );
  } finally {
    await server.close();
    await store.close();
    assert.ok(await processGone(server.pid));
    await ws.remove();
  }
});
