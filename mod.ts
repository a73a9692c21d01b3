/**
 * sluice: governed local tools from remote MCP servers.
 *
 * This entry point re-exports the public API; each export carries its own documentation.
 *
 * @example
 * ```ts
 * import { digest } from "@sluice/mcp";
 * console.log(await digest({ hello: "world" }));
 * ```
 *
 * @module
 */
export { SluiceError } from "./src/errors.ts";
export {
  canonicalize,
  DEFAULT_JSON_LIMITS,
  digest,
  type JsonArray,
  type JsonErrorCode,
  type JsonLimits,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  JsonValueError,
} from "./src/identity/mod.ts";
export {
  type ApprovalBinding,
  type ApprovalDecision,
  type ApprovalEffect,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalEvent,
  type ApprovalOutcome,
  type ApprovalReceipt,
  type ApprovalReconciliation,
  type ApprovalRecord,
  type ApprovalRefusal,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalStore,
  type ApprovalStoreOptions,
  assertDurableStore,
  type ClaimExpectation,
  type ClaimRefusalCode,
  type ClaimResult,
  type DecisionInput,
  type DurableStoreOptions,
  type ListFilter,
  MemoryApprovalStore,
  type ReconcileInput,
} from "./src/approvals/mod.ts";
