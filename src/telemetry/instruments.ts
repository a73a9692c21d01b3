/**
 * The instruments of one telemetry option, made once and shared by every gate and session that
 * uses it (creating them again per session would repeat the SDK's registration work).
 *
 * @module
 */
import { DURATION_BUCKETS, METRICS } from "./conventions.ts";
import type { GateTelemetry, TelemetryCounter, TelemetryHistogram } from "./types.ts";

/**
 * The histograms and counters sluice records into.
 *
 * @category Telemetry
 */
export interface TelemetryInstruments {
  /** `mcp.client.operation.duration`. */
  readonly duration: TelemetryHistogram | undefined;
  /** `mcp.client.session.duration`. */
  readonly sessionDuration: TelemetryHistogram | undefined;
  /** `sluice.approval.outcomes`. */
  readonly outcomes: TelemetryCounter | undefined;
  /** `sluice.approval.wait.duration`. */
  readonly wait: TelemetryHistogram | undefined;
}

const MADE = new WeakMap<GateTelemetry, TelemetryInstruments>();

/**
 * The instruments of `telemetry`, made on first use.
 *
 * @param telemetry the host's option
 */
export function instrumentsOf(telemetry: GateTelemetry): TelemetryInstruments {
  const made = MADE.get(telemetry);
  if (made !== undefined) return made;
  const meter = telemetry.meter;
  const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
  const instruments: TelemetryInstruments = {
    duration: meter?.createHistogram(METRICS.operationDuration, {
      description: "Duration of an MCP request as the client sees it.",
      unit: "s",
      advice,
    }),
    sessionDuration: meter?.createHistogram(METRICS.sessionDuration, {
      description: "Duration of an MCP session as the client sees it.",
      unit: "s",
      advice,
    }),
    outcomes: meter?.createCounter(METRICS.approvalOutcomes, {
      description: "Approval steps that end or decide a write, by outcome.",
      unit: "{approval}",
    }),
    wait: meter?.createHistogram(METRICS.approvalWait, {
      description: "Time from a write's approval being prepared to its decision.",
      unit: "s",
      advice,
    }),
  };
  MADE.set(telemetry, instruments);
  return instruments;
}
