/**
 * Durable, single-use approvals for writes: the store interface, the state machine and the
 * in-memory store. The libSQL store lives in a separate entry (`@sluice/mcp/libsql`).
 *
 * @module
 */
export { ApprovalError, type ApprovalErrorCode } from "./errors.ts";
export { assertDurableStore, type DurableStoreOptions } from "./guard.ts";
export { APPROVAL_STATES, TERMINAL_STATES, TRANSITIONS } from "./machine.ts";
export { MemoryApprovalStore } from "./memory.ts";
export type {
  ApprovalBinding,
  ApprovalDecision,
  ApprovalEffect,
  ApprovalEvent,
  ApprovalOutcome,
  ApprovalReceipt,
  ApprovalReconciliation,
  ApprovalRecord,
  ApprovalRefusal,
  ApprovalRequest,
  ApprovalState,
  ApprovalStore,
  ApprovalStoreOptions,
  ClaimExpectation,
  ClaimRefusalCode,
  ClaimResult,
  CommitOptions,
  DecisionInput,
  EditDecisionInput,
  EditedApproval,
  GrantApprovalResult,
  GrantEvent,
  GrantFilter,
  GrantInput,
  GrantRefusalCode,
  GrantTerms,
  ListFilter,
  PreparedClaim,
  ReconcileInput,
  RevokeGrantInput,
} from "./types.ts";
export type { ApprovalGrant } from "./types.ts";
export { grantDecider, type GrantStatus, grantStatus } from "./grants.ts";
