/**
 * One call path: the same scenarios through a read-only `Gate`, a `Gate` with writes and
 * `connect()`'s toolkit, against one real v2 SDK server on loopback, give identical envelopes.
 * The approval scenarios run through the gate with writes and the toolkit.
 */
import assert from "node:assert/strict";
import {
  connect,
  type Connection,
  discoverWriteTools,
  type DiscoveryResult,
  Gate,
  type GateEnvelope,
  type InlineApprover,
  MemoryApprovalStore,
  type ToolEnvelope,
  type WriteToolBinding,
} from "../../mod.ts";
import { APPROVAL_TEXT } from "../../src/gate/approval_text.ts";
import { bind, discover } from "../support/read_host.ts";
import { gatedRead } from "../support/read_gate.ts";
import { type FixtureSession, openSession } from "../support/sessions.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true } as const;
const TIMEOUT_MS = 300;

/** The write binding connect() makes for a tool that needs approval, decided by `decidedBy`. */
function confirmBinding(decidedBy: "inline" | "store"): WriteToolBinding {
  return {
    localName: "docs__write_like",
    policy: { mode: "confirm", title: "docs.write_like", effect: "destructive", decidedBy },
    effect: "destructive",
    scope: () => undefined,
    bindingId: "docs.write_like",
    bindingRevision: "connect/v1",
    scopeId: "connect:docs",
    scopeRevision: "connect/v1",
  };
}

/** An envelope with the values that differ per approval (ids, clock) replaced. */
function comparable(envelope: ToolEnvelope<string> | GateEnvelope): Record<string, unknown> {
  const { id: _id, ...rest } = envelope as GateEnvelope;
  return {
    ...rest,
    ...(rest.approvalId !== undefined ? { approvalId: "<approval>" } : {}),
    ...(rest.receipt !== undefined ? { receipt: { ...rest.receipt, at: 0 } } : {}),
  };
}

interface Paths {
  readonly session: FixtureSession;
  readonly reads: DiscoveryResult;
  readonly gate: (
    approve: InlineApprover | undefined,
    store?: MemoryApprovalStore,
  ) => Promise<Gate>;
  readonly toolkit: (
    options: { approve?: () => unknown; store?: MemoryApprovalStore },
  ) => Promise<Connection>;
}

async function withPaths(body: (paths: Paths) => Promise<void>): Promise<void> {
  const session = await openSession("http-2026");
  const opened: Connection[] = [];
  try {
    const reads = await discover(session, {
      echo: bind("docs__echo"),
      slow: bind("docs__slow"),
    }, { limits: { timeoutMs: TIMEOUT_MS } });
    const paths: Paths = {
      session,
      reads,
      gate: async (approve, store) => {
        const writes = await discoverWriteTools(session.client, "docs", {
          write_like: confirmBinding(approve ? "inline" : "store"),
        }, { monitor: reads.monitor, limits: { timeoutMs: TIMEOUT_MS } });
        return new Gate({
          catalogs: [reads, writes],
          ...(approve ? { approve } : {}),
          ...(store ? { store } : {}),
          allowNonDurableStoreForTests: true,
        });
      },
      toolkit: async (options) => {
        const connection = await connect(session.url!, {
          id: "docs",
          allow: ["echo", "slow", "write_like"],
          preApproved: ["echo", "slow"],
          transport: LOOPBACK,
          limits: { timeoutMs: TIMEOUT_MS },
          allowNonDurableStoreForTests: true,
          ...(options.approve ? { approve: options.approve } : {}),
          ...(options.store ? { store: options.store } : {}),
        });
        opened.push(connection);
        return connection;
      },
    };
    await body(paths);
  } finally {
    for (const connection of opened) await connection.close();
    await session.close();
  }
}

Deno.test("one call path: reads give identical envelopes through a read-only gate, the gate and the toolkit", async () => {
  await withPaths(async ({ reads, gate: makeGate, toolkit: makeToolkit }) => {
    const gate = await makeGate(() => true);
    const { toolkit } = await makeToolkit({ approve: () => true });
    const aborted = new AbortController();
    aborted.abort();
    const scenarios: [string, string, unknown, AbortSignal | undefined, Record<string, unknown>][] =
      [
        ["result", "docs__echo", { message: "same" }, undefined, {
          text: ["same"],
          structured: null,
        }],
        ["invalid arguments", "docs__echo", { message: 7 }, undefined, {
          text: [],
          structured: null,
          errorCode: "mcp_invalid_arguments",
          problems: [{ path: "/message", keyword: "type" }],
        }],
        ["abort", "docs__echo", { message: "x" }, aborted.signal, {
          text: [],
          structured: null,
          errorCode: "mcp_aborted",
        }],
        ["timeout", "docs__slow", { ms: 5_000 }, undefined, {
          text: [],
          structured: null,
          errorCode: "mcp_timeout",
        }],
      ];
    for (const [label, name, args, signal, expected] of scenarios) {
      const options = signal ? { signal } : {};
      const viaReadGate = await gatedRead(reads, name).call(args, options);
      const [viaGate] = await gate.run([{ id: "c1", name, arguments: args }], {
        runId: `run-${label}`,
        ...options,
      });
      const viaToolkit = await toolkit.call(name, args, options);
      assert.deepEqual(comparable(viaReadGate), expected, `${label}: read-only gate`);
      assert.deepEqual(comparable(viaGate), expected, `${label}: gate`);
      assert.deepEqual(comparable(viaToolkit), expected, `${label}: toolkit`);
    }
  });
});

Deno.test("one call path: approvals give identical envelopes through the gate and the toolkit", async () => {
  await withPaths(async ({ session, gate: makeGate, toolkit: makeToolkit }) => {
    const sent = async () =>
      (await session.log()).filter((entry) =>
        entry.method === "tools/call" && entry.toolName === "write_like"
      ).length;
    // Inline approve, then inline deny.
    for (const [verdict, expected] of [[true, "committed"], [false, "approval_denied"]] as const) {
      const gate = await makeGate(() => verdict);
      const { toolkit } = await makeToolkit({ approve: () => verdict });
      const [viaGate] = await gate.run([{ id: "w", name: "docs__write_like", arguments: {} }], {
        runId: `inline-${verdict}`,
      });
      const viaToolkit = await toolkit.call("docs__write_like", {});
      assert.deepEqual(comparable(viaToolkit), comparable(viaGate), String(verdict));
      if (expected === "committed") {
        assert.equal(viaGate.effect, "committed");
        assert.match(viaGate.receipt!.resultDigest, /^sha256:/);
      } else {
        assert.deepEqual(comparable(viaGate), {
          text: [APPROVAL_TEXT.denied],
          structured: null,
          errorCode: "approval_denied",
          effect: "not_started",
          approvalId: "<approval>",
        });
      }
    }
    assert.equal(await sent(), 2, "each approved call ran once, no denied one ran");
    // Deferred to the store, then resumed once a person approved.
    const store = new MemoryApprovalStore();
    const gate = await makeGate(undefined, store);
    const { toolkit } = await makeToolkit({ store });
    const [pendingGate] = await gate.run([{ id: "d", name: "docs__write_like", arguments: {} }], {
      runId: "deferred",
    });
    const pendingToolkit = await toolkit.call("docs__write_like", {});
    assert.deepEqual(comparable(pendingToolkit), comparable(pendingGate));
    assert.deepEqual(comparable(pendingGate), {
      text: [APPROVAL_TEXT.pending],
      structured: null,
      errorCode: "approval_pending",
      effect: "not_started",
      approvalId: "<approval>",
    });
    for (const envelope of [pendingGate, pendingToolkit]) {
      await store.approve(envelope.approvalId!, { by: "alice" });
    }
    const resumedGate = await gate.resume(pendingGate.approvalId!);
    const resumedToolkit = await toolkit.resume(pendingToolkit.approvalId!);
    assert.equal(resumedGate.effect, "committed");
    assert.deepEqual(comparable(resumedToolkit), comparable({ ...resumedGate, id: undefined }));
    assert.equal(await sent(), 4);
  });
});

Deno.test("a destructive-hinted tool decided inline: confirm in its snapshot, the decision in the store", async () => {
  await withPaths(async ({ toolkit: makeToolkit }) => {
    const store = new MemoryApprovalStore();
    const connection = await makeToolkit({ approve: () => true, store });
    const [catalogs] = connection.catalogs();
    assert.equal(catalogs.read?.entries.some((entry) => entry.remoteName === "write_like"), false);
    const entry = catalogs.write!.entries.find((item) => item.remoteName === "write_like")!;
    assert.deepEqual(entry.policy, {
      mode: "confirm",
      title: "docs.write_like",
      effect: "destructive",
      decidedBy: "inline",
    });
    const envelope = await connection.toolkit.call("docs__write_like", {});
    assert.equal(envelope.effect, "committed");
    const record = await store.get(envelope.approvalId!);
    assert.equal(record?.state, "committed");
    assert.equal(record?.catalogDigest, catalogs.write!.revisionDigest);
    const events = await store.events(envelope.approvalId!);
    assert.deepEqual(events.map((event) => [event.to, event.by ?? null]), [
      ["pending", null],
      ["approved", "inline-callback"],
      ["claimed", null],
      ["committed", null],
    ]);
  });
});
