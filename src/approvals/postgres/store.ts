/**
 * The durable approval store on PostgreSQL, for several hosts sharing one approval database.
 *
 * @module
 */
import { openSchema } from "../sql/migrate.ts";
import { SqlApprovalStore } from "../sql/store.ts";
import type { ApprovalStoreOptions } from "../types.ts";
import { loadOptional } from "../../optional_packages.ts";
import type { PostgresConnection } from "./connection.ts";
import { POSTGRES_SCHEMA } from "./schema_check.ts";
import { checkPostgresUrl } from "./url.ts";

/**
 * Options of {@link PostgresApprovalStore.open}.
 *
 * @category Approvals
 */
export interface PostgresApprovalStoreOptions extends ApprovalStoreOptions {
  /** The database password, when the server asks for one; never put it in the URL. */
  readonly password?: string;
  /**
   * How long a call waits for a row another connection has locked, in milliseconds (default
   * 10 000; PostgreSQL's `lock_timeout`). The wait happens on the socket, not in the event loop.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Connections in the store's pool (default 4). A transaction holds one for its one round trip;
   * a lone statement or read shares one with others, queued behind them.
   */
  readonly maxConnections?: number;
}

/**
 * The durable approval store on PostgreSQL (driver `postgres`, which runs on Deno, Bun, Node and
 * Workers). The same SQL as on libSQL: each state change is one conditional
 * `UPDATE ... RETURNING` guarded by the state it leaves; a refused claim writes two statements in
 * one transaction. Triggers and named constraints enforce the state machine in the database;
 * `open()` applies versioned migrations and refuses a database whose triggers or constraints were
 * changed (`approval_store_schema_invalid`).
 *
 * Isolation: `READ COMMITTED` (PostgreSQL's default) with row locks. Two claims of one approval
 * both try `UPDATE approvals SET state = 'claimed' ... WHERE id = $1 AND state = 'approved' ...`;
 * the second blocks on the first's row lock, and when the first commits PostgreSQL re-checks the
 * second's `WHERE` against the new row version (`state` is now `claimed`), so it updates nothing:
 * exactly one claim wins, with no serialization failures to retry.
 *
 * @example
 * ```ts
 * import { PostgresApprovalStore } from "@sluice/mcp/postgres";
 * const store = await PostgresApprovalStore.open("postgres://sluice@db.internal/approvals", {
 *   password: Deno.env.get("SLUICE_DB_PASSWORD"),
 * });
 * console.log(await store.list({ state: "pending" }));
 * await store.close();
 * ```
 *
 * @category Approvals
 */
export class PostgresApprovalStore extends SqlApprovalStore {
  private constructor(connection: PostgresConnection, now: () => number) {
    super({ connection, durable: true, now });
  }

  /**
   * Connects, applies missing migrations and checks the schema. Throws
   * `approval_store_url_invalid` for a bad connection string, `approval_store_schema_too_new` for
   * a database written by a newer sluice, `approval_store_schema_invalid` for a schema changed
   * outside sluice, `approval_store_error` when the server cannot be reached or refuses.
   *
   * @param url `postgres://user@host:port/database?sslmode=...`
   * @param options `password`, `busyTimeoutMs`, `maxConnections`, and `now` (injectable clock)
   */
  static async open(
    url: string,
    options: PostgresApprovalStoreOptions = {},
  ): Promise<PostgresApprovalStore> {
    const checked = checkPostgresUrl(url);
    // The driver is an optional npm package: loaded here, a missing one is `dependency_missing`.
    const { PostgresConnection } = await loadOptional("postgres", () => import("./connection.ts"));
    const connection = PostgresConnection.open(checked, {
      ...(options.password === undefined ? {} : { password: options.password }),
      lockTimeoutMs: options.busyTimeoutMs ?? 10_000,
      max: options.maxConnections ?? 4,
    });
    await openSchema(connection, POSTGRES_SCHEMA);
    return new PostgresApprovalStore(connection, options.now ?? Date.now);
  }
}
