/**
 * The D1 store inside workerd (Miniflare, real D1): the shared store suite unchanged (every call
 * runs in the Worker), 8 concurrent Worker requests, each a fresh store as in a stateless Worker,
 * claiming one approved call (exactly one wins), the tampered-schema refusal, and deferred approval
 * across two Workers on one D1 database (pending in the agent's Worker, approved from a second
 * Worker, resumed once, checked on the write server's ledger).
 */
import assert from "node:assert/strict";
import { approvalStoreSuite } from "../support/approval_store_suite.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import { d1Store, type D1Worker, startD1Worker } from "../support/d1_rpc.ts";
import type { ApprovalRecord, ClaimResult } from "../../src/approvals/mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import {
  createWriteWorkspace,
  processGone,
  startWriteServerHttp,
} from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";

const DATABASES = 48;
let worker: D1Worker | undefined;
let next = 0;
const theWorker = async () => worker ??= await startD1Worker(DATABASES);
const nextDatabase = () => {
  if (next >= DATABASES) throw new Error("the D1 test Worker has no database left");
  return `DB${next++}`;
};

approvalStoreSuite("d1 (workerd)", async (clock) => {
  const store = d1Store(await theWorker(), nextDatabase(), clock.now);
  return { store, cleanup: () => Promise.resolve() };
});

Deno.test("d1: 8 concurrent Worker requests claim one approved call, 20 times: exactly one wins", async () => {
  const running = await theWorker();
  const db = nextDatabase();
  const request = await makeRequest(Date.now(), {}, undefined, 10 * 60_000);
  for (let round = 0; round < 20; round++) {
    const prepared = await running.call({
      db,
      fresh: true,
      method: "prepare",
      args: [request],
    }) as ApprovalRecord;
    await running.call({
      db,
      fresh: true,
      method: "approve",
      args: [prepared.id, { by: "alice" }],
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        running.call({
          db,
          fresh: true,
          method: "claim",
          args: [prepared.id, expectationFor(request)],
        }) as Promise<ClaimResult>),
    );
    const codes = results.map((result) => result.ok ? "claimed" : result.code);
    assert.equal(codes.filter((code) => code === "claimed").length, 1, `round ${round}: ${codes}`);
    assert.equal(codes.filter((code) => code === "approval_already_claimed").length, 7);
    const events = await running.call({
      db,
      fresh: true,
      method: "events",
      args: [prepared.id],
    }) as { to: string }[];
    assert.equal(events.filter((event) => event.to === "claimed").length, 1);
  }
});

Deno.test("d1: a tampered database is refused at open: approval_store_schema_invalid", async () => {
  const running = await theWorker();
  for (
    const tamper of [
      "DROP TRIGGER approvals_transition",
      "DROP TRIGGER approvals_transition_instant",
    ]
  ) {
    const db = nextDatabase();
    await running.call({ db, fresh: true, method: "open" });
    await running.call({ db, sql: tamper });
    await assert.rejects(
      running.call({ db, fresh: true, method: "open" }),
      (error: unknown) => (error as { code?: string }).code === "approval_store_schema_invalid",
      tamper,
    );
  }
});

Deno.test("d1: a Worker runs connect() with deferred approvals: pending, approved from a second Worker, resumed once", async () => {
  const running = await theWorker();
  const db = nextDatabase();
  const ws = await createWriteWorkspace();
  const server = await startWriteServerHttp(ws, "success");
  try {
    const args = { key: "d1-deferred", value: SYNTHETIC_VALUE };
    const pending = await running.call({
      db,
      connect: server.url,
      call: ["records__write_record", args],
    }) as { errorCode?: string; approvalId?: string; effect?: string };
    assert.equal(pending.errorCode, "approval_pending", JSON.stringify(pending));
    assert.equal(pending.effect, "not_started");
    assert.equal(receivedCounts(await readLedger(ws.ledger)).get(args.key) ?? 0, 0);
    // Still pending: a resume in another Worker request sends nothing.
    const early = await running.call({ db, connect: server.url, resume: pending.approvalId });
    assert.equal((early as { errorCode?: string }).errorCode, "approval_pending");
    // A person approves from outside the agent's Worker: a second Worker (its own isolate, its
    // own socket) bound to the same D1 database.
    assert.equal(await running.call({ whoami: true }, "approver"), "approver");
    assert.equal(await running.call({ whoami: true }), "agent");
    const approved = await running.call({
      db,
      fresh: true,
      method: "approve",
      args: [pending.approvalId, { by: "reviewer" }],
    }, "approver") as { state: string };
    assert.equal(approved.state, "approved");
    const done = await running.call({ db, connect: server.url, resume: pending.approvalId }) as {
      errorCode?: string;
      effect?: string;
    };
    assert.equal(done.errorCode, undefined, JSON.stringify(done));
    assert.equal(done.effect, "committed");
    const again = await running.call({ db, connect: server.url, resume: pending.approvalId });
    assert.equal((again as { errorCode?: string }).errorCode, "approval_already_claimed");
    // The write server's own ledger: received exactly once.
    assert.equal(receivedCounts(await readLedger(ws.ledger)).get(args.key), 1);
    const record = await running.call({
      db,
      fresh: true,
      method: "get",
      args: [pending.approvalId],
    }) as { state: string };
    assert.equal(record.state, "committed");
  } finally {
    await server.stop();
    assert.ok(await processGone(server.pid));
    await ws.remove();
  }
});

Deno.test("d1: the Worker host stops by its PID", async () => {
  if (worker === undefined) return;
  const pid = worker.pid;
  await worker.stop();
  assert.ok(await processGone(pid), "the host process is gone");
});
