import { ApprovalError } from "./errors.ts";
import type { ApprovalStore } from "./types.ts";

/**
 * Options of {@link assertDurableStore}.
 *
 * @category Approvals
 */
export interface DurableStoreOptions {
  /**
   * Lets a non-durable store (such as `MemoryApprovalStore`) gate writes. Only for tests: a
   * crash then loses the record of a claimed write.
   */
  readonly allowNonDurableStoreForTests?: boolean;
}

/**
 * Refuses a store that does not survive a crash, unless the host explicitly allowed it for
 * tests. Throws `ApprovalError` with code `approval_store_not_durable`.
 *
 * @example
 * ```ts
 * import { assertDurableStore, MemoryApprovalStore } from "@sluice/mcp";
 * const store = new MemoryApprovalStore();
 * assertDurableStore(store, { allowNonDurableStoreForTests: true }); // passes
 * ```
 *
 * @category Approvals
 */
export function assertDurableStore(
  store: Pick<ApprovalStore, "durable">,
  options: DurableStoreOptions = {},
): void {
  if (store.durable === true) return;
  if (options.allowNonDurableStoreForTests === true) return;
  throw new ApprovalError(
    "approval_store_not_durable",
    "writes need a durable approval store; pass allowNonDurableStoreForTests only in tests",
  );
}
