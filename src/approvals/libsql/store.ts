/**
 * The durable approval store on libSQL: an embedded file by default (native `libsql` driver), a
 * libSQL server at scale (`@libsql/client`). Exported only from the separate
 * `@sluice/mcp/libsql` entry, so bundles that do not use it never load a native driver.
 *
 * @module
 */
import { storeFailure } from "../sql/failure.ts";
import { openSchema } from "../sql/migrate.ts";
import { SqlApprovalStore } from "../sql/store.ts";
import { describeSqliteFailure } from "../sqlite/dialect.ts";
import { SQLITE_SCHEMA } from "../sqlite/schema_check.ts";
import type { ApprovalStoreOptions } from "../types.ts";
import { type DurabilitySettings, readDurability } from "./durability.ts";
import { loadOptional } from "../../optional_packages.ts";
import type { NativeConnection } from "./native.ts";
import type { RemoteConnection } from "./remote.ts";
import { resolveStoreUrl, type StoreLocation } from "./url.ts";

/**
 * Options of {@link LibsqlApprovalStore.open}.
 *
 * @category Approvals
 */
export interface LibsqlApprovalStoreOptions extends ApprovalStoreOptions {
  /** Token for a libSQL server (`libsql:` / `https:`); never put it in the URL. */
  readonly authToken?: string;
  /**
   * How long a call waits for another connection's lock, in milliseconds (default 10 000). The
   * wait is asynchronous: the event loop keeps running while the store waits.
   */
  readonly busyTimeoutMs?: number;
}

/**
 * The durable approval store on libSQL. Every state change is one conditional `UPDATE` (a
 * refused claim: two, in one `BEGIN IMMEDIATE` transaction) that records its facts in write-once
 * columns; the claim's affected row decides who got it. Triggers in the schema enforce the same
 * state machine, so a bug or a hand-written `UPDATE` cannot move an approval backwards; `open()`
 * refuses a database whose triggers or tables were changed (`approval_store_schema_invalid`).
 *
 * On a local file the store runs in WAL mode with `synchronous=FULL` and checks both at open; it
 * uses the native `libsql` driver with statements prepared once, and waits for another process's
 * lock asynchronously.
 *
 * @example
 * ```ts
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * console.log(await store.list({ state: "pending" }));
 * await store.close();
 * ```
 *
 * @category Approvals
 */
export class LibsqlApprovalStore extends SqlApprovalStore {
  /** Where the store lives. */
  readonly location: StoreLocation;
  readonly #connection: NativeConnection | RemoteConnection;

  private constructor(
    connection: NativeConnection | RemoteConnection,
    location: StoreLocation,
    now: () => number,
  ) {
    super({ connection, durable: location.kind !== "memory", now });
    this.#connection = connection;
    this.location = location;
  }

  /**
   * Opens (and creates or migrates) a store. Throws `approval_store_not_durable` when a local
   * file does not keep WAL and `synchronous=FULL`, `approval_store_schema_too_new` when the
   * database was written by a newer sluice, `approval_store_schema_invalid` when its schema was
   * changed outside sluice, `approval_store_error` when the driver cannot open it.
   *
   * @param url a path, `file:` URL, `:memory:`, or a `libsql:` / `https:` server URL
   * @param options `authToken`, `busyTimeoutMs`, and `now` (injectable clock)
   */
  static async open(
    url: string,
    options: LibsqlApprovalStoreOptions = {},
  ): Promise<LibsqlApprovalStore> {
    const location = resolveStoreUrl(url);
    const timeoutMs = options.busyTimeoutMs ?? 10_000;
    // The drivers are optional npm packages: loaded here, a missing one is `dependency_missing`.
    const driver = location.kind === "remote"
      ? await loadOptional("@libsql/client", () => import("./remote.ts"))
      : await loadOptional("libsql", () => import("./native.ts"));
    let connection: NativeConnection | RemoteConnection;
    try {
      connection = "RemoteConnection" in driver
        ? driver.RemoteConnection.open(location.url, options.authToken, timeoutMs)
        : await driver.NativeConnection.open(location.url, timeoutMs, location.kind === "file");
    } catch (error) {
      throw storeFailure(error, describeSqliteFailure(error), "opening it");
    }
    await openSchema(connection, SQLITE_SCHEMA);
    return new LibsqlApprovalStore(connection, location, options.now ?? Date.now);
  }

  /**
   * Reads the durability settings of the store's connection (journal mode, synchronous level)
   * and how long it waits for a lock, for operators and tests. A libSQL server reports its own
   * values or none.
   */
  durability(): Promise<DurabilitySettings> {
    const connection = this.#connection;
    if ("durability" in connection) return connection.durability();
    return readDurability(async (pragma) => {
      const [row] = await connection.query({ sql: `PRAGMA ${pragma}`, args: [] });
      return row === undefined ? undefined : Object.values(row)[0];
    });
  }
}
