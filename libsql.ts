/**
 * The durable libSQL approval store, in its own entry so that bundles which do not use it never
 * load a native driver or `@libsql/client`.
 *
 * @example
 * ```ts
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * ```
 *
 * @module
 */
export {
  LibsqlApprovalStore,
  type LibsqlApprovalStoreOptions,
} from "./src/approvals/libsql/store.ts";
export { resolveStoreUrl, type StoreLocation } from "./src/approvals/libsql/url.ts";
export type { DurabilitySettings } from "./src/approvals/libsql/durability.ts";
export * from "./src/approvals/sql/mod.ts";
// The store's record and input types, so this entry documents itself completely.
export type * from "./src/approvals/types.ts";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "./src/identity/mod.ts";
export { LibsqlTokenStore, type LibsqlTokenStoreOptions } from "./src/auth/libsql_token_store.ts";
