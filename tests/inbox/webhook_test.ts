/**
 * Notifications: the gate's and `connect()`'s `onPending`, and `webhookNotifier` received by a
 * real loopback listener (signature verified, no arguments in it). A failing, throwing or
 * never-settling hook never changes the call's envelope.
 */
import assert from "node:assert/strict";
import {
  connect,
  discoverWriteTools,
  Gate,
  type GateEnvelope,
  type GateOptions,
  MemoryApprovalStore,
} from "../../mod.ts";
import {
  type ApprovalRecord,
  type PendingWebhookPayload,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  webhookNotifier,
} from "../../inbox.ts";
import { codeOf } from "../../src/codes.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";

const SECRET = "a shared secret for the test hook";
const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

interface Received {
  readonly body: string;
  readonly signature: string;
  readonly contentType: string | null;
}

/** A loopback webhook receiver answering `status`; `next()` waits for the next delivery. */
function startReceiver(status = 204) {
  const deliveries: Received[] = [];
  const waiting: ((received: Received) => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const received = {
      body: await request.text(),
      signature: request.headers.get(WEBHOOK_SIGNATURE_HEADER) ?? "",
      contentType: request.headers.get("content-type"),
    };
    const waiter = waiting.shift();
    if (waiter) waiter(received);
    else deliveries.push(received);
    return new Response(null, { status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    next: () =>
      deliveries.length > 0
        ? Promise.resolve(deliveries.shift()!)
        : new Promise<Received>((resolve) => waiting.push(resolve)),
    stop: () => server.shutdown(),
  };
}

async function withGate(
  extra: Partial<GateOptions>,
  body: (run: (key: string, value?: string) => Promise<GateEnvelope>) => Promise<void>,
): Promise<void> {
  const server = await startMemoryWriteServer();
  const store = new MemoryApprovalStore();
  try {
    const writes = await discoverWriteTools(server.client, "records", {
      write_record: writeBinding(),
    }, { monitor: server.monitor });
    const gate = new Gate({
      catalogs: [writes],
      store,
      allowNonDurableStoreForTests: true,
      ...extra,
    });
    let n = 0;
    await body(async (key, value = SYNTHETIC_VALUE) => {
      const [envelope] = await gate.run([{
        id: `call-${++n}`,
        name: "save_record",
        arguments: { key, value },
      }], { runId: "run-hooks" });
      return envelope;
    });
    assert.equal(server.received.get("write_record") ?? 0, 0, "nothing was sent");
  } finally {
    await store.close();
    await server.close();
  }
}

Deno.test("webhookNotifier: a pending write is POSTed signed, without its arguments", async () => {
  const receiver = startReceiver();
  try {
    const notify = webhookNotifier(receiver.url, {
      secret: SECRET,
      inboxUrl: "https://ops.example.com/inbox/",
      transport: LOOPBACK,
    });
    await withGate({ onPending: notify }, async (run) => {
      const envelope = await run("secret-key-7", SYNTHETIC_VALUE);
      assert.equal(envelope.errorCode, "approval_pending");
      const received = await receiver.next();
      assert.equal(received.contentType, "application/json");
      assert.ok(await verifyWebhookSignature(received.body, received.signature, SECRET));
      assert.equal(
        await verifyWebhookSignature(received.body, received.signature, "another secret!!!"),
        false,
      );
      assert.equal(
        await verifyWebhookSignature(received.body + " ", received.signature, SECRET),
        false,
        "a changed body fails",
      );
      const payload = JSON.parse(received.body) as PendingWebhookPayload;
      assert.deepEqual(Object.keys(payload).sort(), [
        "effect",
        "expiresAt",
        "id",
        "link",
        "server",
        "tool",
        "type",
      ]);
      assert.deepEqual(
        [payload.type, payload.id, payload.server, payload.tool, payload.effect],
        ["approval.pending", envelope.approvalId, "records", "save_record", "write"],
      );
      assert.equal(payload.link, `https://ops.example.com/inbox/approvals/${envelope.approvalId}`);
      assert.match(payload.expiresAt, /^\d{4}-\d\d-\d\dT/);
      assert.ok(!received.body.includes("secret-key-7"), "no argument value");
      assert.ok(!received.body.includes(SYNTHETIC_VALUE), "no argument value");
    });
  } finally {
    await receiver.stop();
  }
});

Deno.test("webhookNotifier: arguments only when the host opts in; old signatures are refused", async () => {
  const receiver = startReceiver();
  try {
    const notify = webhookNotifier(receiver.url, {
      secret: SECRET,
      includeArguments: true,
      transport: LOOPBACK,
    });
    await withGate({ onPending: notify }, async (run) => {
      await run("shown-key");
      const received = await receiver.next();
      const payload = JSON.parse(received.body) as PendingWebhookPayload;
      assert.deepEqual(payload.arguments, { key: "shown-key", value: SYNTHETIC_VALUE });
      assert.equal(payload.link, undefined);
      const later = () => Date.now() + 10 * 60 * 1000;
      assert.equal(
        await verifyWebhookSignature(received.body, received.signature, SECRET, { now: later }),
        false,
      );
    });
  } finally {
    await receiver.stop();
  }
  assert.throws(
    () => webhookNotifier("https://hooks.example.com/", { secret: "short" }),
    (error) => codeOf(error) === "inbox_options_invalid",
  );
});

Deno.test("onPending: a failing, throwing or never-settling hook never affects the call", async () => {
  const failing = startReceiver(500);
  const settled: Promise<unknown>[] = [];
  const toFailing = webhookNotifier(failing.url, { secret: SECRET, transport: LOOPBACK });
  // A closed port: the listener is stopped before the call.
  const closed = startReceiver();
  const closedUrl = closed.url;
  await closed.stop();
  const toClosed = webhookNotifier(closedUrl, { secret: SECRET, transport: LOOPBACK });
  const hooks: ((approval: ApprovalRecord) => unknown)[] = [
    () => {
      throw new Error("hook threw");
    },
    () => Promise.reject(new Error("hook rejected")),
    () => new Promise(() => {}),
    (approval) => {
      const sent = toFailing(approval);
      settled.push(sent.then(() => "ok", (error) => codeOf(error)));
      return sent;
    },
    (approval) => {
      const sent = toClosed(approval);
      settled.push(sent.then(() => "ok", (error) => codeOf(error)));
      return sent;
    },
  ];
  try {
    for (const hook of hooks) {
      const seen: string[] = [];
      await withGate({
        onPending: (approval) => {
          seen.push(approval.state);
          return hook(approval) as Promise<void>;
        },
      }, async (run) => {
        const envelope = await run("k1");
        assert.equal(envelope.errorCode, "approval_pending");
        assert.equal(envelope.effect, "not_started");
        assert.match(envelope.approvalId ?? "", /./);
      });
      assert.deepEqual(seen, ["pending"]);
    }
    const outcomes = await Promise.all(settled);
    assert.equal(outcomes[0], "inbox_webhook_failed");
    assert.match(String(outcomes[1]), /^transport_/);
  } finally {
    await failing.stop();
  }
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => new Gate({ catalogs: [], onPending: "yes" as any }),
    (error) => codeOf(error) === "gate_options_invalid",
  );
});

Deno.test("connect(): onPending is told of a deferred call, with the pending record", async () => {
  const server = await startHttpServer();
  const store = new MemoryApprovalStore();
  const receiver = startReceiver();
  const told: ApprovalRecord[] = [];
  const notify = webhookNotifier(receiver.url, { secret: SECRET, transport: LOOPBACK });
  const connection = await connect(server.url, {
    id: "docs",
    allow: ["echo"],
    store,
    allowNonDurableStoreForTests: true,
    transport: LOOPBACK,
    onPending: (approval) => {
      told.push(approval);
      return notify(approval);
    },
  });
  try {
    const pending = await connection.toolkit.call("docs__echo", { message: "later" });
    assert.equal(pending.errorCode, "approval_pending");
    const received = await receiver.next();
    assert.ok(await verifyWebhookSignature(received.body, received.signature, SECRET));
    assert.equal(JSON.parse(received.body).id, pending.approvalId);
    assert.ok(!received.body.includes("later"));
    assert.deepEqual(told.map((record) => [record.id, record.state]), [[
      pending.approvalId,
      "pending",
    ]]);
  } finally {
    await connection.close();
    await server.close();
    await receiver.stop();
    await store.close();
  }
});
