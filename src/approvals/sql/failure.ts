/**
 * Driver failures as sluice's own errors: the code says what happened, the message never carries
 * driver text (which can name paths, hosts or values), the original is kept as `cause`.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import type { DriverFailure } from "./connection.ts";

/**
 * An {@link ApprovalError} for a failure while `doing`: `approval_store_busy` when another
 * connection held a lock too long, `approval_store_error` otherwise, naming at most the driver's
 * code. An `ApprovalError` passes through unchanged.
 *
 * @category Approvals
 */
export function storeFailure(
  error: unknown,
  failure: DriverFailure,
  doing: string,
): ApprovalError {
  if (error instanceof ApprovalError) return error;
  const code = failure.busy ? "approval_store_busy" : "approval_store_error";
  const wrapped = new ApprovalError(
    code,
    failure.busy
      ? `the approval database stayed locked by another connection while ${doing}`
      : `the approval database failed while ${doing}` +
        (failure.code !== undefined && /^[A-Z0-9_]{1,64}$/.test(failure.code)
          ? ` (${failure.code})`
          : ""),
  );
  Object.defineProperty(wrapped, "cause", { value: error, enumerable: false });
  return wrapped;
}

/**
 * The `code` property of a driver error, when it is a string.
 *
 * @category Approvals
 */
export function driverCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
