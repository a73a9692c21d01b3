/**
 * The durable libSQL approval store, in its own entry so that bundles which do not use it never
 * load `@libsql/client`.
 *
 * @example
 * ```ts ignore
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * ```
 *
 * @module
 */
export {
  LibsqlApprovalStore,
  type LibsqlApprovalStoreOptions,
  resolveStoreUrl,
  type StoreLocation,
} from "./src/approvals/libsql.ts";
export type { DurabilitySettings } from "./src/approvals/durability.ts";
