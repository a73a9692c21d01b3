/**
 * The durable approval store on Cloudflare D1, for Workers.
 *
 * @module
 */
import { openSchema } from "../sql/migrate.ts";
import { SqlApprovalStore } from "../sql/store.ts";
import { SQLITE_SCHEMA } from "../sqlite/schema_check.ts";
import type { ApprovalStoreOptions } from "../types.ts";
import { D1Connection, type D1DatabaseLike } from "./connection.ts";

/**
 * The durable approval store on a D1 database: the same SQLite schema, triggers and claim as the
 * libSQL store, run as single statements and D1 batches (a refused claim's two statements are one
 * batch, which D1 runs as one transaction). D1 serializes every write to a database, so of several
 * Workers claiming one approval exactly one conditional `UPDATE` changes the row. `open()` applies
 * versioned migrations and refuses a database whose triggers or tables were changed
 * (`approval_store_schema_invalid`).
 *
 * @example
 * ```ts
 * import { D1ApprovalStore, type D1DatabaseLike } from "@sluice/mcp/d1";
 * export default {
 *   async fetch(request: Request, env: { DB: D1DatabaseLike }) {
 *     const store = await D1ApprovalStore.open(env.DB);
 *     return Response.json(await store.list({ state: "pending" }));
 *   },
 * };
 * ```
 *
 * @category Approvals
 */
export class D1ApprovalStore extends SqlApprovalStore {
  private constructor(connection: D1Connection, now: () => number) {
    super({ connection, durable: true, now });
  }

  /**
   * Applies missing migrations to the binding's database and checks its schema. Throws
   * `approval_store_schema_too_new` for a database written by a newer sluice,
   * `approval_store_schema_invalid` for a schema changed outside sluice, `approval_store_error`
   * when D1 fails.
   *
   * @param db the D1 binding (`env.DB`)
   * @param options `now` (injectable clock)
   */
  static async open(
    db: D1DatabaseLike,
    options: ApprovalStoreOptions = {},
  ): Promise<D1ApprovalStore> {
    const connection = new D1Connection(db);
    await openSchema(connection, SQLITE_SCHEMA);
    return new D1ApprovalStore(connection, options.now ?? Date.now);
  }
}
