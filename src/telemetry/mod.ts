/**
 * OpenTelemetry traces and metrics in the MCP semantic conventions, through the host's own
 * tracer and meter (the core never imports `@opentelemetry/api`).
 *
 * @module
 */
export {
  APPROVAL_EVENTS,
  type ApprovalStep,
  ATTR as TELEMETRY_ATTRIBUTES,
  DURATION_BUCKETS,
  METRICS as TELEMETRY_METRICS,
} from "./conventions.ts";
export type {
  GateTelemetry,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetryCounter,
  TelemetryHistogram,
  TelemetryInstrumentOptions,
  TelemetryLink,
  TelemetryMeter,
  TelemetryObservable,
  TelemetryObservableResult,
  TelemetryServerAddress,
  TelemetrySpan,
  TelemetrySpanContext,
  TelemetryTracer,
} from "./types.ts";
export type { TracedServer } from "./session_trace.ts";
export { tracedSession } from "./traced_session.ts";
export type { TracedVerdicts } from "./call_trace.ts";
export {
  observeApprovals,
  type ObservedApproval,
  type ObservedApprovalStore,
} from "./operator_metrics.ts";
