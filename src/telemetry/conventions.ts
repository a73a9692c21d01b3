/**
 * Names of the OpenTelemetry MCP and GenAI semantic conventions sluice emits, and its own under
 * `sluice.`: one table, so the docs and the tests name the same strings.
 *
 * @module
 */

/**
 * Attribute names (the conventions' and sluice's own).
 *
 * @category Telemetry
 */
export const ATTR: Readonly<
  Record<
    | "methodName"
    | "protocolVersion"
    | "toolName"
    | "operationName"
    | "toolArguments"
    | "toolResult"
    | "errorType"
    | "serverAddress"
    | "serverPort"
    | "serverId"
    | "localName"
    | "effect"
    | "snapshotDigest"
    | "writeCatalogDigest"
    | "bindingId"
    | "approvalId"
    | "decidedBy"
    | "approvalOutcome"
    | "outcome"
    | "errorCode"
    | "requestId"
    | "statusCode"
    | "sessionId"
    | "networkProtocolName"
    | "networkProtocolVersion"
    | "networkTransport"
    | "linkKind"
    | "staleReason"
    | "screenVerdict"
    | "screenFindings"
    | "lockVerdict",
    string
  >
> = Object.freeze({
  methodName: "mcp.method.name",
  protocolVersion: "mcp.protocol.version",
  toolName: "gen_ai.tool.name",
  operationName: "gen_ai.operation.name",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  serverId: "sluice.server.id",
  localName: "sluice.tool.local_name",
  effect: "sluice.tool.effect",
  snapshotDigest: "sluice.snapshot.digest",
  writeCatalogDigest: "sluice.write_catalog.digest",
  bindingId: "sluice.binding.id",
  approvalId: "sluice.approval.id",
  decidedBy: "sluice.approval.decided_by",
  approvalOutcome: "sluice.approval.outcome",
  outcome: "sluice.outcome",
  errorCode: "sluice.error_code",
  requestId: "jsonrpc.request.id",
  statusCode: "rpc.response.status_code",
  sessionId: "mcp.session.id",
  networkProtocolName: "network.protocol.name",
  networkProtocolVersion: "network.protocol.version",
  networkTransport: "network.transport",
  linkKind: "sluice.link.kind",
  staleReason: "sluice.catalog.stale_reason",
  screenVerdict: "sluice.screen.verdict",
  screenFindings: "sluice.screen.findings",
  lockVerdict: "sluice.lock.verdict",
});

/**
 * The span event names of the approval lifecycle.
 *
 * @category Telemetry
 */
export const APPROVAL_EVENTS: Readonly<Record<ApprovalStep, string>> = Object.freeze({
  pending: "sluice.approval.pending",
  approved: "sluice.approval.approved",
  denied: "sluice.approval.denied",
  superseded: "sluice.approval.superseded",
  expired: "sluice.approval.expired",
  claimed: "sluice.approval.claimed",
  committed: "sluice.approval.committed",
  not_started: "sluice.approval.not_started",
  unknown: "sluice.approval.unknown",
});

/**
 * A step of the approval lifecycle a span records.
 *
 * @category Telemetry
 */
export type ApprovalStep =
  | "pending"
  | "approved"
  | "denied"
  | "superseded"
  | "expired"
  | "claimed"
  | "committed"
  | "not_started"
  | "unknown";

/**
 * Metric names.
 *
 * @category Telemetry
 */
export const METRICS: Readonly<
  Record<
    | "operationDuration"
    | "sessionDuration"
    | "approvalOutcomes"
    | "approvalWait"
    | "approvalsPending"
    | "approvalsPendingAge"
    | "approvalsUnknown"
    | "catalogStale"
    | "lockMismatches",
    string
  >
> = Object.freeze({
  operationDuration: "mcp.client.operation.duration",
  sessionDuration: "mcp.client.session.duration",
  approvalOutcomes: "sluice.approval.outcomes",
  approvalWait: "sluice.approval.wait.duration",
  approvalsPending: "sluice.approvals.pending",
  approvalsPendingAge: "sluice.approvals.pending.age",
  approvalsUnknown: "sluice.approvals.unknown",
  catalogStale: "sluice.catalog.stale",
  lockMismatches: "sluice.catalog.lock_mismatches",
});

/**
 * The conventions' bucket boundaries (seconds) for MCP duration histograms.
 *
 * @category Telemetry
 */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300,
]);

/** The MCP method every gate span is about. */
export const TOOLS_CALL = "tools/call";

/** `error.type` of a result the server marked `isError`. */
export const TOOL_ERROR = "tool_error";

/** The OpenTelemetry API's `SpanKind.CLIENT` and `SpanStatusCode.ERROR`. */
export const SPAN_KIND_CLIENT = 2;
/** The OpenTelemetry API's `SpanStatusCode.ERROR`. */
export const STATUS_ERROR = 2;
