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
  RECOVERED_REASON,
} from "./gate.ts";
export { INLINE_DECIDER } from "./write_path.ts";
export { APPROVAL_TEXT } from "./approval_text.ts";
export { createGrant, grantScopeOf } from "./grants.ts";
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
} from "./types.ts";
