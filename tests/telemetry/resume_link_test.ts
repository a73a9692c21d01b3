/**
 * The cross-process link: a write prepared in this process (its span's W3C traceparent stored
 * with the approval in a libSQL file) and resumed by another process
 * (`fixtures/resume_host.ts`, its own gate, store connection and OpenTelemetry SDK): the resumed
 * span links to the span that prepared it, with the trace and span ids this process recorded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { type ResumeReport, tracedWriteGate } from "../../fixtures/resume_host.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";

Deno.test("telemetry: a write resumed in another process links to the span that prepared it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-link-" });
  const db = join(dir, "approvals.db");
  const store = await LibsqlApprovalStore.open(db);
  const server = await startMemoryWriteServer();
  const sdk = startOtelSdk();
  try {
    const gate = await tracedWriteGate(server, store, sdk.telemetry);
    const [pending] = await gate.run(
      [{ id: "w1", name: "save_record", arguments: { key: "k1", value: SYNTHETIC_VALUE } }],
      { runId: "run-1" },
    );
    assert.equal(pending.errorCode, "approval_pending");
    const [prepared] = sdk.spans();
    const { traceId, spanId } = prepared.spanContext();
    const record = await store.get(pending.approvalId!);
    assert.equal(record?.traceLink, `00-${traceId}-${spanId}-01`, "stored with the approval");
    await store.approve(pending.approvalId!, { by: "alice" });

    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../fixtures/resume_host.ts", import.meta.url).pathname,
        "--db",
        db,
        "--approval",
        pending.approvalId!,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
    const report = JSON.parse(new TextDecoder().decode(child.stdout).trim()) as ResumeReport;
    assert.equal(report.effect, "committed");
    const [resumed] = report.spans;
    assert.equal(resumed.name, "tools/call write_record");
    assert.equal(resumed.attributes["sluice.approval.id"], pending.approvalId);
    assert.deepEqual(resumed.links, [{
      traceId,
      spanId,
      attributes: { "sluice.link.kind": "approval_prepared" },
    }]);
    assert.notEqual(resumed.spanId, spanId, "a span of its own, in the other process");
  } finally {
    await sdk.shutdown();
    await server.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
