/**
 * A `toolkit.call`'s span is started once with every attribute known by then (the tool's, the
 * server's, the session's and, without a propagator, the request id: the request went first),
 * read by a span processor of the real SDK at `onStart`; after the start only the outcome is set
 * (with a propagator the span names the request's trace context, so it starts first and the
 * request id is set after). One span per call, its start time the call's.
 */
import assert from "node:assert/strict";
import {
  type Context,
  context,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span as ApiSpan,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { connect, type GateTelemetry } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { startLegacyHttpServer } from "../../fixtures/legacy_server_http.ts";

/** Keeps each span's attributes as they were when it started. */
class StartRecorder implements SpanProcessor {
  readonly started = new Map<string, Record<string, unknown>>();
  onStart(span: Span, _context: Context): void {
    this.started.set(span.spanContext().spanId, { ...span.attributes });
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const SERVERS = [
  { era: "2026-07-28", start: startHttpServer },
  { era: "2025-11-25", start: startLegacyHttpServer },
] as const;

const propagator = new W3CTraceContextPropagator();
const inject: GateTelemetry["inject"] = (carrier, span) =>
  propagator.inject(
    span ? trace.setSpan(ROOT_CONTEXT, span as ApiSpan) : context.active(),
    carrier,
    defaultTextMapSetter,
  );

for (const { era, start } of SERVERS) {
  for (const propagated of [false, true]) {
    const how = propagated ? "with a propagator" : "without a propagator";
    Deno.test(`telemetry: a ${era} call's span starts with its attributes at once, ${how}`, async () => {
      const server = await start();
      const recorder = new StartRecorder();
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({
        spanProcessors: [recorder, new SimpleSpanProcessor(exporter)],
      });
      const connection = await connect(server.url, {
        id: "docs",
        allow: ["echo"],
        preApproved: ["echo"],
        transport: { dangerouslyAllowLoopback: true },
        telemetry: {
          tracer: provider.getTracer("@sluice/mcp"),
          ...(propagated ? { inject } : {}),
        },
      });
      try {
        const before = performance.timeOrigin + performance.now();
        const envelope = await connection.toolkit.call("docs__echo", { message: "hi" });
        const after = performance.timeOrigin + performance.now();
        assert.deepEqual(envelope.text, ["hi"]);
        const calls = exporter.getFinishedSpans().filter((span) =>
          span.attributes["mcp.method.name"] === "tools/call"
        );
        assert.equal(calls.length, 1, "one span for the call and its request");
        const [span] = calls;
        const started = recorder.started.get(span.spanContext().spanId);
        assert.ok(started, "the processor saw the span start");
        assert.deepEqual(started, {
          "mcp.method.name": "tools/call",
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "echo",
          "mcp.protocol.version": era,
          "server.address": "127.0.0.1",
          "server.port": Number(server.url.port),
          "sluice.server.id": "docs",
          "sluice.tool.local_name": "docs__echo",
          "sluice.snapshot.digest": span.attributes["sluice.snapshot.digest"],
          "sluice.screen.verdict": "clean",
          "sluice.lock.verdict": "unlocked",
          "network.transport": "tcp",
          "network.protocol.name": "http",
          ...(era === "2026-07-28" ? {} : { "mcp.session.id": span.attributes["mcp.session.id"] }),
          ...(propagated ? {} : { "jsonrpc.request.id": span.attributes["jsonrpc.request.id"] }),
        });
        assert.match(String(span.attributes["jsonrpc.request.id"]), /^\d+$/);
        assert.match(String(started["sluice.snapshot.digest"]), /^sha256:[0-9a-f]{64}$/);
        const setAfter = Object.keys(span.attributes).filter((key) => !(key in started)).sort();
        assert.deepEqual(
          setAfter,
          propagated ? ["jsonrpc.request.id", "sluice.outcome"] : ["sluice.outcome"],
        );
        assert.equal(span.attributes["sluice.outcome"], "ok");
        const startMs = span.startTime[0] * 1000 + span.startTime[1] / 1e6;
        const endMs = span.endTime[0] * 1000 + span.endTime[1] / 1e6;
        assert.ok(startMs >= before - 1 && endMs <= after + 1, "the span covers the call");
      } finally {
        await connection.close();
        await provider.shutdown();
        await server.close();
      }
    });
  }
}
