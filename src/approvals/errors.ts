import { SluiceError } from "../errors.ts";
import type { CodeIn } from "../codes.ts";

/**
 * Stable codes of {@link ApprovalError}.
 *
 * @category Approvals
 */
export type ApprovalErrorCode = CodeIn<"ApprovalErrorCode">;

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
