/**
 * OTLP/HTTP export: `connect()` to a 2026-07-28 server with the real OpenTelemetry SDK exporting
 * through `@opentelemetry/exporter-trace-otlp-http` and `exporter-metrics-otlp-http` (JSON
 * encoding) to a receiver this test runs on 127.0.0.1. What arrived is decoded and checked:
 * span names, kinds, the conventions' attributes and the duration histograms' buckets.
 */
import assert from "node:assert/strict";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { connect, DURATION_BUCKETS, TELEMETRY_METRICS } from "../../mod.ts";
import { startTracedServer } from "../../fixtures/traced_server.ts";

/** An OTLP/JSON `AnyValue`. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  attributes: KeyValue[];
  status?: { code?: number };
}
interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: {
    dataPoints: { attributes: KeyValue[]; count: string | number; explicitBounds: number[] }[];
  };
}

/** The attributes of an OTLP/JSON key-value list as a plain object. */
function attributesOf(list: KeyValue[]): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map(({ key, value }) => [
    key,
    value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ?? value.doubleValue!,
  ]));
}

/** A loopback OTLP/HTTP receiver: every JSON body posted to /v1/traces and /v1/metrics. */
async function startReceiver() {
  const traces: unknown[] = [];
  const metrics: unknown[] = [];
  const { promise, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => resolve(addr as Deno.NetAddr),
  }, async (request) => {
    const path = new URL(request.url).pathname;
    assert.equal(request.headers.get("content-type"), "application/json");
    const body = await request.json();
    if (path === "/v1/traces") traces.push(body);
    else if (path === "/v1/metrics") metrics.push(body);
    else return new Response("not found", { status: 404 });
    return Response.json({});
  });
  const addr = await promise;
  return { base: `http://127.0.0.1:${addr.port}`, traces, metrics, close: () => server.shutdown() };
}

/** A reader collected on demand (its output handed to the OTLP exporter by the test). */
class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("telemetry: spans and metrics exported over OTLP/HTTP to a loopback receiver decode as the conventions say", async () => {
  const receiver = await startReceiver();
  const mcp = await startTracedServer(new BasicTracerProvider().getTracer("unused"));
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${receiver.base}/v1/traces` })),
    ],
  });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const metricExporter = new OTLPMetricExporter({ url: `${receiver.base}/v1/metrics` });
  const connection = await connect(mcp.url, {
    id: "docs",
    allow: ["echo", "fail"],
    preApproved: ["echo", "fail"],
    transport: { dangerouslyAllowLoopback: true },
    telemetry: {
      tracer: tracerProvider.getTracer("@sluice/mcp"),
      meter: meterProvider.getMeter("@sluice/mcp"),
    },
  });
  try {
    assert.deepEqual((await connection.toolkit.call("docs__echo", { message: "hi" })).text, ["hi"]);
    assert.equal((await connection.toolkit.call("docs__fail", {})).errorCode, "mcp_protocol_error");
    await connection.close();
    await tracerProvider.forceFlush();
    const { resourceMetrics } = await reader.collect();
    const exported = await new Promise<{ code: number }>((done) =>
      metricExporter.export(resourceMetrics, done)
    );
    assert.equal(exported.code, 0, "the receiver took the metrics");

    const spans =
      (receiver.traces as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }[])
        .flatMap((body) => body.resourceSpans)
        .flatMap((resource) => resource.scopeSpans)
        .flatMap((scope) => scope.spans);
    const byName = new Map(spans.map((span) => [span.name, span]));
    assert.deepEqual(
      [...byName.keys()].sort(),
      ["server/discover", "tools/call echo", "tools/call fail", "tools/list"],
    );
    for (const span of spans) {
      assert.equal(span.kind, 3, `${span.name}: SPAN_KIND_CLIENT in OTLP`);
      assert.match(span.traceId, /^[0-9a-f]{32}$/);
    }
    const echo = attributesOf(byName.get("tools/call echo")!.attributes);
    assert.equal(echo["mcp.method.name"], "tools/call");
    assert.equal(echo["gen_ai.tool.name"], "echo");
    assert.equal(echo["gen_ai.operation.name"], "execute_tool");
    assert.equal(echo["mcp.protocol.version"], "2026-07-28");
    assert.equal(echo["server.port"], Number(mcp.url.port), "an int, as the conventions type it");
    assert.equal(echo["network.transport"], "tcp");
    assert.match(String(echo["jsonrpc.request.id"]), /^\d+$/);
    const fail = byName.get("tools/call fail")!;
    assert.equal(fail.status?.code, 2, "STATUS_CODE_ERROR");
    assert.equal(attributesOf(fail.attributes)["rpc.response.status_code"], "-32602");
    assert.equal(attributesOf(fail.attributes)["error.type"], "-32602");

    const metrics = (receiver.metrics as {
      resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[];
    }[])
      .flatMap((body) => body.resourceMetrics)
      .flatMap((resource) => resource.scopeMetrics)
      .flatMap((scope) => scope.metrics);
    const operation = metrics.find((metric) => metric.name === TELEMETRY_METRICS.operationDuration);
    assert.equal(operation?.unit, "s");
    const points = operation!.histogram!.dataPoints;
    assert.deepEqual(points[0].explicitBounds, [...DURATION_BUCKETS]);
    const calls = points.filter((point) =>
      attributesOf(point.attributes)["mcp.method.name"] === "tools/call"
    );
    assert.equal(calls.reduce((sum, point) => sum + Number(point.count), 0), 2);
    const session = metrics.find((metric) => metric.name === TELEMETRY_METRICS.sessionDuration);
    assert.equal(Number(session?.histogram?.dataPoints[0].count), 1);
  } finally {
    await connection.close();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    await metricExporter.shutdown();
    await mcp.close();
    await receiver.close();
  }
});
