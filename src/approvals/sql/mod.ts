/**
 * The one SQL approval store and its driver contract, re-exported by every database's entry
 * (`@sluice/mcp/libsql`, `/postgres`, `/d1`) so each documents itself completely.
 *
 * @module
 */
export { SqlApprovalStore, type SqlApprovalStoreParts } from "./store.ts";
export type {
  DriverFailure,
  SqlConnection,
  SqlDialect,
  SqlResult,
  SqlStatement,
} from "./connection.ts";
export type { Fields, SqlValue } from "./rows.ts";
// The store's record and input types.
export type * from "../types.ts";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "../../identity/mod.ts";
