/**
 * Opens the durable store a test names by URL: `postgres://...` is the PostgreSQL store, anything
 * else (a path, `file:`) the libSQL store. Lets one end-to-end suite run on every store.
 *
 * @module
 */
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";

/** The store at `url`. */
export function openStore(url: string): Promise<ApprovalStore> {
  return /^postgres(ql)?:/.test(url)
    ? PostgresApprovalStore.open(url)
    : LibsqlApprovalStore.open(url);
}
