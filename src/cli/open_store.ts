/**
 * Opens the durable approval store a URL names, for the `sluice` command line and the end-to-end
 * tests: `postgres://` / `postgresql://` is the PostgreSQL store (password from
 * `SLUICE_APPROVALS_DB_PASSWORD` when set), anything else the libSQL store (a path, `file:`,
 * `libsql:`, `https:`). Not part of `mod.ts`: it loads both stores' drivers.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/mod.ts";
import { LibsqlApprovalStore } from "../approvals/libsql/store.ts";
import { PostgresApprovalStore } from "../approvals/postgres/store.ts";

/**
 * The store at `url`; `password` is used by the PostgreSQL store only.
 *
 * @category CLI
 */
export function openStoreByUrl(url: string, password?: string): Promise<ApprovalStore> {
  return /^postgres(ql)?:/.test(url)
    ? PostgresApprovalStore.open(url, password === undefined ? {} : { password })
    : LibsqlApprovalStore.open(url);
}
