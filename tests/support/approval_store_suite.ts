/**
 * One behavioural suite for every `ApprovalStore` implementation: the full state machine,
 * idempotent prepare, each claim refusal with its code and its record, expiry on an injected
 * clock, outcomes, reconciliation and the history.
 */
import assert from "node:assert/strict";
import { digest, type JsonObject } from "../../src/identity/mod.ts";
import {
  ApprovalError,
  type ApprovalOutcome,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalStore,
  type ClaimExpectation,
  type ClaimResult,
  type GrantInput,
} from "../../src/approvals/mod.ts";
import {
  expectationFor,
  makeRequest,
  type TestClock,
  testClock,
} from "../../fixtures/approval_requests.ts";

/** Opens a fresh, empty store on the given clock; `cleanup` removes whatever it created. */
export type StoreFactory = (clock: TestClock) => Promise<{
  store: ApprovalStore;
  cleanup: () => Promise<void>;
}>;

/** Asserts that `promise` rejects with an `ApprovalError` of `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApprovalError, `expected ApprovalError, got ${error}`);
    assert.equal(error.code, code);
    return true;
  });
}

function refused(result: ClaimResult, code: string): ApprovalRecord | undefined {
  assert.equal(result.ok, false, "claim should have been refused");
  if (result.ok) throw new Error("unreachable");
  assert.equal(result.code, code);
  return result.approval;
}

/** Drives a fresh approval to `state` through legal operations only. */
async function reach(
  store: ApprovalStore,
  clock: TestClock,
  state: ApprovalState,
): Promise<{ id: string; request: Awaited<ReturnType<typeof makeRequest>> }> {
  const request = await makeRequest(clock.t);
  const { id } = await store.prepare(request);
  const expected = expectationFor(request);
  switch (state) {
    case "pending":
      break;
    case "denied":
      await store.deny(id, { by: "dana" });
      break;
    case "superseded":
      await store.approveWithEdits(id, {
        by: "erin",
        arguments: { document: "doc-1", title: "E" },
      });
      break;
    case "expired": {
      const saved = clock.t;
      clock.t = request.expiresAt;
      await rejectsWith(store.approve(id, { by: "dana" }), "approval_expired");
      clock.t = saved;
      break;
    }
    default: {
      await store.approve(id, { by: "alice" });
      if (state === "approved") break;
      assert.equal((await store.claim(id, expected)).ok, true);
      if (state === "claimed") break;
      if (state === "committed") {
        await store.recordOutcome(id, {
          outcome: "committed",
          receipt: { resultDigest: "sha256:" + "b".repeat(64), at: clock.t },
        });
      } else if (state === "not_started") {
        await store.recordOutcome(id, { outcome: "not_started", reason: "scope_denied" });
      } else {
        await store.recordOutcome(id, { outcome: "unknown", reason: "mcp_timeout" });
        if (state === "reconciled") {
          await store.reconcile(id, { outcome: "committed", evidence: "ledger line 4", by: "ops" });
        }
      }
    }
  }
  assert.equal((await store.get(id))?.state, state);
  return { id, request };
}

const ALL_STATES: ApprovalState[] = [
  "pending",
  "approved",
  "denied",
  "expired",
  "claimed",
  "committed",
  "not_started",
  "unknown",
  "reconciled",
  "superseded",
];

/**
 * Which operation is legal from which state, written out by hand from the state machine
 * (not derived from the code under test). Each maps to the state it leads to.
 */
const LEGAL: Record<string, Partial<Record<ApprovalState, ApprovalState>>> = {
  approve: { pending: "approved" },
  deny: { pending: "denied" },
  edit: { pending: "superseded" },
  claim: { approved: "claimed" },
  committed: { claimed: "committed" },
  not_started: { claimed: "not_started" },
  unknown: { claimed: "unknown" },
  reconcile: { unknown: "reconciled" },
};

/** Registers the suite for one implementation. */
export function approvalStoreSuite(name: string, factory: StoreFactory): void {
  const test = (title: string, body: (store: ApprovalStore, clock: TestClock) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const clock = testClock();
      const { store, cleanup } = await factory(clock);
      try {
        await body(store, clock);
      } finally {
        await store.close();
        await cleanup();
      }
    });

  test(
    "prepare stores a pending approval with everything people need to see",
    async (store, clock) => {
      const request = await makeRequest(clock.t, { runId: "run-1", callId: "call-1" });
      const record = await store.prepare(request);
      assert.equal(record.state, "pending");
      assert.equal(record.createdAt, clock.t);
      assert.deepEqual(record.arguments, { document: "doc-1", title: "Quarterly plan" });
      for (const key of Object.keys(request) as (keyof typeof request)[]) {
        assert.deepEqual(record[key], request[key], key);
      }
      assert.deepEqual(await store.get(record.id), record);
      assert.equal(await store.get("no-such-id"), undefined);
      const events = await store.events(record.id);
      assert.equal(events.length, 1);
      assert.equal(events[0].from, null);
      assert.equal(events[0].to, "pending");
    },
  );

  test(
    "the trace link of the span that prepared it is kept with the approval and its edit",
    async (store, clock) => {
      const link = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const record = await store.prepare(await makeRequest(clock.t, { traceLink: link }));
      assert.equal(record.traceLink, link);
      assert.equal((await store.get(record.id))?.traceLink, link);
      const edited = await store.approveWithEdits(record.id, {
        by: "erin",
        arguments: { document: "doc-1", title: "E" },
      });
      assert.equal(edited.approval.traceLink, link, "the edit continues the same call");
      assert.equal((await store.get(edited.approval.id))?.traceLink, link);
      const plain = await store.prepare(await makeRequest(clock.t));
      assert.equal(plain.traceLink, undefined);
      assert.equal("traceLink" in (await store.get(plain.id))!, false);
      for (
        const bad of [
          "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
          "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
          `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
          `00-0af7651916cd43dd8448eb211c80319c-${"0".repeat(16)}-01`,
          "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
        ]
      ) {
        await rejectsWith(
          store.prepare(await makeRequest(clock.t, { traceLink: bad })),
          "approval_invalid_request",
        );
      }
      assert.equal((await store.list()).length, 3);
    },
  );

  test("prepare refuses a digest that is not the digest of the arguments", async (store, clock) => {
    const request = await makeRequest(clock.t);
    await rejectsWith(
      store.prepare({ ...request, argumentsDigest: await digest({ other: true }) }),
      "approval_invalid_request",
    );
    await rejectsWith(store.prepare({ ...request, scopeId: "" }), "approval_invalid_request");
    await rejectsWith(store.prepare({ ...request, runId: "run-only" }), "approval_invalid_request");
    await rejectsWith(
      store.prepare({ ...request, effect: "read" as unknown as "write" }),
      "approval_invalid_request",
    );
    assert.deepEqual(await store.list(), []);
  });

  test(
    "the same run and call ids map to the same approval; other content conflicts",
    async (store, clock) => {
      const ids = { runId: "run-7", callId: "call-3" };
      const first = await store.prepare(await makeRequest(clock.t, ids));
      await store.approve(first.id, { by: "alice" });
      clock.t += 1_000;
      // A retried prepare computes a fresh expiry; it is still the same call.
      const again = await store.prepare(await makeRequest(clock.t, ids));
      assert.equal(again.id, first.id);
      assert.equal(again.state, "approved");
      await rejectsWith(
        store.prepare(await makeRequest(clock.t, ids, { document: "doc-2", title: "x" })),
        "approval_conflict",
      );
      await rejectsWith(
        store.prepare(await makeRequest(clock.t, { ...ids, catalogDigest: "sha256:other" })),
        "approval_conflict",
      );
      const other = await store.prepare(await makeRequest(clock.t, { ...ids, callId: "call-4" }));
      assert.notEqual(other.id, first.id);
      assert.equal((await store.list()).length, 2);
    },
  );

  test("approve and deny record who decided; list filters by state", async (store, clock) => {
    const a = await store.prepare(await makeRequest(clock.t));
    const b = await store.prepare(await makeRequest(clock.t));
    const approved = await store.approve(a.id, { by: "alice", note: "looks right" });
    assert.equal(approved.state, "approved");
    assert.deepEqual(approved.decision, {
      decision: "approved",
      by: "alice",
      note: "looks right",
      at: clock.t,
    });
    const denied = await store.deny(b.id, { by: "bob" });
    assert.equal(denied.state, "denied");
    assert.equal(denied.decision?.decision, "denied");
    assert.equal(denied.decision?.by, "bob");
    assert.deepEqual((await store.list({ state: "approved" })).map((r) => r.id), [a.id]);
    assert.deepEqual((await store.list({ state: "denied" })).map((r) => r.id), [b.id]);
    assert.deepEqual((await store.list()).map((r) => r.id).sort(), [a.id, b.id].sort());
    await rejectsWith(store.approve("no-such-id", { by: "alice" }), "approval_not_found");
    const c = await store.prepare(await makeRequest(clock.t));
    await rejectsWith(store.approve(c.id, { by: "" }), "approval_invalid_request");
    assert.equal((await store.get(c.id))?.state, "pending");
  });

  test("a claim succeeds once; the second is approval_already_claimed", async (store, clock) => {
    const { id, request } = await reach(store, clock, "approved");
    const first = await store.claim(id, expectationFor(request));
    assert.equal(first.ok, true);
    assert.equal(first.ok && first.approval.state, "claimed");
    assert.equal(first.ok && first.approval.claimedAt, clock.t);
    refused(await store.claim(id, expectationFor(request)), "approval_already_claimed");
    assert.equal((await store.get(id))?.state, "claimed");
  });

  test(
    "a malformed expectation is approval_invalid_request on every store and changes nothing",
    async (store, clock) => {
      const { id, request } = await reach(store, clock, "approved");
      const { remoteToolName: _dropped, ...missing } = expectationFor(request);
      for (
        const bad of [
          missing,
          { ...expectationFor(request), scopeRevision: "" },
          { ...expectationFor(request), effect: "read" },
          { ...expectationFor(request), argumentsDigest: 7 },
          null,
        ]
      ) {
        await rejectsWith(
          store.claim(id, bad as unknown as ClaimExpectation),
          "approval_invalid_request",
        );
      }
      await rejectsWith(
        store.claim(id, expectationFor(request), Number.NaN),
        "approval_invalid_request",
      );
      // Also for an id that does not exist: the input is judged before any record is read.
      await rejectsWith(
        store.claim("no-such-id", missing as unknown as ClaimExpectation),
        "approval_invalid_request",
      );
      assert.equal((await store.get(id))?.state, "approved");
      assert.equal((await store.events(id)).length, 2);
      assert.equal((await store.claim(id, expectationFor(request))).ok, true);
    },
  );

  test("claim refusals by state: not found, pending, denied", async (store, clock) => {
    const request = await makeRequest(clock.t);
    refused(await store.claim("no-such-id", expectationFor(request)), "approval_not_found");
    const pending = await reach(store, clock, "pending");
    refused(await store.claim(pending.id, expectationFor(pending.request)), "approval_pending");
    // A pending approval stays pending: a person may still approve it.
    assert.equal((await store.get(pending.id))?.state, "pending");
    const denied = await reach(store, clock, "denied");
    refused(await store.claim(denied.id, expectationFor(denied.request)), "approval_denied");
  });

  test("expiry on the injected clock is recorded and final", async (store, clock) => {
    const { id, request } = await reach(store, clock, "approved");
    clock.t = request.expiresAt - 1;
    const early = await store.get(id);
    assert.equal(early?.state, "approved");
    clock.t = request.expiresAt;
    const record = refused(await store.claim(id, expectationFor(request)), "approval_expired");
    assert.equal(record?.state, "expired");
    assert.equal((await store.get(id))?.state, "expired");
    refused(await store.claim(id, expectationFor(request)), "approval_expired");
    // The claim's own `now` overrides the clock.
    const later = await reach(store, { t: clock.t, now: () => clock.t }, "approved");
    refused(
      await store.claim(later.id, expectationFor(later.request), later.request.expiresAt + 1),
      "approval_expired",
    );
    // A claim of a pending approval past its expiry records the expiry too.
    const undecided = await reach(store, clock, "pending");
    clock.t = undecided.request.expiresAt;
    const expiredPending = refused(
      await store.claim(undecided.id, expectationFor(undecided.request)),
      "approval_expired",
    );
    assert.equal(expiredPending?.state, "expired");
    // A pending approval past its expiry cannot be approved; the expiry is recorded.
    const pending = await store.prepare(await makeRequest(clock.t, {}, undefined, 10));
    clock.t += 10;
    await rejectsWith(store.approve(pending.id, { by: "alice" }), "approval_expired");
    assert.equal((await store.get(pending.id))?.state, "expired");
    const events = await store.events(pending.id);
    assert.deepEqual(events.map((e) => [e.from, e.to]), [[null, "pending"], [
      "pending",
      "expired",
    ]]);
  });

  for (
    const [code, change] of [
      ["approval_binding_mismatch", { catalogDigest: "sha256:" + "c".repeat(64) }],
      ["approval_binding_mismatch", { bindingId: "docs-update-v2" }],
      ["approval_binding_mismatch", { serverId: "other-server" }],
      ["approval_binding_mismatch", { scopeId: "other-scope" }],
      ["approval_binding_mismatch", { effect: "destructive" }],
      ["approval_scope_revoked", { scopeRevision: "scope-2" }],
      ["approval_arguments_changed", { argumentsDigest: "sha256:" + "d".repeat(64) }],
    ] as const
  ) {
    test(
      `claim refused and recorded: ${code} (${Object.keys(change)[0]})`,
      async (store, clock) => {
        const { id, request } = await reach(store, clock, "approved");
        const record = refused(await store.claim(id, expectationFor(request, change)), code);
        assert.equal(record?.state, "not_started");
        assert.equal(record?.refusal?.code, code);
        const stored = await store.get(id);
        assert.equal(stored?.state, "not_started");
        assert.equal(stored?.refusal?.code, code);
        assert.equal(stored?.outcomeReason, code);
        // Consumed: not even the originally approved identity can claim it now.
        refused(await store.claim(id, expectationFor(request)), "approval_already_claimed");
        const events = await store.events(id);
        assert.deepEqual(events.slice(-2).map((e) => [e.from, e.to, e.detail]), [
          ["approved", "claimed", code],
          ["claimed", "not_started", code],
        ]);
      },
    );
  }

  test("outcomes: committed keeps its receipt, unknown keeps its claim", async (store, clock) => {
    const committed = await reach(store, clock, "claimed");
    const receipt = { resultDigest: "sha256:" + "e".repeat(64), at: clock.t - 5 };
    clock.t += 3;
    const done = await store.recordOutcome(committed.id, { outcome: "committed", receipt });
    assert.equal(done.state, "committed");
    assert.deepEqual(done.receipt, receipt);
    assert.equal(done.outcomeAt, clock.t);
    const unknown = await reach(store, clock, "claimed");
    const lost = await store.recordOutcome(unknown.id, {
      outcome: "unknown",
      reason: "mcp_timeout",
    });
    assert.equal(lost.state, "unknown");
    assert.equal(lost.outcomeReason, "mcp_timeout");
    assert.equal(typeof lost.claimedAt, "number");
    refused(
      await store.claim(unknown.id, expectationFor(unknown.request)),
      "approval_already_claimed",
    );
    await rejectsWith(
      store.recordOutcome(committed.id, { outcome: "unknown", reason: "late" }),
      "approval_invalid_transition",
    );
    await rejectsWith(
      store.recordOutcome(unknown.id, { outcome: "committed", receipt }),
      "approval_invalid_transition",
    );
    await rejectsWith(
      store.recordOutcome("no-such-id", { outcome: "unknown", reason: "x" }),
      "approval_not_found",
    );
    const claimed = await reach(store, clock, "claimed");
    for (
      const bad of [
        { outcome: "maybe", reason: "x" },
        { outcome: "unknown", reason: "" },
        { outcome: "committed", receipt: { resultDigest: "", at: 1 } },
        { outcome: "committed", receipt: { resultDigest: "sha256:x", at: Number.NaN } },
      ]
    ) {
      await rejectsWith(
        store.recordOutcome(claimed.id, bad as unknown as ApprovalOutcome),
        "approval_invalid_request",
      );
    }
    assert.equal((await store.get(claimed.id))?.state, "claimed", "bad input changes nothing");
  });

  test("reconcile only from unknown, with evidence and who", async (store, clock) => {
    const { id } = await reach(store, clock, "unknown");
    await rejectsWith(
      store.reconcile(id, { outcome: "committed", evidence: "", by: "ops" }),
      "approval_invalid_request",
    );
    await rejectsWith(
      store.reconcile(id, { outcome: "committed", evidence: "ledger", by: "" }),
      "approval_invalid_request",
    );
    clock.t += 60_000;
    const done = await store.reconcile(id, {
      outcome: "not_started",
      evidence: "server ledger has no write for doc-1",
      by: "ops-erin",
    });
    assert.equal(done.state, "reconciled");
    assert.deepEqual(done.reconciliation, {
      outcome: "not_started",
      evidence: "server ledger has no write for doc-1",
      by: "ops-erin",
      at: clock.t,
    });
    assert.equal(done.outcomeReason, "mcp_timeout", "the original unknown reason is kept");
    await rejectsWith(
      store.reconcile(id, { outcome: "committed", evidence: "again", by: "ops" }),
      "approval_invalid_transition",
    );
    const last = (await store.events(id)).at(-1);
    assert.equal(last?.from, "unknown");
    assert.equal(last?.to, "reconciled");
    assert.equal(last?.by, "ops-erin");
  });

  test(
    "every operation from every state: legal ones move, the rest throw and change nothing",
    async (store, clock) => {
      for (const state of ALL_STATES) {
        for (const [operation, legal] of Object.entries(LEGAL)) {
          const { id, request } = await reach(store, clock, state);
          const eventsBefore = (await store.events(id)).length;
          const run = (): Promise<unknown> => {
            switch (operation) {
              case "approve":
                return store.approve(id, { by: "zed" });
              case "deny":
                return store.deny(id, { by: "zed" });
              case "edit":
                return store.approveWithEdits(id, { by: "zed", arguments: { document: "d" } });
              case "claim":
                return store.claim(id, expectationFor(request));
              case "committed":
                return store.recordOutcome(id, {
                  outcome: "committed",
                  receipt: { resultDigest: "sha256:" + "f".repeat(64), at: clock.t },
                });
              case "reconcile":
                return store.reconcile(id, { outcome: "committed", evidence: "e", by: "zed" });
              default:
                return store.recordOutcome(id, {
                  outcome: operation as "not_started" | "unknown",
                  reason: "r",
                });
            }
          };
          const target = legal[state];
          const label = `${operation} from ${state}`;
          if (target !== undefined) {
            await run();
            assert.equal((await store.get(id))?.state, target, label);
            assert.equal((await store.events(id)).length, eventsBefore + 1, label);
          } else if (operation === "claim") {
            const result = (await run()) as ClaimResult;
            assert.equal(result.ok, false, label);
            assert.equal((await store.get(id))?.state, state, label);
            assert.equal((await store.events(id)).length, eventsBefore, label);
          } else {
            await rejectsWith(run(), "approval_invalid_transition");
            assert.equal((await store.get(id))?.state, state, label);
            assert.equal((await store.events(id)).length, eventsBefore, label);
          }
        }
      }
    },
  );

  test("the history tells the whole committed story in order", async (store, clock) => {
    const { id } = await reach(store, clock, "committed");
    const events = await store.events(id);
    assert.deepEqual(events.map((e) => [e.from, e.to]), [
      [null, "pending"],
      ["pending", "approved"],
      ["approved", "claimed"],
      ["claimed", "committed"],
    ]);
    assert.equal(events[1].by, "alice");
    assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1].seq));
    assert.ok(events.every((e) => e.approvalId === id));
  });

  test(
    'prepare and approve with sync "with_next": the same records, events and refusals as synced ones',
    async (store, clock) => {
      const later = { sync: "with_next" } as const;
      const ids = { runId: "run-n", callId: "call-n" };
      const request = await makeRequest(clock.t, ids);
      const pending = await store.prepare(request, later);
      assert.equal(pending.state, "pending");
      assert.deepEqual(await store.get(pending.id), pending);
      assert.equal((await store.prepare(request, later)).id, pending.id);
      await rejectsWith(
        store.prepare(await makeRequest(clock.t, ids, { document: "doc-2", title: "x" }), later),
        "approval_conflict",
      );
      const approved = await store.approve(pending.id, { by: "ivan" }, later);
      assert.equal(approved.state, "approved");
      assert.equal(approved.decision?.by, "ivan");
      await rejectsWith(
        store.approve(pending.id, { by: "ivan" }, later),
        "approval_invalid_transition",
      );
      // The synced commits that follow: the claim and the outcome.
      assert.equal((await store.claim(pending.id, expectationFor(request))).ok, true);
      await store.recordOutcome(pending.id, {
        outcome: "committed",
        receipt: { resultDigest: "sha256:" + "b".repeat(64), at: clock.t },
      });
      assert.deepEqual((await store.events(pending.id)).map((e) => [e.from, e.to]), [
        [null, "pending"],
        ["pending", "approved"],
        ["approved", "claimed"],
        ["claimed", "committed"],
      ]);
      // Past its expiry the approval is recorded expired, as without the option.
      const late = await store.prepare(await makeRequest(clock.t), later);
      clock.t = late.expiresAt;
      await rejectsWith(store.approve(late.id, { by: "ivan" }, later), "approval_expired");
      assert.equal((await store.get(late.id))?.state, "expired");
      await rejectsWith(store.approve("no-such-id", { by: "ivan" }, later), "approval_not_found");
      await rejectsWith(
        store.prepare({ ...await makeRequest(clock.t), runId: "run-only" }, later),
        "approval_invalid_request",
      );
    },
  );

  test(
    "prepareClaimed: one call records what prepare, approve and claim would, under the id the caller named",
    async (store, clock) => {
      const id = crypto.randomUUID();
      const ids = { runId: "run-pc", callId: "call-pc" };
      const request = { ...await makeRequest(clock.t, ids), id };
      const decision = { by: "inline", note: "fine" };
      const result = await store.prepareClaimed(request, decision);
      assert.ok(result.ok, "a new call is recorded and claimed");
      const record = result.approval;
      assert.equal(record.id, id);
      assert.equal(record.state, "claimed");
      assert.deepEqual(await store.get(id), record);
      assert.deepEqual((await store.events(id)).map((e) => [e.from, e.to, e.by ?? null]), [
        [null, "pending", null],
        ["pending", "approved", "inline"],
        ["approved", "claimed", null],
      ]);
      // The same call made step by step gives the same record, but for its ids.
      const stepwise = await makeRequest(clock.t, { runId: "run-ps", callId: "call-ps" });
      const { id: stepId } = await store.prepare(stepwise);
      await store.approve(stepId, decision);
      const claimed = await store.claim(stepId, expectationFor(stepwise));
      assert.ok(claimed.ok);
      const withoutIds = (r: ApprovalRecord) => ({ ...r, id: "", runId: "", callId: "" });
      assert.deepEqual(withoutIds(record), withoutIds(claimed.approval));
      // It is claimed: nothing claims it again.
      refused(await store.claim(id, expectationFor(request)), "approval_already_claimed");

      // The run and call met again: nothing is written and their approval comes back.
      const count = (await store.list()).length;
      const again = await store.prepareClaimed({ ...request, id: crypto.randomUUID() }, decision);
      assert.equal(again.ok, false);
      if (again.ok) throw new Error("unreachable");
      assert.equal(again.existing.id, id);
      assert.equal(again.existing.state, "claimed");
      assert.equal((await store.prepare({ ...request, id: crypto.randomUUID() })).id, id);
      await rejectsWith(
        store.prepareClaimed(
          { ...await makeRequest(clock.t, ids, { document: "doc-2", title: "x" }) },
          decision,
        ),
        "approval_conflict",
      );
      // An id another approval has, and an id that is not a UUID, are refused.
      await rejectsWith(
        store.prepareClaimed({ ...await makeRequest(clock.t), id }, decision),
        "approval_conflict",
      );
      await rejectsWith(store.prepare({ ...await makeRequest(clock.t), id }), "approval_conflict");
      await rejectsWith(
        store.prepareClaimed({ ...await makeRequest(clock.t), id: "approval-1" }, decision),
        "approval_invalid_request",
      );
      await rejectsWith(
        store.prepareClaimed(await makeRequest(clock.t), { by: "" }),
        "approval_invalid_request",
      );
      assert.equal((await store.list()).length, count, "no refused call wrote anything");
      assert.equal((await store.events(id)).length, 3);

      // The outcome is recorded as after any claim.
      await store.recordOutcome(id, {
        outcome: "committed",
        receipt: { resultDigest: "sha256:" + "b".repeat(64), at: clock.t },
      });
      assert.equal((await store.get(id))?.state, "committed");

      // Decided too late: recorded expired, as approve records it.
      const lateId = crypto.randomUUID();
      const late = { ...await makeRequest(clock.t), id: lateId };
      await rejectsWith(store.prepareClaimed(late, decision, late.expiresAt), "approval_expired");
      assert.deepEqual((await store.events(lateId)).map((e) => [e.from, e.to]), [
        [null, "pending"],
        ["pending", "expired"],
      ]);
      // Without an id the store makes one.
      const made = await store.prepareClaimed(await makeRequest(clock.t), decision);
      assert.ok(made.ok);
      assert.match(
        made.approval.id,
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    },
  );

  test(
    "prepareClaimed: of eight concurrent calls for one run and call, exactly one records and claims it",
    async (store, clock) => {
      const base = await makeRequest(clock.t, { runId: "run-race", callId: "call-race" });
      const results = await Promise.all(
        Array.from(
          { length: 8 },
          () => store.prepareClaimed({ ...base, id: crypto.randomUUID() }, { by: "inline" }),
        ),
      );
      const winners = results.flatMap((result) => result.ok ? [result.approval] : []);
      assert.equal(winners.length, 1, "one call records the approval");
      for (const result of results) {
        if (!result.ok) assert.equal(result.existing.id, winners[0].id);
      }
      assert.deepEqual((await store.list()).map((record) => record.id), [winners[0].id]);
      assert.equal((await store.events(winners[0].id)).length, 3);
    },
  );

  test(
    "approve with edits: the original is superseded, a new approval of the edited call is approved, linked both ways",
    async (store, clock) => {
      const request = await makeRequest(clock.t, { runId: "run-e", callId: "call-e" });
      const { id } = await store.prepare(request);
      const edited = { document: "doc-1", title: "Edited <b>plan</b>" };
      clock.t += 500;
      const { original, approval } = await store.approveWithEdits(id, {
        by: "erin",
        note: "shorter title",
        arguments: edited,
      });
      assert.equal(original.state, "superseded");
      assert.equal(original.supersededBy, approval.id);
      assert.equal(original.decision?.by, "erin");
      assert.equal(approval.state, "approved");
      assert.equal(approval.supersedes, id);
      assert.deepEqual(approval.arguments, edited);
      assert.equal(approval.argumentsDigest, await digest(edited));
      assert.notEqual(approval.argumentsDigest, request.argumentsDigest);
      assert.deepEqual(approval.decision, {
        decision: "approved",
        by: "erin",
        note: "shorter title",
        at: clock.t,
      });
      assert.equal(approval.expiresAt, request.expiresAt);
      assert.equal(approval.serverId, request.serverId);
      assert.equal(approval.catalogDigest, request.catalogDigest);
      assert.deepEqual(await store.get(id), original);
      assert.deepEqual(await store.get(approval.id), approval);
      // The call's ids stay with the original, which points at the edit.
      assert.equal((await store.findCall("run-e", "call-e"))?.id, id);
      assert.deepEqual((await store.events(id)).map((e) => [e.from, e.to, e.by, e.detail]), [
        [null, "pending", undefined, undefined],
        ["pending", "superseded", "erin", approval.id],
      ]);
      assert.deepEqual((await store.events(approval.id)).map((e) => [e.from, e.to, e.by]), [
        [null, "pending", undefined],
        ["pending", "approved", "erin"],
      ]);
      // The original cannot be claimed; the edit is claimed against the edited digest, once.
      refused(await store.claim(id, expectationFor(request)), "approval_superseded");
      refused(
        await store.claim(approval.id, expectationFor(request)),
        "approval_arguments_changed",
      );
    },
  );

  test(
    "approve with edits: single use, bad input refused the same way, expiry recorded",
    async (store, clock) => {
      const request = await makeRequest(clock.t);
      const { id } = await store.prepare(request);
      await rejectsWith(
        store.approveWithEdits(id, { by: "erin", arguments: [] as unknown as JsonObject }),
        "approval_invalid_request",
      );
      await rejectsWith(
        store.approveWithEdits(id, { by: "", arguments: {} }),
        "approval_invalid_request",
      );
      await rejectsWith(
        store.approveWithEdits("no-such-id", { by: "erin", arguments: {} }),
        "approval_not_found",
      );
      assert.equal((await store.get(id))?.state, "pending");
      const { approval } = await store.approveWithEdits(id, { by: "erin", arguments: { a: 1 } });
      await rejectsWith(
        store.approveWithEdits(id, { by: "erin", arguments: { a: 2 } }),
        "approval_invalid_transition",
      );
      await rejectsWith(store.approve(id, { by: "erin" }), "approval_invalid_transition");
      const claimed = await store.claim(approval.id, {
        ...expectationFor(request),
        argumentsDigest: approval.argumentsDigest,
      });
      assert.equal(claimed.ok, true);
      refused(
        await store.claim(approval.id, {
          ...expectationFor(request),
          argumentsDigest: approval.argumentsDigest,
        }),
        "approval_already_claimed",
      );
      const late = await store.prepare(await makeRequest(clock.t));
      clock.t = late.expiresAt;
      await rejectsWith(
        store.approveWithEdits(late.id, { by: "erin", arguments: { a: 3 } }),
        "approval_expired",
      );
      assert.equal((await store.get(late.id))?.state, "expired");
      assert.equal((await store.list()).length, 3);
    },
  );

  const grantFor = (request: ApprovalRequest, extra: Partial<GrantInput> = {}): GrantInput => ({
    serverId: request.serverId,
    toolName: request.toolName,
    bindingId: request.bindingId,
    catalogDigest: request.catalogDigest,
    maxUses: 2,
    expiresAt: request.expiresAt + 60_000,
    by: "gina",
    ...extra,
  });

  test("grants: N uses approve N calls, each its own record, then none", async (store, clock) => {
    const request = await makeRequest(clock.t, { runId: "run-g", callId: "c1" });
    const grant = await store.createGrant(grantFor(request, { note: "batch edits" }));
    assert.equal(grant.uses, 0);
    assert.equal(grant.maxUses, 2);
    assert.equal(grant.grantedBy, "gina");
    assert.deepEqual(await store.getGrant(grant.id), grant);
    assert.deepEqual(await store.listGrants(), [grant]);
    assert.deepEqual(await store.listGrants({ toolName: "other" }), []);
    const ids: string[] = [];
    for (const callId of ["c1", "c2", "c3"]) {
      ids.push((await store.prepare(await makeRequest(clock.t, { runId: "run-g", callId }))).id);
    }
    const first = await store.approveByGrant(ids[0], grant.id);
    assert.equal(first.ok, true);
    if (!first.ok) throw new Error("unreachable");
    assert.equal(first.approval.state, "approved");
    assert.equal(first.approval.grantId, grant.id);
    assert.equal(first.approval.decision?.by, `grant:${grant.id}`);
    assert.equal(first.grant.uses, 1);
    assert.deepEqual(await store.get(ids[0]), first.approval);
    // The same approval cannot spend a second use.
    assert.deepEqual(await store.approveByGrant(ids[0], grant.id), {
      ok: false,
      code: "approval_grant_mismatch",
    });
    assert.equal((await store.approveByGrant(ids[1], grant.id)).ok, true);
    assert.deepEqual(await store.approveByGrant(ids[2], grant.id), {
      ok: false,
      code: "approval_grant_exhausted",
    });
    assert.equal((await store.get(ids[2]))?.state, "pending");
    assert.equal((await store.getGrant(grant.id))?.uses, 2);
    assert.deepEqual(
      (await store.grantEvents(grant.id)).map((e) => [e.seq, e.kind, e.by, e.approvalId]),
      [
        [1, "created", "gina", undefined],
        [2, "used", undefined, ids[0]],
        [3, "used", undefined, ids[1]],
      ],
    );
    assert.deepEqual((await store.events(ids[0])).map((e) => [e.to, e.by]), [
      ["pending", undefined],
      ["approved", `grant:${grant.id}`],
    ]);
    assert.deepEqual(await store.approveByGrant("no-such-id", grant.id), {
      ok: false,
      code: "approval_not_found",
    });
    assert.deepEqual(await store.approveByGrant(ids[2], "no-such-grant"), {
      ok: false,
      code: "approval_grant_not_found",
    });
  });

  test(
    "grants: revoked, expired, other run or other binding approve nothing",
    async (store, clock) => {
      const request = await makeRequest(clock.t, { runId: "run-h", callId: "c1" });
      const pending = await store.prepare(request);
      const revoked = await store.createGrant(grantFor(request));
      const after = await store.revokeGrant(revoked.id, { by: "rita" });
      assert.equal(after.revokedBy, "rita");
      assert.equal(after.revokedAt, clock.t);
      await rejectsWith(store.revokeGrant(revoked.id, { by: "rita" }), "approval_grant_revoked");
      await rejectsWith(store.revokeGrant("nope", { by: "rita" }), "approval_grant_not_found");
      assert.deepEqual(await store.approveByGrant(pending.id, revoked.id), {
        ok: false,
        code: "approval_grant_revoked",
      });
      const expiring = await store.createGrant(grantFor(request, { expiresAt: clock.t + 10 }));
      assert.deepEqual(await store.approveByGrant(pending.id, expiring.id, clock.t + 10), {
        ok: false,
        code: "approval_grant_expired",
      });
      const otherRun = await store.createGrant(
        grantFor(request, { runId: "run-other", expiresAt: undefined }),
      );
      assert.deepEqual(await store.approveByGrant(pending.id, otherRun.id), {
        ok: false,
        code: "approval_grant_mismatch",
      });
      const otherCatalog = await store.createGrant(
        grantFor(request, { catalogDigest: "sha256:x" }),
      );
      assert.deepEqual(await store.approveByGrant(pending.id, otherCatalog.id), {
        ok: false,
        code: "approval_grant_mismatch",
      });
      assert.equal((await store.get(pending.id))?.state, "pending");
      assert.deepEqual((await store.grantEvents(revoked.id)).map((e) => [e.kind, e.by]), [
        ["created", "gina"],
        ["revoked", "rita"],
      ]);
      const thisRun = await store.createGrant(
        grantFor(request, { runId: "run-h", expiresAt: undefined }),
      );
      assert.equal((await store.approveByGrant(pending.id, thisRun.id)).ok, true);
    },
  );

  test("grants: the store itself checks the grant's arguments schema", async (store, clock) => {
    const draftOnly = await store.createGrant(grantFor(await makeRequest(clock.t), {
      maxUses: 5,
      argumentsSchema: {
        type: "object",
        properties: { document: { type: "string", pattern: "^draft-" } },
        required: ["document"],
      },
    }));
    const prod = await store.prepare(await makeRequest(clock.t, {}, { document: "prod-1" }));
    const draft = await store.prepare(await makeRequest(clock.t, {}, { document: "draft-7" }));
    assert.deepEqual(await store.approveByGrant(prod.id, draftOnly.id), {
      ok: false,
      code: "approval_grant_mismatch",
    });
    assert.equal((await store.get(prod.id))?.state, "pending");
    assert.equal((await store.getGrant(draftOnly.id))?.uses, 0, "a refused call spends no use");
    const approved = await store.approveByGrant(draft.id, draftOnly.id);
    assert.equal(approved.ok, true);
    assert.equal((await store.getGrant(draftOnly.id))?.uses, 1);
    // A stored schema the profile refuses admits nothing.
    const unknownKeyword = await store.createGrant(grantFor(await makeRequest(clock.t), {
      argumentsSchema: { type: "object", "x-anything": true },
    }));
    const other = await store.prepare(await makeRequest(clock.t, {}, { document: "draft-8" }));
    assert.deepEqual(await store.approveByGrant(other.id, unknownKeyword.id), {
      ok: false,
      code: "approval_grant_mismatch",
    });
  });

  test("grants: malformed input is refused the same way by every store", async (store, clock) => {
    const request = await makeRequest(clock.t);
    for (
      const bad of [
        grantFor(request, { maxUses: 0 }),
        grantFor(request, { maxUses: 1.5 }),
        grantFor(request, { expiresAt: undefined }),
        grantFor(request, { serverId: "" }),
        grantFor(request, { by: "" }),
        grantFor(request, { argumentsSchema: [] as unknown as JsonObject }),
      ]
    ) {
      await rejectsWith(store.createGrant(bad), "approval_invalid_request");
    }
    assert.deepEqual(await store.listGrants(), []);
    const schema = { type: "object", properties: { title: { maxLength: 10 } } };
    const grant = await store.createGrant(grantFor(request, { argumentsSchema: schema }));
    assert.deepEqual(grant.argumentsSchema, schema);
    assert.deepEqual((await store.getGrant(grant.id))?.argumentsSchema, schema);
  });

  test(
    "grants: a caller-chosen id is created once; the same terms again return it, others conflict",
    async (store, clock) => {
      const request = await makeRequest(clock.t, { runId: "run-i", callId: "c1" });
      const id = crypto.randomUUID();
      const input = grantFor(request, { id, note: "once", argumentsSchema: { type: "object" } });
      // Three at once and one after: one grant, the same one every time.
      const made = await Promise.all([1, 2, 3].map(() => store.createGrant(input)));
      clock.t += 1000;
      made.push(await store.createGrant({ ...input }));
      assert.equal(made[0].id, id);
      for (const grant of made) assert.deepEqual(grant, made[0]);
      assert.deepEqual(await store.listGrants(), [made[0]]);
      assert.deepEqual((await store.grantEvents(id)).map((e) => e.kind), ["created"]);
      for (
        const other of [
          { maxUses: 3 },
          { note: "twice" },
          { note: undefined },
          { by: "mallory" },
          { runId: "run-i" },
          { expiresAt: input.expiresAt! + 1 },
          { argumentsSchema: { type: "object", required: ["a"] } },
          { toolName: "other_tool" },
        ]
      ) {
        await rejectsWith(store.createGrant({ ...input, ...other }), "approval_conflict");
      }
      assert.equal((await store.listGrants()).length, 1);
      // A used or revoked grant is still the one that id names.
      await store.revokeGrant(id, { by: "rita" });
      assert.equal((await store.createGrant(input)).revokedBy, "rita");
      for (const bad of ["", "not-a-uuid", 7 as unknown as string]) {
        await rejectsWith(store.createGrant({ ...input, id: bad }), "approval_invalid_request");
      }
      assert.equal((await store.listGrants()).length, 1);
    },
  );

  test("a closed store refuses further calls", async (store, clock) => {
    const request = await makeRequest(clock.t);
    await store.close();
    await rejectsWith(store.prepare(request), "approval_store_closed");
    await rejectsWith(store.list(), "approval_store_closed");
  });
}
