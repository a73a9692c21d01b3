/**
 * Operator metrics, read back through the real SDK: approvals pending by server and tool (and
 * how long the oldest has waited), `unknown` outcomes awaiting reconciliation (observable gauges
 * over a real store), and a connection's catalog turning stale or refusing a lock (counters).
 */
import assert from "node:assert/strict";
import {
  DataPointType,
  type GaugeMetricData,
  type SumMetricData,
} from "@opentelemetry/sdk-metrics";
import { connect, MemoryApprovalStore, observeApprovals, TELEMETRY_METRICS } from "../../mod.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { startOtelSdk } from "../../fixtures/otel_sdk.ts";

function gauge(metric: unknown): GaugeMetricData {
  const data = metric as GaugeMetricData | undefined;
  assert.equal(data?.dataPointType, DataPointType.GAUGE);
  return data!;
}

function sum(metric: unknown): SumMetricData {
  const data = metric as SumMetricData | undefined;
  assert.equal(data?.dataPointType, DataPointType.SUM);
  return data!;
}

/** A gauge's points as `[server, remote tool, local tool, value]`, sorted. */
function points(metric: unknown) {
  return gauge(metric).dataPoints.map((point) => [
    point.attributes["sluice.server.id"],
    point.attributes["gen_ai.tool.name"],
    point.attributes["sluice.tool.local_name"],
    point.value,
  ]).sort();
}

Deno.test("telemetry: pending and unknown approvals by server and tool, read from the store at collection", async () => {
  const sdk = startOtelSdk();
  const store = new MemoryApprovalStore({ now: () => 1_000_000 });
  let reads = 0;
  const counted = {
    list: (filter: { state: "pending" | "unknown" }) => {
      reads++;
      return store.list(filter);
    },
  };
  const stop = observeApprovals(counted, sdk.telemetry, () => 1_000_000 + 90_000);
  try {
    const docs = await makeRequest(1_000_000);
    await store.prepare(docs);
    await store.prepare({ ...docs, runId: "r", callId: "c" });
    await store.prepare({
      ...docs,
      serverId: "mail",
      toolName: "send",
      remoteToolName: "mail.send",
    });
    const { id } = await store.prepare({ ...docs, runId: "r", callId: "lost" });
    await store.approve(id, { by: "alice" });
    await store.claim(id, expectationFor(docs));
    await store.recordOutcome(id, { outcome: "unknown", reason: "mcp_timeout" });

    const metrics = await sdk.metrics();
    assert.deepEqual(points(metrics.get(TELEMETRY_METRICS.approvalsPending)), [
      ["docs", "documents.update", "update_doc", 2],
      ["mail", "mail.send", "send", 1],
    ]);
    assert.deepEqual(points(metrics.get(TELEMETRY_METRICS.approvalsPendingAge)), [
      ["docs", "documents.update", "update_doc", 90],
      ["mail", "mail.send", "send", 90],
    ]);
    assert.equal(metrics.get(TELEMETRY_METRICS.approvalsPendingAge)?.descriptor.unit, "s");
    assert.deepEqual(points(metrics.get(TELEMETRY_METRICS.approvalsUnknown)), [
      ["docs", "documents.update", "update_doc", 1],
    ]);
    // A person decides: the next collection sees it.
    const [first] = await store.list({ state: "pending" });
    await store.deny(first.id, { by: "bob" });
    const later = await sdk.metrics();
    assert.deepEqual(points(later.get(TELEMETRY_METRICS.approvalsPending))[0][3], 1);
    // Each collection reads the store once per state, whatever the number of gauges.
    assert.equal(reads, 4);
    stop();
    await sdk.metrics();
    assert.equal(reads, 4, "stopped: the store is not read again");
  } finally {
    stop();
    await store.close();
    await sdk.shutdown();
  }
});

Deno.test("telemetry: connect() counts a catalog turning stale and a tool refused by the lock; the lock's verdict on a call", async () => {
  const sdk = startOtelSdk();
  const server = await startHttpServer();
  const options = {
    id: "docs",
    allow: ["echo", "add"],
    preApproved: ["echo", "add"],
    changeDetection: true,
    transport: { dangerouslyAllowLoopback: true },
    telemetry: sdk.telemetry,
  };
  const first = await connect(server.url, options);
  const lock = await first.lock();
  try {
    server.changeTools();
    const deadline = Date.now() + 5_000;
    let stale: SumMetricData | undefined;
    while (Date.now() < deadline) {
      const found = (await sdk.metrics()).get(TELEMETRY_METRICS.catalogStale);
      if (found !== undefined && sum(found).dataPoints.length > 0) {
        stale = sum(found);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(stale, "the change was counted");
    assert.deepEqual(stale.dataPoints.map((point) => [point.attributes, point.value]), [[{
      "sluice.server.id": "docs",
      "sluice.catalog.stale_reason": "tools_list_changed",
    }, 1]]);
  } finally {
    await first.close();
  }
  const second = await connect(server.url, { ...options, lock });
  try {
    assert.deepEqual(second.report().skipped.map((tool) => tool.code), ["catalog_lock_mismatch"]);
    // The tool that matched the lock runs, and its span says so.
    assert.equal((await second.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode, undefined);
    const add = sdk.spans().find((span) => span.name === "tools/call add");
    assert.equal(add?.attributes["sluice.lock.verdict"], "matched");
    const mismatches = sum((await sdk.metrics()).get(TELEMETRY_METRICS.lockMismatches));
    assert.deepEqual(mismatches.dataPoints.map((point) => [point.attributes, point.value]), [[{
      "sluice.server.id": "docs",
      "gen_ai.tool.name": "echo",
    }, 1]]);
  } finally {
    await second.close();
    await sdk.shutdown();
    await server.close();
  }
});
