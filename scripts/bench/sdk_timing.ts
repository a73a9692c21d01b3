/**
 * Where a recorded call's telemetry time goes: a tracer and a meter that hand every call to
 * the real OpenTelemetry SDK objects under them and add up the time spent inside the SDK
 * (`startSpan`, the span's methods, `end` with its span processor, `record`), so the benchmark
 * can say how much of a call is the SDK's own work, on the real call path (in situ), and what the
 * same SDK calls cost in a loop of their own (in isolation).
 *
 * @module
 */
import type {
  GateTelemetry,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetryCounter,
  TelemetryHistogram,
  TelemetryInstrumentOptions,
  TelemetryLink,
  TelemetryMeter,
  TelemetrySpan,
  TelemetryTracer,
} from "../../mod.ts";

/** Milliseconds spent inside the SDK, and how many SDK calls, since the last reset. */
export class SdkClock {
  /** Milliseconds inside SDK methods. */
  ms = 0;
  /** SDK method calls. */
  calls = 0;
  /** Milliseconds the same timing takes around an empty function, and how many times. */
  idleMs = 0;
  /** How many empty functions were timed. */
  idleCalls = 0;
  /** Milliseconds and calls by SDK method. */
  readonly methods = new Map<string, { ms: number; calls: number }>();
  /** The last call's span name, start attributes and attributes set after. */
  span: { name: string; started: TelemetryAttributes; set: TelemetryAttributes } | undefined;
  /** The attributes of the last duration measurement. */
  measured: TelemetryAttributes | undefined;

  /** What the last call asked of the SDK. */
  recorded(): RecordedCall {
    if (this.span === undefined || this.measured === undefined) throw new Error("no call seen");
    return { ...this.span, measured: this.measured };
  }

  /** Starts counting again. */
  reset(): void {
    this.ms = 0;
    this.calls = 0;
    this.idleMs = 0;
    this.idleCalls = 0;
    this.methods.clear();
    this.span = undefined;
    this.measured = undefined;
  }

  /**
   * The time inside SDK methods less what the timing itself takes (measured around an empty
   * function at each span start, in the same place of the call path).
   */
  netMs(): number {
    return this.ms - this.calls * this.idleOverheadMs();
  }

  /** What one timing takes around an empty function, in milliseconds. */
  idleOverheadMs(): number {
    return this.idleCalls === 0 ? 0 : this.idleMs / this.idleCalls;
  }

  /** Times an empty function, as `time` would. */
  idle(): void {
    const start = performance.now();
    try {
      nothing();
    } finally {
      this.idleMs += performance.now() - start;
      this.idleCalls++;
    }
  }

  /** Runs `work`, adding its time. */
  time<T>(method: string, work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      const ms = performance.now() - start;
      this.ms += ms;
      this.calls++;
      const seen = this.methods.get(method);
      if (seen === undefined) this.methods.set(method, { ms, calls: 1 });
      else {
        seen.ms += ms;
        seen.calls++;
      }
    }
  }
}

function nothing(): void {}

/** A span whose every method is timed. */
class TimedSpan implements TelemetrySpan {
  readonly #span: TelemetrySpan;
  readonly #clock: SdkClock;
  /** Where the attributes set after the start go, for the first span only. */
  readonly #capture: TelemetryAttributes | undefined;

  constructor(span: TelemetrySpan, clock: SdkClock, capture: TelemetryAttributes | undefined) {
    this.#span = span;
    this.#clock = clock;
    this.#capture = capture;
  }

  setAttribute(key: string, value: TelemetryAttributeValue): unknown {
    if (this.#capture !== undefined) this.#capture[key] = value;
    return this.#clock.time("span.setAttribute", () => this.#span.setAttribute(key, value));
  }
  addEvent(name: string, attributes?: TelemetryAttributes): unknown {
    return this.#clock.time("span.addEvent", () => this.#span.addEvent(name, attributes));
  }
  setStatus(status: { code: number }): unknown {
    return this.#clock.time("span.setStatus", () => this.#span.setStatus(status));
  }
  end(): void {
    this.#clock.time("span.end", () => this.#span.end());
  }
  isRecording(): boolean {
    return this.#span.isRecording();
  }
  spanContext() {
    return this.#span.spanContext!();
  }
  addLink(link: TelemetryLink): unknown {
    return this.#clock.time("span.addLink", () => this.#span.addLink!(link));
  }
}

/** `telemetry`'s tracer and meter, timed by `clock`. */
export function timedTelemetry(telemetry: GateTelemetry, clock: SdkClock): GateTelemetry {
  const tracer = telemetry.tracer!;
  const meter = telemetry.meter!;
  const timedTracer: TelemetryTracer = {
    startSpan: (name, options) => {
      // The first call's span is kept, to be replayed alone.
      const first = clock.span === undefined && name.startsWith("tools/call ");
      if (first) clock.span = { name, started: { ...options?.attributes }, set: {} };
      clock.idle();
      const span = clock.time("tracer.startSpan", () => tracer.startSpan(name, options));
      return new TimedSpan(span, clock, first ? clock.span!.set : undefined);
    },
  };
  const timedMeter: TelemetryMeter = {
    createHistogram(name: string, options?: TelemetryInstrumentOptions): TelemetryHistogram {
      const histogram = meter.createHistogram(name, options);
      return {
        record: (value, attributes) => {
          if (
            clock.measured === undefined && name === "mcp.client.operation.duration" &&
            attributes?.["mcp.method.name"] === "tools/call"
          ) {
            clock.measured = { ...attributes };
          }
          clock.time("histogram.record", () => histogram.record(value, attributes));
        },
      };
    },
    createCounter(name: string, options?: TelemetryInstrumentOptions): TelemetryCounter {
      const counter = meter.createCounter(name, options);
      return {
        add: (value, attributes) => clock.time("counter.add", () => counter.add(value, attributes)),
      };
    },
  };
  return { ...telemetry, tracer: timedTracer, meter: timedMeter };
}

/** What a recorded call asked of the SDK: its span's name, attributes at the start and after. */
export interface RecordedCall {
  /** The span name. */
  readonly name: string;
  /** The attributes the span started with. */
  readonly started: Readonly<TelemetryAttributes>;
  /** The attributes set after the start, one by one. */
  readonly set: Readonly<TelemetryAttributes>;
  /** The duration histogram's attributes. */
  readonly measured: Readonly<TelemetryAttributes>;
}

/**
 * The same SDK calls as one recorded call, `iterations` times in a loop of their own: the
 * microseconds per call of the SDK's work when nothing else runs between (warm caches).
 *
 * @param telemetry a fresh SDK's tracer and meter
 * @param call what one call asks of the SDK
 * @param iterations how many times
 */
export function sdkAlone(telemetry: GateTelemetry, call: RecordedCall, iterations: number): number {
  const tracer = telemetry.tracer!;
  const histogram = telemetry.meter!.createHistogram("mcp.client.operation.duration", {
    unit: "s",
  });
  const run = (count: number) => {
    for (let index = 0; index < count; index++) {
      const start = performance.now();
      const span = tracer.startSpan(call.name, {
        kind: 2,
        attributes: call.started,
        startTime: start,
      });
      for (const key in call.set) span.setAttribute(key, call.set[key]);
      span.end();
      histogram.record((performance.now() - start) / 1000, call.measured);
    }
  };
  run(Math.min(iterations, 2_000));
  const start = performance.now();
  run(iterations);
  return (performance.now() - start) * 1000 / iterations;
}
