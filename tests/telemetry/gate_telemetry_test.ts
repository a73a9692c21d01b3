/**
 * The gate's OpenTelemetry output, read back through the real SDK's in-memory exporters: span
 * names, kinds, attributes and events, and the metrics, against the MCP semantic conventions,
 * for a read, a write through an approval (pending, approved by a person, resumed by another
 * gate), failures (an `isError` result, sluice refusals), the host's own `execute_tool` span,
 * and nothing at all when telemetry is off.
 */
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  createGrant,
  DURATION_BUCKETS,
  Gate,
  type GateTelemetry,
  grantScopeOf,
  TELEMETRY_METRICS,
} from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import type { MemoryWriteMode } from "../../fixtures/write_server_memory.ts";
import { withWriteCatalogs, type WriteCatalogs } from "../support/write_catalogs.ts";
import { histogram, type OtelSdk, startOtelSdk } from "../../fixtures/otel_sdk.ts";

interface Setup extends WriteCatalogs {
  sdk: OtelSdk;
}

const ADDRESS = { records: { address: "records.example.com", port: 8443 } };

/** The gate suites' setup plus the SDK, with `server.address` and `port` for the server. */
function withSetup(
  body: (setup: Setup) => Promise<void>,
  options: { mode?: MemoryWriteMode; telemetry?: Partial<GateTelemetry> } = {},
): Promise<void> {
  return withWriteCatalogs(async (catalogs) => {
    const sdk = startOtelSdk({ servers: ADDRESS, ...options.telemetry });
    try {
      await body({ ...catalogs, sdk });
    } finally {
      await sdk.shutdown();
    }
  }, options.mode ? { mode: options.mode } : {});
}

function gateOf(setup: Setup, extra: Partial<ConstructorParameters<typeof Gate>[0]> = {}): Gate {
  return new Gate({
    catalogs: [setup.reads, setup.writes],
    store: setup.store,
    allowNonDurableStoreForTests: true,
    telemetry: setup.sdk.telemetry,
    ...extra,
  });
}

const save = (id: string, key: string, value: unknown = SYNTHETIC_VALUE) => ({
  id,
  name: "save_record",
  arguments: { key, value },
});

/** The conventions' attributes every span of a gate call carries for the write fixture. */
function common(setup: Setup, tool: string) {
  return {
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": tool,
    "gen_ai.operation.name": "execute_tool",
    "mcp.protocol.version": setup.server.monitor.protocolVersion,
    "server.address": "records.example.com",
    "server.port": 8443,
    "sluice.server.id": "records",
  };
}

/** A span's events as `[name, attributes]`. */
const events = (span: ReadableSpan) =>
  span.events.map((event) => [event.name, event.attributes] as const);

Deno.test("telemetry: a read is one CLIENT span named by the conventions, and one duration", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const [envelope] = await gate.run(
      [{ id: "c1", name: "load_record", arguments: { key: "k" } }],
      { runId: "run-1" },
    );
    assert.equal(envelope.errorCode, undefined);
    const spans = setup.sdk.spans();
    assert.equal(spans.length, 1);
    const [span] = spans;
    assert.equal(span.name, "tools/call read_record");
    assert.equal(span.kind, SpanKind.CLIENT);
    assert.equal(span.status.code, SpanStatusCode.UNSET);
    assert.deepEqual(span.attributes, {
      ...common(setup, "read_record"),
      "sluice.tool.local_name": "load_record",
      "sluice.snapshot.digest": setup.reads.snapshot.revisionDigest,
      "sluice.outcome": "ok",
    });
    assert.deepEqual(span.events, []);
    assert.match(String(setup.server.monitor.protocolVersion), /^20\d\d-\d\d-\d\d$/);

    const metrics = await setup.sdk.metrics();
    const duration = histogram(metrics.get(TELEMETRY_METRICS.operationDuration));
    assert.equal(duration.descriptor.name, "mcp.client.operation.duration");
    assert.equal(duration.descriptor.unit, "s");
    assert.equal(duration.dataPoints.length, 1);
    const [point] = duration.dataPoints;
    assert.deepEqual(point.value.buckets.boundaries, [...DURATION_BUCKETS]);
    assert.deepEqual(
      [...DURATION_BUCKETS],
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    );
    assert.equal(point.value.count, 1);
    assert.ok(point.value.sum! > 0 && point.value.sum! < 5, "seconds, not milliseconds");
    assert.deepEqual(point.attributes, common(setup, "read_record"));
  });
});

Deno.test("telemetry: a write pending, approved by a person, resumed by another gate", async () => {
  await withSetup(async (setup) => {
    const [pending] = await gateOf(setup).run([save("w1", "rec-1")], { runId: "run-1" });
    assert.equal(pending.errorCode, "approval_pending");
    const approvalId = pending.approvalId!;
    await setup.store.approve(approvalId, { by: "alice" });
    // Another gate over the same store: a restarted host.
    const resumed = await gateOf(setup).resume(approvalId);
    assert.equal(resumed.effect, "committed");

    const [first, second] = setup.sdk.spans();
    const write = {
      ...common(setup, "write_record"),
      "sluice.tool.local_name": "save_record",
      "sluice.write_catalog.digest": setup.writes.snapshot.revisionDigest,
      "sluice.binding.id": "records.save",
      "sluice.tool.effect": "write",
      "sluice.approval.id": approvalId,
    };
    assert.equal(first.name, "tools/call write_record");
    assert.equal(first.kind, SpanKind.CLIENT);
    // Waiting for a person is not a failure: no error.type, status unset.
    assert.equal(first.status.code, SpanStatusCode.UNSET);
    assert.deepEqual(first.attributes, {
      ...write,
      "sluice.outcome": "pending",
      "sluice.error_code": "approval_pending",
    });
    assert.deepEqual(events(first), [
      ["sluice.approval.pending", { "sluice.approval.id": approvalId }],
    ]);

    assert.equal(second.name, "tools/call write_record");
    assert.equal(second.status.code, SpanStatusCode.UNSET);
    assert.deepEqual(second.attributes, { ...write, "sluice.outcome": "committed" });
    assert.deepEqual(events(second), [
      ["sluice.approval.approved", {
        "sluice.approval.id": approvalId,
        "sluice.approval.decided_by": "alice",
      }],
      ["sluice.approval.claimed", { "sluice.approval.id": approvalId }],
      ["sluice.approval.committed", { "sluice.approval.id": approvalId }],
    ]);

    const metrics = await setup.sdk.metrics();
    const duration = histogram(metrics.get(TELEMETRY_METRICS.operationDuration));
    assert.equal(duration.dataPoints.length, 1, "neither call failed: one attribute set");
    assert.equal(duration.dataPoints[0].value.count, 2);
    const outcomes = metrics.get(TELEMETRY_METRICS.approvalOutcomes)!;
    assert.equal(outcomes.descriptor.unit, "{approval}");
    const counted = outcomes.dataPoints.map((point) => [
      point.attributes["sluice.approval.outcome"],
      point.value,
    ]).sort();
    assert.deepEqual(counted, [["approved", 1], ["committed", 1]]);
    const wait = histogram(metrics.get(TELEMETRY_METRICS.approvalWait));
    assert.equal(wait.dataPoints[0].value.count, 1);
    assert.equal(wait.dataPoints[0].attributes["sluice.approval.outcome"], "approved");
  });
});

Deno.test("telemetry: approved with edits: superseded by the person, then the edit runs", async () => {
  await withSetup(async (setup) => {
    const [pending] = await gateOf(setup).run([save("w1", "rec-1")], { runId: "run-1" });
    const original = pending.approvalId!;
    const { approval: edit } = await setup.store.approveWithEdits(original, {
      by: "bob",
      arguments: { key: "rec-2", value: SYNTHETIC_VALUE },
    });
    const resumed = await gateOf(setup).resume(original);
    assert.equal(resumed.effect, "committed");
    assert.ok(setup.server.records.has("rec-2"));
    const [, span] = setup.sdk.spans();
    assert.deepEqual(events(span), [
      ["sluice.approval.superseded", {
        "sluice.approval.id": original,
        "sluice.approval.decided_by": "bob",
      }],
      ["sluice.approval.approved", {
        "sluice.approval.id": edit.id,
        "sluice.approval.decided_by": "bob",
      }],
      ["sluice.approval.claimed", { "sluice.approval.id": edit.id }],
      ["sluice.approval.committed", { "sluice.approval.id": edit.id }],
    ]);
    // The wait is the original's, counted once: from the call to the person's edit.
    const metrics = await setup.sdk.metrics();
    const wait = histogram(metrics.get(TELEMETRY_METRICS.approvalWait)).dataPoints;
    assert.deepEqual(wait.map((point) => point.attributes["sluice.approval.outcome"]), [
      "superseded",
    ]);
    assert.equal(wait[0].value.count, 1);
  });
});

Deno.test("telemetry: a standing grant approves: decided by grant:<id>, then committed", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup);
    const [first] = await gate.run([save("w1", "rec-1")], { runId: "run-1" });
    const grant = await createGrant(setup.store, {
      ...grantScopeOf((await setup.store.get(first.approvalId!))!),
      runId: "run-1",
      maxUses: 1,
      by: "gina",
    });
    const [granted] = await gate.run([save("w2", "rec-2")], { runId: "run-1" });
    assert.equal(granted.effect, "committed");
    const [, span] = setup.sdk.spans();
    assert.deepEqual(
      events(span).map(([name, attributes]) => [name, attributes?.["sluice.approval.decided_by"]]),
      [
        ["sluice.approval.pending", undefined],
        ["sluice.approval.approved", `grant:${grant.id}`],
        ["sluice.approval.claimed", undefined],
        ["sluice.approval.committed", undefined],
      ],
    );
  });
});

Deno.test("telemetry: an inline approval and an isError result: tool_error, unknown, no remote text", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup, { approve: () => true });
    const [envelope] = await gate.run([save("w1", "rec-1")], { runId: "run-1" });
    assert.equal(envelope.errorCode, "mcp_tool_error");
    assert.equal(envelope.effect, "unknown");
    const [span] = setup.sdk.spans();
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.equal(span.status.message, undefined, "no remote text in the status");
    assert.equal(span.attributes["error.type"], "tool_error");
    assert.equal(span.attributes["sluice.error_code"], "mcp_tool_error");
    assert.equal(span.attributes["sluice.outcome"], "unknown");
    const id = envelope.approvalId!;
    assert.deepEqual(events(span), [
      ["sluice.approval.approved", {
        "sluice.approval.id": id,
        "sluice.approval.decided_by": "inline-callback",
      }],
      ["sluice.approval.claimed", { "sluice.approval.id": id }],
      ["sluice.approval.unknown", {
        "sluice.approval.id": id,
        "sluice.error_code": "mcp_tool_error",
      }],
    ]);
    const recorded = JSON.stringify([span.name, span.attributes, span.events, span.status]);
    assert.ok(!recorded.includes("failed"), "the server's text is not recorded");
    const metrics = await setup.sdk.metrics();
    const [point] = histogram(metrics.get(TELEMETRY_METRICS.operationDuration)).dataPoints;
    assert.equal(point.attributes["error.type"], "tool_error");
  }, { mode: "is-error" });
});

Deno.test("telemetry: sluice refusals name the code as error.type; nothing was sent", async () => {
  await withSetup(async (setup) => {
    const gate = gateOf(setup, { approve: () => false });
    const denied = await gate.run([save("w1", "rec-1")], { runId: "run-1" });
    assert.equal(denied[0].errorCode, "approval_denied");
    const refused = await gate.run([
      { id: "r1", name: "load_record", arguments: { key: 7 } },
      { id: "r2", name: "no_such_tool", arguments: {} },
    ], { runId: "run-1" });
    assert.deepEqual(refused.map((envelope) => envelope.errorCode), [
      "mcp_invalid_arguments",
      "unknown_tool",
    ]);
    assert.equal(setup.server.received.size, 0);
    const [deny, invalid, unknown] = setup.sdk.spans();
    assert.equal(deny.attributes["error.type"], "approval_denied");
    assert.deepEqual(events(deny).map(([name]) => name), [
      "sluice.approval.pending",
      "sluice.approval.denied",
    ]);
    assert.equal(
      deny.events[1].attributes?.["sluice.approval.decided_by"],
      "inline-callback",
    );
    assert.equal(invalid.name, "tools/call read_record");
    assert.equal(invalid.status.code, SpanStatusCode.ERROR);
    assert.equal(invalid.attributes["error.type"], "mcp_invalid_arguments");
    assert.equal(invalid.attributes["gen_ai.tool.call.arguments"], undefined);
    // A name the gate does not know: no tool name, only the method.
    assert.equal(unknown.name, "tools/call");
    assert.equal(unknown.attributes["gen_ai.tool.name"], undefined);
    assert.equal(unknown.attributes["error.type"], "unknown_tool");
    assert.equal(unknown.kind, SpanKind.CLIENT);
  });
});

Deno.test("telemetry: arguments and results only when the host opts in", async () => {
  await withSetup(async (setup) => {
    await gateOf(setup).run(
      [{ id: "c1", name: "load_record", arguments: { key: "k" } }],
      { runId: "run-1" },
    );
    const [span] = setup.sdk.spans();
    assert.equal(span.attributes["gen_ai.tool.call.arguments"], '{"key":"k"}');
    assert.equal(
      span.attributes["gen_ai.tool.call.result"],
      '{"text":["ok"],"structured":{"found":false}}',
    );
  }, { telemetry: { recordArguments: true, recordResults: true } });
});

Deno.test("telemetry: an active GenAI execute_tool span gets the attributes instead of a new span", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const outer = provider.getTracer("agent").startSpan("execute_tool load_record", {
    kind: SpanKind.INTERNAL,
    attributes: { "gen_ai.operation.name": "execute_tool" },
  });
  await withSetup(async (setup) => {
    await gateOf(setup).run(
      [{ id: "c1", name: "load_record", arguments: { key: "k" } }],
      { runId: "run-1" },
    );
    assert.equal(setup.sdk.spans().length, 0, "no span of sluice's own");
    outer.end();
    const [span] = exporter.getFinishedSpans();
    assert.equal(span.name, "execute_tool load_record", "the host's span keeps its name");
    assert.equal(span.attributes["mcp.method.name"], "tools/call");
    assert.equal(span.attributes["gen_ai.tool.name"], "read_record");
    assert.equal(span.attributes["sluice.outcome"], "ok");
    // The meter still records the operation.
    const metrics = await setup.sdk.metrics();
    assert.equal(
      histogram(metrics.get(TELEMETRY_METRICS.operationDuration)).dataPoints[0].value.count,
      1,
    );
  }, { telemetry: { activeSpan: () => outer } });
  await provider.shutdown();
});

Deno.test("telemetry: off, nothing is emitted even with global providers registered", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  try {
    await withSetup(async (setup) => {
      const gate = gateOf(setup, { telemetry: undefined });
      await gate.run([{ id: "c1", name: "load_record", arguments: { key: "k" } }], {
        runId: "run-1",
      });
      assert.equal(exporter.getFinishedSpans().length, 0);
      assert.equal(setup.sdk.spans().length, 0);
      assert.equal((await setup.sdk.metrics()).size, 0);
    });
  } finally {
    trace.disable();
    await provider.shutdown();
  }
});

Deno.test("telemetry: no entry imports @opentelemetry/*; the option is checked", async () => {
  for (const entry of ["mod.ts", "libsql.ts", "postgres.ts", "d1.ts", "inbox.ts", "serve.ts"]) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: new URL("../../", import.meta.url),
      stdout: "piped",
      stderr: "null",
    }).output();
    // The modules and what they import (the npm table lists the whole lock, not the graph).
    const { modules } = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: { specifier: string; dependencies?: { specifier: string }[] }[];
    };
    const names = modules.flatMap((module) => [
      module.specifier,
      ...(module.dependencies ?? []).map((dependency) => dependency.specifier),
    ]);
    assert.ok(names.some((name) => name.includes("/src/")), `${entry}: the real graph`);
    if (entry === "mod.ts") {
      assert.ok(names.some((name) => name.endsWith("src/telemetry/call_trace.ts")));
    }
    const otel = names.filter((name) => name.includes("@opentelemetry"));
    assert.deepEqual(otel, [], `${entry}: no OpenTelemetry package`);
  }
  await withSetup((setup) => {
    const invalid = [{ tracer: {} }, { meter: { createHistogram() {} } }, { inject: "w3c" }, null];
    for (const telemetry of invalid) {
      assert.throws(
        () => gateOf(setup, { telemetry: telemetry as never }),
        (error: Error & { code?: string }) => error.code === "gate_options_invalid",
      );
    }
    return Promise.resolve();
  });
});
