/**
 * The durable Cloudflare D1 approval store, for Workers: no native code and no driver, only the
 * Worker's D1 binding.
 *
 * @example
 * ```ts
 * import { D1ApprovalStore, type D1DatabaseLike } from "@sluice/mcp/d1";
 * declare const env: { DB: D1DatabaseLike }; // the Worker's D1 binding
 * const store = await D1ApprovalStore.open(env.DB);
 * ```
 *
 * @module
 */
export { D1ApprovalStore } from "./src/approvals/d1/store.ts";
export type {
  D1DatabaseLike,
  D1PreparedStatementLike,
  D1ResultLike,
} from "./src/approvals/d1/connection.ts";
export * from "./src/approvals/sql/mod.ts";
