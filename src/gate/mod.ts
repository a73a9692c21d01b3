/**
 * The gate: batch admission, durable approvals for writes, honest outcomes.
 *
 * @module
 */
export {
  DEFAULT_APPROVAL_TTL_MS,
  Gate,
  GateError,
  type GateErrorCodeThrown,
  INLINE_DECIDER,
  RECOVERED_REASON,
} from "./gate.ts";
export type {
  GateCall,
  GateCatalog,
  GateEnvelope,
  GateErrorCode,
  GateOnlyErrorCode,
  GateOptions,
  InlineApprovalRequest,
  InlineApprover,
  PersistencePoint,
  RecoverOptions,
  ResumeOptions,
  RunOptions,
  WriteOutcomeEffect,
} from "./types.ts";
