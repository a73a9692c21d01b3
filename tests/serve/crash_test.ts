// Crash and restart of `sluice serve` itself: the command runs as its own process on a libSQL
// store file, in front of two real write servers (their own processes and ledgers): `records`
// answers, `lost` writes and never answers, so its dispatch stays in flight. One write waits for
// approval (mid-approval) and the other is approved and sent (mid-dispatch) when the gateway is
// killed with SIGKILL. A second gateway on the same file records the in-flight claim `unknown`
// at start-up (never sent again); the pending one, approved afterwards, commits once. The
// upstreams' own ledgers show no call received twice.
import assert from "node:assert/strict";
import { RECOVERED_REASON } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedCounts, receivedFor } from "../../fixtures/write_ledger.ts";
import { approveInFile, connectClient, IDE_TOKEN, outcomeOf } from "./setup.ts";
import { startGateway } from "./gateway_process.ts";

Deno.test("serve crash: SIGKILL mid-approval and mid-dispatch; the restart records unknown, never dispatches twice", async () => {
  const records = await createWriteWorkspace();
  const lost = await createWriteWorkspace();
  const recordsServer = await startWriteServerHttp(records, "success");
  const lostServer = await startWriteServerHttp(lost, "lost-response");
  const db = `${records.root}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const config = `${records.root}/serve.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      servers: [{ id: "records", url: recordsServer.url }, { id: "lost", url: lostServer.url }],
      allow: ["records.write_record", "lost.write_record"],
      serve: { clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }] },
    }),
  );
  const waiting = { key: "crash-pending", value: VALUE };
  const inFlight = { key: "crash-inflight", value: VALUE };
  try {
    const first = await startGateway(config, db);
    let pendingId: string;
    let sentId: string;
    const client = await connectClient(first.url, IDE_TOKEN);
    try {
      const pending = await client.callTool({ name: "records__write_record", arguments: waiting });
      pendingId = outcomeOf(pending).approvalId as string;
      const toSend = await client.callTool({ name: "lost__write_record", arguments: inFlight });
      sentId = outcomeOf(toSend).approvalId as string;
      await approveInFile(db, sentId);
      // The retry dispatches it; the upstream writes and never answers: killed mid-dispatch.
      const dispatch = client.callTool({ name: "lost__write_record", arguments: inFlight })
        .catch((error) => error);
      for (let i = 0; i < 400; i++) {
        if (receivedFor(await readLedger(lost.ledger), inFlight.key).length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(receivedFor(await readLedger(lost.ledger), inFlight.key).length, 1);
      const status = await first.kill();
      assert.equal(status.signal, "SIGKILL");
      assert.ok((await dispatch) instanceof Error, "the client's request died with the gateway");
    } finally {
      await client.close().catch(() => {});
    }
    const store = await LibsqlApprovalStore.open(db);
    try {
      assert.equal((await store.get(pendingId))?.state, "pending");
      assert.equal((await store.get(sentId))?.state, "claimed", "killed between claim and record");
    } finally {
      await store.close();
    }

    const second = await startGateway(config, db);
    try {
      const said = new RegExp(`recovered 1 claimed writes.*${sentId}`);
      for (let i = 0; i < 200 && !said.test(second.stderr.join("")); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.match(second.stderr.join(""), said);
      const reopened = await LibsqlApprovalStore.open(db);
      try {
        const recovered = await reopened.get(sentId);
        assert.equal(recovered?.state, "unknown");
        assert.equal(recovered?.outcomeReason, RECOVERED_REASON);
      } finally {
        await reopened.close();
      }
      const retry = await connectClient(second.url, IDE_TOKEN);
      try {
        // The in-flight write, sent again: its recorded outcome, never a second dispatch.
        const again = await retry.callTool({ name: "lost__write_record", arguments: inFlight });
        assert.equal(outcomeOf(again).errorCode, "approval_already_claimed");
        assert.equal(outcomeOf(again).effect, "unknown");
        // The pending one: a person approves after the crash; the retry commits it once.
        await approveInFile(db, pendingId);
        const committed = await retry.callTool({
          name: "records__write_record",
          arguments: waiting,
        });
        assert.equal(outcomeOf(committed).effect, "committed");
        assert.equal(outcomeOf(committed).approvalId, pendingId);
        const later = await retry.callTool({ name: "records__write_record", arguments: waiting });
        assert.equal(outcomeOf(later).errorCode, "approval_already_claimed");
      } finally {
        await retry.close();
      }
    } finally {
      const stopped = await second.stop();
      assert.equal(stopped.code, 0, second.stderr.join(""));
    }
    for (const ws of [records, lost]) {
      const counts = receivedCounts(await readLedger(ws.ledger));
      assert.ok([...counts.values()].every((n) => n === 1), "no call received twice");
    }
    assert.equal(receivedFor(await readLedger(records.ledger), waiting.key).length, 1);
    const final = await LibsqlApprovalStore.open(db);
    try {
      const states = (await final.list()).map((record) => record.state).sort();
      assert.deepEqual(states, ["committed", "unknown"], "every outcome recorded");
    } finally {
      await final.close();
    }
  } finally {
    await lostServer.stop();
    await recordsServer.stop();
    await records.remove();
    await lost.remove();
  }
});
