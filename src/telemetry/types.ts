/**
 * What sluice needs of OpenTelemetry, typed structurally: the host passes its own tracer and
 * meter (`trace.getTracer(...)`, `metrics.getMeter(...)` of `@opentelemetry/api`), so the core
 * never imports the package and pays nothing when the host passes none.
 *
 * @module
 */

/**
 * An attribute value sluice records: a string, number or boolean.
 *
 * @category Telemetry
 */
export type TelemetryAttributeValue = string | number | boolean;

/**
 * Attributes of a span, an event or a measurement.
 *
 * @category Telemetry
 */
export type TelemetryAttributes = Record<string, TelemetryAttributeValue>;

/**
 * The part of an OpenTelemetry `Span` sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetrySpan {
  /** Sets one attribute. */
  setAttribute(key: string, value: TelemetryAttributeValue): unknown;
  /** Adds a timestamped event. */
  addEvent(name: string, attributes?: TelemetryAttributes): unknown;
  /** Sets the status; sluice sets only `{ code: 2 }` (ERROR), never a message. */
  setStatus(status: { code: number }): unknown;
  /** Ends the span. */
  end(): void;
  /** Whether the span records anything (a non-recording span is left alone). */
  isRecording(): boolean;
  /** The span's trace id, span id and flags (for links stored with an approval). */
  spanContext?(): TelemetrySpanContext;
  /** Adds a link after the span started (the host's `execute_tool` span). */
  addLink?(link: TelemetryLink): unknown;
}

/**
 * A span's identity (the OpenTelemetry API's `SpanContext`): what a link points at.
 *
 * @category Telemetry
 */
export interface TelemetrySpanContext {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** The W3C trace flags (1: sampled). */
  readonly traceFlags: number;
  /** Whether the context came from another process. */
  readonly isRemote?: boolean;
}

/**
 * A link from a span to another span, perhaps of another process.
 *
 * @category Telemetry
 */
export interface TelemetryLink {
  /** The span linked to. */
  readonly context: TelemetrySpanContext;
  /** What the link means. */
  readonly attributes?: TelemetryAttributes;
}

/**
 * The part of an OpenTelemetry `Tracer` sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetryTracer {
  /**
   * Starts a span; its parent is the active context, as the OpenTelemetry API does. sluice
   * passes every attribute it knows at the start here, once (`attributes` is frozen and shared
   * by the calls of a tool: copy it, never change it), and `startTime` as a
   * `performance.now()` reading.
   */
  startSpan(
    name: string,
    options?: {
      kind?: number;
      attributes?: Readonly<TelemetryAttributes>;
      links?: TelemetryLink[];
      startTime?: number;
    },
  ): TelemetrySpan;
}

/**
 * The part of an OpenTelemetry `Histogram` sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetryHistogram {
  /** Records one value. */
  record(value: number, attributes?: TelemetryAttributes): void;
}

/**
 * The part of an OpenTelemetry `Counter` sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetryCounter {
  /** Adds to the counter. */
  add(value: number, attributes?: TelemetryAttributes): void;
}

/**
 * Options of an instrument sluice creates (the OpenTelemetry API's `MetricOptions`).
 *
 * @category Telemetry
 */
export interface TelemetryInstrumentOptions {
  /** What the instrument measures. */
  readonly description?: string;
  /** The UCUM unit (`s`, `{approval}`). */
  readonly unit?: string;
  /** Bucket boundaries the conventions advise, for histograms. */
  readonly advice?: { readonly explicitBucketBoundaries?: number[] };
}

/**
 * The part of an OpenTelemetry `Meter` sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetryMeter {
  /** Creates a histogram. */
  createHistogram(name: string, options?: TelemetryInstrumentOptions): TelemetryHistogram;
  /** Creates a monotonic counter. */
  createCounter(name: string, options?: TelemetryInstrumentOptions): TelemetryCounter;
  /** Creates an observable gauge (operator metrics read from the approval store). */
  createObservableGauge?(
    name: string,
    options?: TelemetryInstrumentOptions,
  ): TelemetryObservable;
}

/**
 * What an observable instrument's callback is handed (the OpenTelemetry API's
 * `ObservableResult`).
 *
 * @category Telemetry
 */
export interface TelemetryObservableResult {
  /** Observes one value for one attribute set. */
  observe(value: number, attributes?: TelemetryAttributes): void;
}

/**
 * The part of an OpenTelemetry observable instrument sluice uses.
 *
 * @category Telemetry
 */
export interface TelemetryObservable {
  /** Adds a callback, run at each collection (it may return a promise). */
  addCallback(callback: (result: TelemetryObservableResult) => void | Promise<void>): void;
  /** Removes it again. */
  removeCallback(callback: (result: TelemetryObservableResult) => void | Promise<void>): void;
}

/**
 * Where a server is, for the conventions' `server.address` and `server.port`.
 *
 * @category Telemetry
 */
export interface TelemetryServerAddress {
  /** Host name or address the session connects to. */
  readonly address: string;
  /** Port, when known. */
  readonly port?: number;
}

/**
 * The `telemetry` option of a `Gate` (and of `connect()`): traces and metrics in the MCP
 * semantic conventions, through the host's own OpenTelemetry objects. Absent, nothing is
 * emitted and nothing is loaded.
 *
 * @example
 * ```ts
 * import { metrics, trace } from "@opentelemetry/api";
 * import type { GateTelemetry } from "@sluice/mcp";
 * const telemetry: GateTelemetry = {
 *   tracer: trace.getTracer("@sluice/mcp"),
 *   meter: metrics.getMeter("@sluice/mcp"),
 *   activeSpan: () => trace.getActiveSpan(),
 * };
 * ```
 *
 * @category Telemetry
 */
export interface GateTelemetry {
  /** Spans: one per tools/call the gate handles. */
  readonly tracer?: TelemetryTracer;
  /** Metrics: `mcp.client.operation.duration` and the approval metrics. */
  readonly meter?: TelemetryMeter;
  /**
   * The active span (`() => trace.getActiveSpan()`). When it is a GenAI `execute_tool` span
   * (its `gen_ai.operation.name` attribute, readable on SDK spans, is `execute_tool`), the
   * call's attributes and events go on it instead of a new span.
   */
  readonly activeSpan?: () => TelemetrySpan | undefined;
  /** Opt-in: record `gen_ai.tool.call.arguments` (the admitted arguments as JSON). */
  readonly recordArguments?: boolean;
  /** Opt-in: record `gen_ai.tool.call.result` (the validated result as JSON). */
  readonly recordResults?: boolean;
  /**
   * Trace context propagation (SEP-414): writes the context of `span` (the request's span, or
   * the active context when sluice started none) into `carrier` with the host's propagators;
   * sluice puts what it wrote, unprefixed, into the request's `params._meta`. Absent, nothing is
   * propagated. With `@opentelemetry/api`:
   * `(carrier, span) => propagation.inject(span ? trace.setSpan(context.active(), span as Span) : context.active(), carrier)`.
   */
  readonly inject?: (carrier: Record<string, string>, span: TelemetrySpan | undefined) => void;
  /** `server.address` / `server.port` per server id, where the host knows them. */
  readonly servers?: Readonly<Record<string, TelemetryServerAddress>>;
}

/**
 * `server.address` and `server.port` of a server URL (the scheme's default port when the URL
 * names none).
 *
 * @param url the server's URL
 *
 * @category Telemetry
 */
export function serverAddressOf(url: string | URL): TelemetryServerAddress {
  const parsed = new URL(url);
  const port = parsed.port !== ""
    ? Number(parsed.port)
    : parsed.protocol === "https:"
    ? 443
    : parsed.protocol === "http:"
    ? 80
    : undefined;
  // An IPv6 literal's brackets are URL syntax, not part of the address.
  const address = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  return port === undefined ? { address } : { address, port };
}
