import { SluiceError } from "../errors.ts";

/**
 * Stable codes of {@link ApprovalError}.
 *
 * @category Approvals
 */
export type ApprovalErrorCode =
  | "approval_not_found"
  | "approval_invalid_transition"
  | "approval_invalid_request"
  | "approval_conflict"
  | "approval_expired"
  | "approval_store_not_durable"
  | "approval_store_url_invalid"
  | "approval_store_schema_too_new"
  | "approval_store_schema_invalid"
  | "approval_store_closed"
  | "approval_store_busy"
  | "approval_store_error"
  | "approval_grant_not_found"
  | "approval_grant_revoked";

/**
 * Thrown by approval stores: an illegal transition, a conflicting prepare, a store that cannot
 * be trusted with writes. The message is sluice's own text.
 *
 * @example
 * ```ts
 * import { ApprovalError, MemoryApprovalStore } from "@sluice/mcp";
 * const store = new MemoryApprovalStore();
 * try {
 *   await store.approve("missing", { by: "alice" });
 * } catch (error) {
 *   console.assert(error instanceof ApprovalError && error.code === "approval_not_found");
 * }
 * ```
 *
 * @category Approvals
 */
export class ApprovalError extends SluiceError<ApprovalErrorCode> {
  /**
   * Creates the error.
   *
   * @param code stable error code
   * @param message explanation written by sluice
   */
  constructor(code: ApprovalErrorCode, message: string) {
    super(code, message);
    this.name = "ApprovalError";
  }
}
