/**
 * The five write scenarios end to end, with every part real and separate: a host process
 * (`tests/support/write_host.ts`) runs the gate with a libSQL file store in deferred mode and
 * spawns the independent write server (`fixtures/write_server.ts`, its own fsync'd ledger);
 * this test approves FROM ANOTHER PROCESS (the approvals CLI reopening the database); the host
 * resumes. Then the local record and the server's ledger are checked separately, the server's
 * PID is proven gone, and a second host run on the same database and ledger shows that reopening
 * never dispatches again.
 */
import assert from "node:assert/strict";
import { digest } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { Scenario } from "../../fixtures/write_server.ts";
import { createWriteWorkspace, processGone } from "../../fixtures/write_server_launch.ts";
import { callTrail, readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import { approvedFromCli, hostArgs, hostEnvelope } from "../support/write_e2e.ts";

interface Expected {
  /** The local record's final state. */
  state: "committed" | "unknown";
  /** The envelope's error code (absent on success). */
  errorCode?: string;
  /** The server's own trail for the key. */
  trail: string[];
}

const EXPECTED: Record<string, Expected> = {
  "success": {
    state: "committed",
    trail: ["received", "writing", "written", "responding"],
  },
  "lost-response": {
    state: "unknown",
    errorCode: "mcp_timeout",
    trail: ["received", "writing", "written", "withheld"],
  },
  "exit-before-write": {
    state: "unknown",
    errorCode: "mcp_connection_closed",
    trail: ["received"],
  },
  "exit-after-write": {
    state: "unknown",
    errorCode: "mcp_connection_closed",
    trail: ["received", "writing", "written"],
  },
  "error-after-write": {
    state: "unknown",
    errorCode: "mcp_protocol_error",
    trail: ["received", "writing", "written", "responding"],
  },
};

function scenarioArgs(db: string, ws: { dir: string; ledger: string }, name: string, key: string) {
  return [...hostArgs(db, ws, name, "run-1", key), "--timeout-ms", "1500"];
}

async function scenario(name: Scenario): Promise<void> {
  const expected = EXPECTED[name];
  const ws = await createWriteWorkspace();
  const db = `${ws.root}/approvals.db`;
  const key = `rec-${name}`;
  try {
    const { serverPid, approvalId, final } = await approvedFromCli(
      scenarioArgs(db, ws, name, key),
      db,
      "tester",
      async () => {
        assert.equal(receivedCounts(await readLedger(ws.ledger)).size, 0, "nothing sent yet");
      },
    );
    assert.equal(final.approvalId, approvalId);
    assert.equal(final.effect, expected.state);
    assert.equal(final.errorCode, expected.errorCode);
    assert.ok(await processGone(serverPid), "the write server process has exited");

    // The local record, read by a fresh store on the same file.
    const store = await LibsqlApprovalStore.open(db);
    try {
      const record = (await store.get(approvalId))!;
      assert.equal(record.state, expected.state);
      assert.equal(record.decision?.by, "tester");
      assert.ok(record.claimedAt !== undefined, "the claim is kept");
      if (expected.state === "committed") {
        const structured = { written: true, key, path: key };
        const resultDigest = await digest({ text: [JSON.stringify(structured)], structured });
        assert.equal(record.receipt?.resultDigest, resultDigest);
      } else {
        assert.equal(record.receipt, undefined);
        assert.equal(record.outcomeReason, expected.errorCode);
      }
    } finally {
      await store.close();
    }

    // The server's own evidence.
    const events = await readLedger(ws.ledger);
    assert.deepEqual(callTrail(events, key), expected.trail);
    assert.equal(receivedCounts(events).get(key), 1);
    const written = await Deno.readTextFile(`${ws.dir}/${key}`).catch(() => null);
    assert.equal(written !== null, expected.trail.includes("written"));

    // Reopen after completion or failure: the same run and call never dispatch again.
    const again = await hostEnvelope([...scenarioArgs(db, ws, name, key), "--reuse-dir"]);
    const againPid = again.serverPid;
    const replay = again.envelope;
    assert.equal(replay.errorCode, "approval_already_claimed");
    assert.equal(replay.effect, expected.state);
    assert.equal(replay.approvalId, approvalId);
    assert.ok(await processGone(againPid), "the second server process has exited");
    const after = await readLedger(ws.ledger);
    assert.equal(receivedCounts(after).get(key), 1, "no second dispatch");
    assert.equal(after.filter((e) => e.event === "started").length, 2);
  } finally {
    await ws.remove();
  }
}

for (const name of Object.keys(EXPECTED) as Scenario[]) {
  Deno.test(`write scenario ${name}: approved from another process, record and ledger agree`, () =>
    scenario(name));
}
