/**
 * `connect()` / `connectAll()`: governed tools from remote MCP servers over a hardened
 * Streamable HTTP client, with approval rules, audit events and a setup report.
 *
 * @module
 */
export {
  type ApproveCallback,
  type ConnectAllConfig,
  type ConnectCommonOptions,
  type ConnectTransportOptions,
  type HttpServerConfig,
  type ServerConfig,
  type ServerEntryOptions,
  type StdioServerConfig,
  type ToolSpec,
} from "./config.ts";
export type { StdioCommand } from "./stdio_config.ts";
export type { StdioDiagnostics } from "../session/stdio_types.ts";
export type { ExitStatus } from "../transport/stdio/spawn_types.ts";
export { StdioError, type StdioErrorCode } from "../transport/stdio/stdio_error.ts";
export {
  connect,
  connectAll,
  type Connection,
  type ConnectOptions,
  type ServerCatalogs,
} from "./connect.ts";
export { type Era, EraCache, type EraVerdict } from "../session/era.ts";
export {
  ConnectConfigError,
  type ConnectConfigErrorCode,
  ConnectError,
  type ServerFailure,
} from "./errors.ts";
export type { ConnectApprovalDecision, ConnectEvent } from "./events.ts";
export { type ApprovalPolicy, approvalPolicy, type ApprovalReason } from "./governance.ts";
export { localToolName } from "./names.ts";
export { DEFAULT_RELIST_INTERVAL_MS } from "./relister.ts";
export type {
  ChangeMechanism,
  ConnectReport,
  LockReport,
  ReadyTool,
  ReportedExport,
  ReportedFinding,
  ReportedLockMismatch,
  ReportedProviders,
  ServerReport,
  SkippedTool,
} from "./report.ts";
export type { AcceptOptions, RevisionSummary, StagedRevision } from "./revision.ts";
export {
  Toolkit,
  type ToolkitCallOptions,
  type ToolkitEnvelope,
  type ToolkitErrorCode,
  type ToolkitResumeOptions,
  type ToolkitTool,
} from "./toolkit.ts";
