/**
 * Write discovery and gate behaviour over a real in-memory v2 SDK client/server pair
 * (`fixtures/write_server_memory.ts`): the server counts every `tools/call` it receives, which
 * is the evidence for "nothing was sent". The approval store is the real in-memory store.
 */
import assert from "node:assert/strict";
import {
  type CallPlan,
  discoverWriteTools,
  DiscoveryError,
  Gate,
  type GateEnvelope,
  GateError,
  type WriteToolBindings,
} from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import type { MemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { withWriteCatalogs, type WriteCatalogs } from "../support/write_catalogs.ts";

type Setup = WriteCatalogs;
const withSetup = withWriteCatalogs;

function gateOf(setup: Setup, extra: Partial<ConstructorParameters<typeof Gate>[0]> = {}): Gate {
  return new Gate({
    catalogs: [setup.reads, setup.writes],
    store: setup.store,
    allowNonDurableStoreForTests: true,
    ...extra,
  });
}

const save = (id: string, key: string, value: unknown = SYNTHETIC_VALUE) => ({
  id,
  name: "save_record",
  arguments: { key, value },
});

const writesReceived = (server: MemoryWriteServer) => server.received.get("write_record") ?? 0;

Deno.test("write discovery: schemaVersion 2 with authorization, concurrency off, binding is the catalog digest", async () => {
  await withSetup(async ({ writes, server }) => {
    const { snapshot, registrations } = writes;
    assert.equal(snapshot.schemaVersion, 2);
    assert.equal(snapshot.entries.length, 1);
    const [entry] = snapshot.entries;
    assert.deepEqual(entry.authorization, {
      bindingId: "records.save",
      bindingRevision: "rev-1",
      scopeId: "team-a",
      scopeRevision: "scope-1",
      effect: "write",
    });
    assert.equal(entry.concurrencySafe, false);
    assert.deepEqual(entry.policy, { mode: "confirm", title: "Save a record", effect: "write" });
    const [registration] = registrations;
    assert.equal("call" in registration, false, "a write registration has no direct call");
    assert.equal(registration.approvalBinding.bindingRevision, snapshot.revisionDigest);
    assert.notEqual(registration.approvalBinding.bindingRevision, "rev-1");
    assert.match(registration.approvalBinding.bindingRevision, /^sha256:[0-9a-f]{64}$/);
    assert.ok(Object.isFrozen(snapshot) && Object.isFrozen(registration.approvalBinding));
    // Each identity input changes the digest: host revision, scope revision, server id.
    const digestWith = async (serverId: string, overrides: Record<string, unknown>) =>
      (await discoverWriteTools(server.client, serverId, {
        write_record: writeBinding(overrides),
      }, { monitor: server.monitor })).snapshot.revisionDigest;
    const same = await digestWith("records", {});
    assert.equal(same, snapshot.revisionDigest, "rediscovery of the same catalog is stable");
    const variants = [
      await digestWith("records", { bindingRevision: "rev-2" }),
      await digestWith("records", { scopeRevision: "scope-2" }),
      await digestWith("records", { scopeId: "team-b" }),
      await digestWith("other-server", {}),
    ];
    assert.equal(new Set([same, ...variants]).size, 5);
  });
});

Deno.test("write discovery: every missing or wrong binding field fails with its own code", async () => {
  await withSetup(async ({ server }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ policy: { mode: "read", title: "x", effect: "write" } }, "binding_policy_invalid"],
      [{ policy: { mode: "confirm", title: " ", effect: "write" } }, "binding_policy_invalid"],
      [
        { policy: { mode: "confirm", title: "x", effect: "read" }, effect: "read" },
        "binding_effect_invalid",
      ],
      [{ effect: "destructive" }, "binding_effect_mismatch"],
      [{ scope: null }, "binding_scope_missing"],
      [{ scope: undefined }, "binding_scope_missing"],
      [{ bindingId: "" }, "binding_identity_missing"],
      [{ bindingRevision: undefined }, "binding_identity_missing"],
      [{ scopeId: "  " }, "binding_identity_missing"],
      [{ scopeRevision: 7 }, "binding_identity_missing"],
      [{ concurrencySafe: true }, "binding_invalid"],
    ];
    for (const [overrides, code] of cases) {
      const bindings = { write_record: writeBinding(overrides) } as WriteToolBindings;
      await assert.rejects(
        discoverWriteTools(server.client, "records", bindings, { monitor: server.monitor }),
        (error) => error instanceof DiscoveryError && error.code === code,
        `${JSON.stringify(Object.keys(overrides))} should fail with ${code}`,
      );
    }
    // Server annotations (readOnlyHint: true on read_record) grant nothing: it is a write
    // tool when the host binds it so, and an unbound tool is absent.
    const asWrite = await discoverWriteTools(server.client, "records", {
      read_record: writeBinding({ localName: "read_as_write" }),
    }, { monitor: server.monitor });
    assert.equal(asWrite.registrations[0].policy.mode, "confirm");
    assert.equal(asWrite.snapshot.entries.map((e) => e.remoteName).join(), "read_record");
  });
});

Deno.test("gate construction: duplicate local names across catalogs, writes without a store", async () => {
  await withSetup(async (setup) => {
    assert.throws(
      () => new Gate({ catalogs: [setup.writes, setup.writes], store: setup.store }),
      (error) => error instanceof GateError && error.code === "gate_duplicate_name",
    );
    assert.throws(
      () => new Gate({ catalogs: [setup.writes] }),
      (error) => error instanceof GateError && error.code === "gate_store_missing",
    );
    assert.throws(
      // Registrations are data, not call plans: a catalog of them runs nothing.
      () => new Gate({ catalogs: [{ calls: setup.reads.registrations as unknown as CallPlan[] }] }),
      (error) => error instanceof GateError && error.code === "gate_registration_invalid",
    );
    // Reads alone need no store.
    const readOnly = new Gate({ catalogs: [setup.reads] });
    const [envelope] = await readOnly.run([
      { id: "r", name: "load_record", arguments: { key: "k" } },
    ], { runId: "run" });
    assert.deepEqual(envelope.structured, { found: false });
  });
});

Deno.test("gate admission: any failure rejects the whole batch before anything is sent", async () => {
  await withSetup(async (setup) => {
    const denyKeyX = writeBinding({
      scope: (_state: unknown, args: { key?: unknown }) => args.key === "x" ? "no" : undefined,
    });
    const scoped = await discoverWriteTools(setup.server.client, "records", {
      write_record: denyKeyX,
    }, { monitor: setup.server.monitor });
    const gate = new Gate({
      catalogs: [setup.reads, scoped],
      store: setup.store,
      allowNonDurableStoreForTests: true,
      approve: () => true,
    });
    const read = { id: "r1", name: "load_record", arguments: { key: "a" } };
    const cases: [object, string][] = [
      [{ id: "w", name: "nope", arguments: {} }, "unknown_tool"],
      [{ id: "w", name: "save_record", arguments: { key: "a" } }, "mcp_invalid_arguments"],
      [
        { id: "w", name: "save_record", arguments: { key: "k".repeat(70_000), value: "v" } },
        "mcp_invalid_arguments",
      ],
      [save("w", "x"), "mcp_scope_denied"],
      [{ ...save("r1", "b") }, "gate_invalid_call_id"],
    ];
    for (const [bad, code] of cases) {
      const envelopes = await gate.run([read, save("w0", "fine"), bad as never], { runId: "adm" });
      assert.equal(envelopes.length, 3);
      assert.equal(envelopes[2].errorCode, code);
      assert.equal(envelopes[0].errorCode, "batch_rejected");
      assert.equal(envelopes[1].errorCode, "batch_rejected");
      assert.equal(envelopes[1].effect, "not_started");
      assert.equal(envelopes[0].effect, undefined, "reads carry no effect");
    }
    assert.equal(setup.server.received.size, 0, "nothing reached the server");
    assert.equal((await setup.store.list()).length, 0, "no approval was prepared");
  });
});

Deno.test("gate: read tools dispatch without any approval", async () => {
  await withSetup(async (setup) => {
    setup.server.records.set("k", "stored");
    const gate = gateOf(setup);
    const [envelope] = await gate.run([
      { id: "r", name: "load_record", arguments: { key: "k" } },
    ], { runId: "reads" });
    assert.deepEqual(envelope, {
      id: "r",
      text: ["ok"],
      structured: { found: true, value: "stored" },
    });
    assert.equal(setup.server.received.get("read_record"), 1);
    assert.equal((await setup.store.list()).length, 0);
  });
});

Deno.test("gate inline callback: only exactly true runs the call; anything else is a recorded denial", async () => {
  await withSetup(async (setup) => {
    const verdicts: [string, () => unknown][] = [
      ["false", () => false],
      ["string", () => "true"],
      ["one", () => 1],
      ["object", () => ({ approved: true })],
      ["undefined", () => undefined],
      ["promise-false", () => Promise.resolve(false)],
      ["throws", () => {
        throw new Error("boom");
      }],
    ];
    for (const [name, verdict] of verdicts) {
      const gate = gateOf(setup, { approve: verdict });
      const [envelope] = await gate.run([save("c", `k-${name}`)], { runId: `deny-${name}` });
      assert.equal(envelope.errorCode, "approval_denied", name);
      assert.equal(envelope.effect, "not_started");
      const record = await setup.store.get(envelope.approvalId!);
      assert.equal(record?.state, "denied");
      assert.equal(record?.decision?.by, "inline-callback");
    }
    assert.equal(writesReceived(setup.server), 0, "no denied call reached the server");

    const seen: unknown[] = [];
    const gate = gateOf(setup, {
      approve: (request) => {
        seen.push(request);
        return Promise.resolve(true);
      },
    });
    const [envelope] = await gate.run([save("c", "k-ok")], { runId: "approve-true" });
    assert.equal(envelope.effect, "committed");
    assert.equal(envelope.errorCode, undefined);
    assert.deepEqual(envelope.structured, { written: true, key: "k-ok", path: "k-ok" });
    assert.match(envelope.receipt!.resultDigest, /^sha256:/);
    assert.deepEqual(seen, [{
      server: "records",
      tool: "save_record",
      remoteName: "write_record",
      arguments: { key: "k-ok", value: SYNTHETIC_VALUE },
      effect: "write",
      approvalId: envelope.approvalId,
    }]);
    const record = await setup.store.get(envelope.approvalId!);
    assert.equal(record?.state, "committed");
    assert.equal(record?.decision?.by, "inline-callback");
    assert.deepEqual(record?.receipt, envelope.receipt);
    assert.equal(writesReceived(setup.server), 1);
  });
});

Deno.test("gate deferred: one call id in a run is one approval and at most one dispatch", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const first = await gate.run([save("call-1", "k1")], { runId: "run-A" });
    const second = await gate.run([save("call-1", "k1")], { runId: "run-A" });
    assert.equal(first[0].errorCode, "approval_pending");
    assert.equal(second[0].errorCode, "approval_pending");
    assert.equal(first[0].approvalId, second[0].approvalId);
    assert.equal((await setup.store.list()).length, 1);
    // Another run with the same call id is another call.
    const other = await gate.run([save("call-1", "k1")], { runId: "run-B" });
    assert.notEqual(other[0].approvalId, first[0].approvalId);

    const id = first[0].approvalId!;
    assert.equal((await gate.resume(id)).errorCode, "approval_pending");
    await setup.store.approve(id, { by: "alice" });
    const done = await gate.resume(id);
    assert.equal(done.effect, "committed");
    assert.equal(done.id, "call-1");
    assert.equal(writesReceived(setup.server), 1);

    const replays: GateEnvelope[] = [
      await gate.resume(id),
      (await gate.run([save("call-1", "k1")], { runId: "run-A" }))[0],
    ];
    for (const replay of replays) {
      assert.equal(replay.errorCode, "approval_already_claimed");
      assert.equal(replay.effect, "committed");
      assert.equal(replay.approvalId, id);
    }
    assert.equal(writesReceived(setup.server), 1, "never dispatched twice");
  });
});

Deno.test("gate outcomes: sent and failed is unknown; rejected before sending is not_started", async () => {
  for (const mode of ["is-error", "jsonrpc-error", "hang"] as const) {
    await withSetup(async (setup) => {
      const gate = gateOf(setup, { approve: () => true });
      const [envelope] = await gate.run([save("c", "k")], { runId: mode });
      assert.equal(envelope.effect, "unknown", mode);
      assert.equal(writesReceived(setup.server), 1);
      const record = await setup.store.get(envelope.approvalId!);
      assert.equal(record?.state, "unknown");
      assert.equal(record?.outcomeReason, envelope.errorCode);
    }, { mode, limits: { timeoutMs: 300 } });
  }
  // A list change between approval and claim: the re-check at claim refuses, nothing is sent.
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const [pending] = await gate.run([save("c", "k")], { runId: "stale" });
    await setup.store.approve(pending.approvalId!, { by: "alice" });
    await setup.server.announceChange();
    for (let i = 0; i < 50 && setup.server.monitor.generation === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const envelope = await gate.resume(pending.approvalId!);
    assert.equal(envelope.errorCode, "mcp_catalog_stale");
    assert.equal(envelope.effect, "not_started");
    assert.equal((await setup.store.get(pending.approvalId!))?.state, "not_started");
    assert.equal(writesReceived(setup.server), 0);
  });
});

Deno.test("gate outcomes: a catalog change while a write is in flight records unknown, even with a valid reply", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup, { approve: () => true });
    const [envelope] = await gate.run([save("c", "k")], { runId: "changed-in-flight" });
    assert.equal(writesReceived(setup.server), 1);
    assert.equal(setup.server.records.get("k"), SYNTHETIC_VALUE, "the server did write");
    assert.equal(envelope.effect, "unknown");
    assert.equal(envelope.errorCode, "mcp_catalog_stale");
    const record = await setup.store.get(envelope.approvalId!);
    assert.equal(record?.state, "unknown");
    assert.equal(record?.outcomeReason, "mcp_catalog_stale");
    assert.equal(record?.receipt, undefined);
  }, { mode: "change-then-success" });
});

Deno.test("gate: a memory store without the test option refuses writes and sends nothing", async () => {
  await withSetup(async (setup) => {
    const gate = new Gate({
      catalogs: [setup.reads, setup.writes],
      store: setup.store,
      approve: () => true,
    });
    const [write, read] = await gate.run([
      save("w", "k"),
      { id: "r", name: "load_record", arguments: { key: "k" } },
    ], { runId: "nondurable" });
    assert.equal(write.errorCode, "approval_store_not_durable");
    assert.equal(write.effect, "not_started");
    assert.equal(read.errorCode, undefined, "reads still run");
    assert.equal(writesReceived(setup.server), 0);
    assert.equal((await setup.store.list()).length, 0);
  });
});

Deno.test("gate: a failing store is approval_store_error; nothing is sent before a durable claim", async () => {
  // Before the approval exists: a closed store refuses prepare, and the server hears nothing.
  await withSetup(async (setup) => {
    await setup.store.close();
    const [envelope] = await gateOf(setup, { approve: () => true }).run([save("c", "k")], {
      runId: "closed",
    });
    assert.equal(envelope.errorCode, "approval_store_error");
    assert.equal(envelope.effect, "not_started");
    assert.equal(writesReceived(setup.server), 0);
  });
  // The approver said yes, and the commit of the approval with its claim fails: nothing is
  // recorded, nothing sent, and the envelope names no approval.
  await withSetup(async (setup) => {
    setup.store.prepareClaimed = () => Promise.reject(new Error("disk full"));
    const [envelope] = await gateOf(setup, { approve: () => true }).run([save("c", "k")], {
      runId: "commit-fails",
    });
    assert.equal(envelope.errorCode, "approval_store_error");
    assert.equal(envelope.effect, "not_started");
    assert.equal(envelope.approvalId, undefined);
    assert.equal((await setup.store.list()).length, 0);
    assert.equal(writesReceived(setup.server), 0);
  });
  // After the send: the outcome cannot be recorded. The envelope says what this process saw,
  // the claim stays, and recover() settles it as unknown without sending it again.
  await withSetup(async (setup) => {
    let failures = 0;
    const store = setup.store;
    const record = store.recordOutcome.bind(store);
    store.recordOutcome = (id, outcome) => {
      if (failures++ === 0) return Promise.reject(new Error("disk full"));
      return record(id, outcome);
    };
    const gate = gateOf(setup, { approve: () => true });
    const [envelope] = await gate.run([save("c", "k")], { runId: "record-fails" });
    assert.equal(envelope.errorCode, "approval_store_error");
    assert.equal(envelope.effect, "committed", "the reply was valid");
    assert.equal(writesReceived(setup.server), 1);
    assert.equal((await store.get(envelope.approvalId!))?.state, "claimed");
    assert.deepEqual(await gate.recover(), [envelope.approvalId]);
    assert.equal((await store.get(envelope.approvalId!))?.state, "unknown");
    const [again] = await gate.run([save("c", "k")], { runId: "record-fails" });
    assert.equal(again.errorCode, "approval_already_claimed");
    assert.equal(again.effect, "unknown");
    assert.equal(writesReceived(setup.server), 1, "never sent twice");
  });
});

Deno.test("gate recover: a claim without an outcome becomes unknown and is never dispatched", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const [pending] = await gate.run([save("c", "k")], { runId: "crash" });
    const id = pending.approvalId!;
    await setup.store.approve(id, { by: "alice" });
    const record = (await setup.store.get(id))!;
    // What a crashed process leaves behind: the claim, and nothing after it.
    const claim = await setup.store.claim(id, { ...record });
    assert.equal(claim.ok, true);
    assert.deepEqual(await gate.recover({ claimedBefore: record.createdAt - 1 }), []);
    assert.deepEqual(await gate.recover(), [id]);
    assert.equal((await setup.store.get(id))?.state, "unknown");
    const again = await gate.resume(id);
    assert.equal(again.errorCode, "approval_already_claimed");
    assert.equal(again.effect, "unknown");
    assert.equal(writesReceived(setup.server), 0);
  });
});

Deno.test("gate: resume of an unknown id and a run without a run id", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const missing = await gate.resume("no-such-approval");
    assert.equal(missing.errorCode, "approval_not_found");
    assert.equal(missing.effect, "not_started");
    await assert.rejects(
      gate.run([save("c", "k")], { runId: "" }),
      (error) => error instanceof GateError && error.code === "gate_options_invalid",
    );
    assert.equal(writesReceived(setup.server), 0);
  });
});

Deno.test("gate: the scope is asked again at claim; a denial then is recorded not_started", async () => {
  await withSetup(async (setup) => {
    let allow = true;
    const flipping = await discoverWriteTools(setup.server.client, "records", {
      write_record: writeBinding({ scope: () => allow ? undefined : "revoked by host" }),
    }, { monitor: setup.server.monitor });
    const gate = new Gate({
      catalogs: [flipping],
      store: setup.store,
      allowNonDurableStoreForTests: true,
    });
    const [pending] = await gate.run([save("c", "k")], { runId: "scope-later" });
    assert.equal(pending.errorCode, "approval_pending");
    await setup.store.approve(pending.approvalId!, { by: "alice" });
    allow = false;
    const envelope = await gate.resume(pending.approvalId!);
    assert.equal(envelope.errorCode, "mcp_scope_denied");
    assert.equal(envelope.effect, "not_started");
    const record = await setup.store.get(pending.approvalId!);
    assert.equal(record?.state, "not_started");
    assert.equal(record?.outcomeReason, "mcp_scope_denied");
    assert.equal(writesReceived(setup.server), 0);
  });
});

Deno.test("gate: a pending call met again with other arguments is a conflict, not a new approval", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup, { approve: undefined });
    const [first] = await gate.run([save("c", "k1")], { runId: "conflict" });
    const [second] = await gate.run([save("c", "k2")], { runId: "conflict" });
    assert.equal(second.errorCode, "approval_conflict");
    assert.equal(second.approvalId, first.approvalId);
    assert.equal((await setup.store.list()).length, 1);
    assert.equal((await setup.store.get(first.approvalId!))?.state, "pending");
    assert.equal(writesReceived(setup.server), 0);
  });
});

Deno.test("gate inline: a new call is decided before it is recorded, then recorded approved and claimed in one step", async () => {
  await withSetup(async (setup) => {
    const seen: { inStore: unknown; count: number }[] = [];
    const gate = gateOf(setup, {
      approve: async ({ approvalId }) => {
        seen.push({
          inStore: await setup.store.get(approvalId),
          count: (await setup.store.list()).length,
        });
        return true;
      },
    });
    const [envelope] = await gate.run([save("c", "k-new")], { runId: "decide-first" });
    assert.equal(envelope.effect, "committed");
    assert.deepEqual(seen, [{ inStore: undefined, count: 0 }], "nothing recorded while deciding");
    const events = await setup.store.events(envelope.approvalId!);
    assert.deepEqual(events.map((e) => [e.from, e.to, e.by ?? null]), [
      [null, "pending", null],
      ["pending", "approved", "inline-callback"],
      ["approved", "claimed", null],
      ["claimed", "committed", null],
    ]);
    assert.equal(writesReceived(setup.server), 1);
    // The same run and call again: settled from the record, the approver is not asked.
    const [again] = await gate.run([save("c", "k-new")], { runId: "decide-first" });
    assert.equal(again.errorCode, "approval_already_claimed");
    assert.equal(again.effect, "committed");
    assert.equal(seen.length, 1);
    assert.equal(writesReceived(setup.server), 1);
  });
});

Deno.test("gate inline: a caller that stops waiting leaves a pending approval; the same call is asked again and runs once", async () => {
  await withSetup(async (setup) => {
    const caller = new AbortController();
    const undecided = gateOf(setup, {
      approve: () => {
        setTimeout(() => caller.abort(), 0);
        return new Promise(() => {});
      },
    });
    const [stopped] = await undecided.run([save("c", "k-wait")], {
      runId: "stopped",
      signal: caller.signal,
    });
    assert.equal(stopped.errorCode, "mcp_aborted");
    assert.equal(stopped.effect, "not_started");
    const pending = await setup.store.get(stopped.approvalId!);
    assert.equal(pending?.state, "pending", "the undecided call is recorded pending");
    assert.equal(writesReceived(setup.server), 0);

    const asked: string[] = [];
    const decided = gateOf(setup, {
      approve: ({ approvalId }) => {
        asked.push(approvalId);
        return true;
      },
    });
    const [envelope] = await decided.run([save("c", "k-wait")], { runId: "stopped" });
    assert.equal(envelope.effect, "committed");
    assert.equal(envelope.approvalId, stopped.approvalId);
    assert.deepEqual(asked, [stopped.approvalId]);
    assert.equal(writesReceived(setup.server), 1);
  });
});

Deno.test("gate inline: an approver slower than the TTL is approval_expired, recorded expired, nothing sent", async () => {
  await withSetup(async (setup) => {
    let clock = 1_000_000;
    const gate = gateOf(setup, {
      approvalTtlMs: 60_000,
      now: () => clock,
      approve: () => {
        clock += 60_000;
        return true;
      },
    });
    const [envelope] = await gate.run([save("c", "k-slow")], { runId: "slow" });
    assert.equal(envelope.errorCode, "approval_expired");
    assert.equal(envelope.effect, "not_started");
    assert.equal((await setup.store.get(envelope.approvalId!))?.state, "expired");
    assert.equal(writesReceived(setup.server), 0);
  });
});
