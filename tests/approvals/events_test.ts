/**
 * The libSQL store's history and returned records, proven against independent references:
 * every story (committed, denied, expired at decision and at claim, refused at claim, unknown
 * then reconciled) leaves the history written out by hand, on libSQL and in memory, and the
 * same record on both; a hand-written legal UPDATE shows in the history; and every record a
 * store returns equals a fresh read from another connection, including when another process
 * moved the row in between.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { LibsqlApprovalStore } from "../../libsql.ts";
import {
  type ApprovalEvent,
  type ApprovalRecord,
  type ApprovalStore,
  MemoryApprovalStore,
} from "../../src/approvals/mod.ts";
import { expectationFor, makeRequest, testClock } from "../../fixtures/approval_requests.ts";

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-events-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

type Story = (store: ApprovalStore, clock: { t: number }) => Promise<string>;

const ignore = () => undefined;

/** Each story drives one approval through a path and returns its id. */
const STORIES: Record<string, Story> = {
  committed: async (store, clock) => {
    const { id } = await store.prepare(await makeRequest(clock.t));
    clock.t += 5;
    await store.approve(id, { by: "alice", note: "looks right" });
    clock.t += 5;
    await store.claim(id, expectationFor(await makeRequest(clock.t)));
    clock.t += 5;
    await store.recordOutcome(id, {
      outcome: "committed",
      receipt: { resultDigest: "sha256:" + "b".repeat(64), at: clock.t - 1 },
    });
    return id;
  },
  denied: async (store, clock) => {
    const { id } = await store.prepare(await makeRequest(clock.t));
    clock.t += 5;
    await store.deny(id, { by: "bob" });
    return id;
  },
  "expired at decision": async (store, clock) => {
    const { id } = await store.prepare(await makeRequest(clock.t, {}, undefined, 10));
    clock.t += 20;
    await store.approve(id, { by: "alice" }).catch(ignore);
    return id;
  },
  "expired at claim": async (store, clock) => {
    const request = await makeRequest(clock.t, {}, undefined, 10);
    const { id } = await store.prepare(request);
    clock.t += 5;
    await store.approve(id, { by: "alice" });
    clock.t += 20;
    await store.claim(id, expectationFor(request));
    return id;
  },
  "refused at claim": async (store, clock) => {
    const request = await makeRequest(clock.t);
    const { id } = await store.prepare(request);
    clock.t += 5;
    await store.approve(id, { by: "alice" });
    clock.t += 5;
    await store.claim(id, { ...expectationFor(request), scopeRevision: "scope-2" });
    return id;
  },
  "unknown then reconciled": async (store, clock) => {
    const request = await makeRequest(clock.t);
    const { id } = await store.prepare(request);
    clock.t += 5;
    await store.approve(id, { by: "alice" });
    clock.t += 5;
    await store.claim(id, expectationFor(request));
    clock.t += 5;
    await store.recordOutcome(id, { outcome: "unknown", reason: "mcp_timeout" });
    clock.t += 5;
    await store.reconcile(id, { outcome: "committed", evidence: "ledger row 7", by: "ops" });
    return id;
  },
};

const T = testClock().t;
const RESULT = "sha256:" + "b".repeat(64);

/**
 * Each story's history, written out by hand from the calls it makes and the clock: state pairs,
 * instants, people and details.
 */
const HISTORIES: Record<string, [string | null, string, number, string?, string?][]> = {
  committed: [
    [null, "pending", T],
    ["pending", "approved", T + 5, "alice", "looks right"],
    ["approved", "claimed", T + 10],
    ["claimed", "committed", T + 15, undefined, RESULT],
  ],
  denied: [[null, "pending", T], ["pending", "denied", T + 5, "bob"]],
  "expired at decision": [
    [null, "pending", T],
    ["pending", "expired", T + 20, undefined, "approval_expired"],
  ],
  "expired at claim": [
    [null, "pending", T],
    ["pending", "approved", T + 5, "alice"],
    ["approved", "expired", T + 25, undefined, "approval_expired"],
  ],
  "refused at claim": [
    [null, "pending", T],
    ["pending", "approved", T + 5, "alice"],
    ["approved", "claimed", T + 10, undefined, "approval_scope_revoked"],
    ["claimed", "not_started", T + 10, undefined, "approval_scope_revoked"],
  ],
  "unknown then reconciled": [
    [null, "pending", T],
    ["pending", "approved", T + 5, "alice"],
    ["approved", "claimed", T + 10],
    ["claimed", "unknown", T + 15, undefined, "mcp_timeout"],
    ["unknown", "reconciled", T + 20, "ops", "committed: ledger row 7"],
  ],
};

const asEvents = (id: string, history: (typeof HISTORIES)[string]): ApprovalEvent[] =>
  history.map(([from, to, at, by, detail], index) => ({
    seq: index + 1,
    approvalId: id,
    from: from as ApprovalEvent["from"],
    to: to as ApprovalEvent["to"],
    at,
    ...(by === undefined ? {} : { by }),
    ...(detail === undefined ? {} : { detail }),
  }));

Deno.test("every story leaves the history written out by hand, on libSQL and in memory, and the same record", async () => {
  await withDir(async (dir) => {
    for (const [name, story] of Object.entries(STORIES)) {
      const memoryClock = testClock();
      const memory = new MemoryApprovalStore({ now: memoryClock.now });
      const fileClock = testClock();
      const file = await LibsqlApprovalStore.open(join(dir, `${name.replaceAll(" ", "-")}.db`), {
        now: fileClock.now,
      });
      try {
        const memoryId = await story(memory, memoryClock);
        const fileId = await story(file, fileClock);
        assert.deepEqual(await memory.events(memoryId), asEvents(memoryId, HISTORIES[name]), name);
        assert.deepEqual(await file.events(fileId), asEvents(fileId, HISTORIES[name]), name);
        const { id: _m, ...memoryRecord } = (await memory.get(memoryId))!;
        const { id: _f, ...fileRecord } = (await file.get(fileId))!;
        assert.deepEqual(fileRecord, memoryRecord, name);
      } finally {
        await file.close();
      }
    }
  });
});

Deno.test("a hand-written legal transition shows in the history read from the row", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    let store = await LibsqlApprovalStore.open(path);
    const { id } = await store.prepare(await makeRequest(Date.now()));
    await store.close();
    const raw = createClient({ url: `file:${path}` });
    try {
      const applied = await raw.execute({
        sql: `UPDATE approvals SET state = 'approved', decided_by = 'carol', decided_at = 42
          WHERE id = ?`,
        args: [id],
      });
      assert.equal(applied.rowsAffected, 1);
    } finally {
      raw.close();
    }
    store = await LibsqlApprovalStore.open(path);
    try {
      const events = await store.events(id);
      assert.deepEqual(events.map((e) => [e.seq, e.from, e.to, e.by, e.at]), [
        [1, null, "pending", undefined, events[0].at],
        [2, "pending", "approved", "carol", 42],
      ]);
    } finally {
      await store.close();
    }
  });
});

Deno.test("every returned record equals a fresh read, also after another store moved the row", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const clock = testClock();
    const a = await LibsqlApprovalStore.open(path, { now: clock.now });
    const b = await LibsqlApprovalStore.open(path, { now: clock.now });
    const reader = await LibsqlApprovalStore.open(path);
    const fresh = async (record: ApprovalRecord) => {
      assert.deepEqual(record, await reader.get(record.id));
      return record;
    };
    try {
      const request = await makeRequest(clock.t);
      // a remembers the row as pending; b approves it; a must not build on its stale copy.
      const pending = await fresh(await a.prepare(request));
      clock.t += 1;
      assert.equal((await fresh(await b.approve(pending.id, { by: "bob" }))).state, "approved");
      clock.t += 1;
      const claim = await a.claim(pending.id, expectationFor(request));
      assert.ok(claim.ok);
      assert.equal((await fresh(claim.approval)).decision?.by, "bob");
      clock.t += 1;
      const done = await fresh(
        await a.recordOutcome(pending.id, {
          outcome: "committed",
          receipt: { resultDigest: "sha256:" + "c".repeat(64), at: clock.t },
        }),
      );
      assert.equal(done.state, "committed");
      // The same run and call prepared again, by either store, returns the stored approval.
      const again = await makeRequest(clock.t, { runId: "run-1", callId: "call-1" });
      const first = await fresh(await a.prepare(again));
      assert.deepEqual(await b.prepare(again), first);
      assert.deepEqual(await a.prepare(again), first);
    } finally {
      await a.close();
      await b.close();
      await reader.close();
    }
  });
});
