/**
 * Crash safety: the host process (`tests/support/write_host.ts`, a real libSQL file or a real
 * PostgreSQL database, real write server over stdio) SIGKILLs itself at each persistence point
 * of a write: after the pending approval (a deferred host), after the inline approval of a call
 * left pending (committed without waiting for the disk, so this proves a process crash keeps
 * such a commit), after the claim (for a new inline call, the one commit that records its
 * approval and claim), after the request was sent (once the server's ledger shows it arrived),
 * after the reply but before the record, and after the record. A second host process restarts
 * on the same database, runs `gate.recover()` and the same call again, approving inline.
 * Afterwards every claimed call is exactly one of committed or unknown, and the server's own
 * ledger shows no call received twice.
 */
import assert from "node:assert/strict";
import { type PersistencePoint, RECOVERED_REASON } from "../../mod.ts";
import { openStore } from "../support/open_store.ts";
import {
  postgresAvailable,
  type PostgresServer,
  startPostgres,
} from "../../fixtures/postgres_server.ts";
import { createWriteWorkspace, processGone } from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import { envelopeOf, hostArgs, startHost } from "../support/write_e2e.ts";

interface Expected {
  /** The killed host leaves decisions to a person (deferred) instead of approving inline. */
  deferredHost?: boolean;
  /** A deferred host killed at `prepared` ran first, so the killed one meets a pending call. */
  pendingFirst?: boolean;
  /** The record's state right after the kill. */
  afterKill: string;
  /** How often the server received the call by the time of the kill. */
  receivedAtKill: number;
  /** How often the server received the call after the restart. */
  receivedAtEnd: number;
  /** Whether the restart's recover() settled the claim. */
  recovered: boolean;
  /** The final state and the restarted call's envelope. */
  final: "committed" | "unknown";
  errorCode?: string;
}

const POINTS: Record<PersistencePoint, Expected> = {
  // Pending (a deferred host): the restart finds the call, approves it inline, claims and
  // dispatches it, once.
  prepared: {
    deferredHost: true,
    afterKill: "pending",
    receivedAtKill: 0,
    receivedAtEnd: 1,
    recovered: false,
    final: "committed",
  },
  // The inline approval of a pending call (not synced: a process crash keeps it), not claimed:
  // the restart claims and dispatches it, once.
  approved: {
    pendingFirst: true,
    afterKill: "approved",
    receivedAtKill: 0,
    receivedAtEnd: 1,
    recovered: false,
    final: "committed",
  },
  // Claimed, never sent: sluice cannot prove that, so it stays unknown and is never sent.
  claimed: {
    afterKill: "claimed",
    receivedAtKill: 0,
    receivedAtEnd: 0,
    recovered: true,
    final: "unknown",
    errorCode: "approval_already_claimed",
  },
  sent: {
    afterKill: "claimed",
    receivedAtKill: 1,
    receivedAtEnd: 1,
    recovered: true,
    final: "unknown",
    errorCode: "approval_already_claimed",
  },
  replied: {
    afterKill: "claimed",
    receivedAtKill: 1,
    receivedAtEnd: 1,
    recovered: true,
    final: "unknown",
    errorCode: "approval_already_claimed",
  },
  recorded: {
    afterKill: "committed",
    receivedAtKill: 1,
    receivedAtEnd: 1,
    recovered: false,
    final: "committed",
    errorCode: "approval_already_claimed",
  },
};

async function crashAt(point: PersistencePoint, postgres?: PostgresServer): Promise<void> {
  const expected = POINTS[point];
  const ws = await createWriteWorkspace();
  const db = postgres === undefined ? `${ws.root}/approvals.db` : await postgres.createDatabase();
  const key = `crash-${point}`;
  const deferred = hostArgs(db, ws, "success", "run-crash", key);
  const base = [...deferred, "--inline"];
  /** Runs a host that SIGKILLs itself at `at`; checks that it and its server are gone. */
  const killedAt = async (args: string[], at: PersistencePoint) => {
    const host = startHost([...args, "--kill-at", at]);
    let serverPid: number;
    try {
      serverPid = (await host.next("server")).pid as number;
      assert.equal((await host.next("killing")).point, at);
    } finally {
      const status = await host.finish();
      assert.equal(status.signal, "SIGKILL", "the host died by SIGKILL");
    }
    assert.ok(await processGone(serverPid), "the server followed its host");
  };
  try {
    if (expected.pendingFirst) await killedAt(deferred, "prepared");
    await killedAt(expected.deferredHost ? deferred : base, point);

    let approvalId: string;
    const store = await openStore(db);
    try {
      const records = await store.list();
      assert.equal(records.length, 1);
      approvalId = records[0].id;
      assert.equal(records[0].state, expected.afterKill);
    } finally {
      await store.close();
    }
    assert.equal(
      receivedCounts(await readLedger(ws.ledger)).get(key) ?? 0,
      expected.receivedAtKill,
    );

    const restart = startHost([...base, "--recover", "--reuse-dir"]);
    let restartPid: number;
    try {
      restartPid = (await restart.next("server")).pid as number;
      const recovered = (await restart.next("recovered")).ids as string[];
      assert.deepEqual(recovered, expected.recovered ? [approvalId] : []);
      const envelope = envelopeOf(await restart.next("envelope"));
      assert.equal(envelope.approvalId, approvalId);
      assert.equal(envelope.effect, expected.final);
      assert.equal(envelope.errorCode, expected.errorCode);
      await restart.next("done");
    } finally {
      assert.equal((await restart.finish()).code, 0);
    }
    assert.ok(await processGone(restartPid));

    const reopened = await openStore(db);
    try {
      for (const record of await reopened.list()) {
        assert.ok(record.claimedAt !== undefined, "the call was claimed");
        assert.ok(["committed", "unknown"].includes(record.state), record.state);
        assert.equal(record.state, expected.final);
        if (expected.recovered) assert.equal(record.outcomeReason, RECOVERED_REASON);
      }
    } finally {
      await reopened.close();
    }
    const counts = receivedCounts(await readLedger(ws.ledger));
    assert.ok([...counts.values()].every((n) => n <= 1), "no call dispatched twice");
    assert.equal(counts.get(key) ?? 0, expected.receivedAtEnd);
  } finally {
    await ws.remove();
  }
}

for (const point of Object.keys(POINTS) as PersistencePoint[]) {
  Deno.test(`write crash at ${point}: after restart exactly one of committed or unknown`, () =>
    crashAt(point));
}

if (postgresAvailable()) {
  Deno.test("write crash with the PostgreSQL store: SIGKILL at each persistence point", async (t) => {
    const server = await startPostgres();
    try {
      for (const point of Object.keys(POINTS) as PersistencePoint[]) {
        await t.step(
          `at ${point}: after restart exactly one of committed or unknown`,
          () => crashAt(point, server),
        );
      }
    } finally {
      await server.stop();
    }
  });
}
