/**
 * The durable PostgreSQL approval store, in its own entry so that bundles which do not use it
 * never load the `postgres` driver.
 *
 * @example
 * ```ts
 * import { PostgresApprovalStore } from "@sluice/mcp/postgres";
 * const store = await PostgresApprovalStore.open("postgres://sluice@localhost/approvals");
 * ```
 *
 * @module
 */
export {
  PostgresApprovalStore,
  type PostgresApprovalStoreOptions,
} from "./src/approvals/postgres/store.ts";
export { checkPostgresUrl } from "./src/approvals/postgres/url.ts";
export * from "./src/approvals/sql/mod.ts";
