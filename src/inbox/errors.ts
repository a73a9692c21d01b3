/**
 * The inbox's error type and codes: options refused when the inbox, its login or its notifier
 * is created, and the refusals its pages answer with.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Stable codes of the inbox: thrown by its constructors, or named in a refused response.
 *
 * @category Approval inbox
 */
export type InboxErrorCode = CodeOf<"inbox">;

/**
 * Thrown by `approvalInbox`, `oneTimeLogin` and `webhookNotifier` for bad options, and by a
 * notifier whose webhook answered with an error status. The message is sluice's own text.
 *
 * @example
 * ```ts
 * import { approvalInbox, InboxError } from "@sluice/mcp/inbox";
 * import { MemoryApprovalStore } from "@sluice/mcp";
 * try {
 *   // @ts-expect-error: authorize is required, there is no default that lets everyone in
 *   approvalInbox({ store: new MemoryApprovalStore() });
 * } catch (error) {
 *   console.assert(error instanceof InboxError && error.code === "inbox_options_invalid");
 * }
 * ```
 *
 * @category Approval inbox
 */
export class InboxError extends SluiceError<InboxErrorCode> {
  /**
   * Creates the error.
   *
   * @param code stable error code
   * @param message explanation written by sluice
   */
  constructor(code: InboxErrorCode, message: string) {
    super(code, message);
    this.name = "InboxError";
  }
}
