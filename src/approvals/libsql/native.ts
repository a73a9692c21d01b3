/**
 * An embedded libSQL file (or `:memory:`) on the native `libsql` driver, the engine under
 * `@libsql/client`: statements are prepared once per connection and reused, the driver's own busy
 * wait is off (`busy_timeout = 0`) and a locked database is waited for asynchronously
 * ({@link retryWhileBusy}), so no call stalls the event loop while another process holds the lock.
 *
 * The driver is synchronous: a batch runs from `BEGIN IMMEDIATE` to `COMMIT` without yielding, so
 * two calls of one store never interleave inside a transaction and no queue is needed.
 *
 * @module
 */
import Database from "libsql";
import type { DriverFailure, SqlConnection, SqlResult, SqlStatement } from "../sql/connection.ts";
import { retryWhileBusy } from "../sql/retry.ts";
import type { Fields } from "../sql/rows.ts";
import { describeSqliteFailure, SQLITE_DIALECT } from "../sqlite/dialect.ts";
import { checkDurability, type DurabilitySettings, readDurability } from "./durability.ts";

type Connection = InstanceType<typeof Database>;
/** The part of the driver's prepared statement the connection uses. */
interface Statement {
  readonly reader: boolean;
  all(...args: unknown[]): unknown[];
  get(...args: unknown[]): unknown;
  run(...args: unknown[]): { readonly changes: number };
  raw(on: boolean): Statement;
}

const isBusy = (error: unknown) => describeSqliteFailure(error).busy;

/** Statements kept prepared per connection; far more than the store's few dozen texts. */
const STATEMENT_LIMIT = 256;

/**
 * A native libSQL connection as a {@link SqlConnection}.
 *
 * @category Approvals
 */
export class NativeConnection implements SqlConnection {
  /** SQLite's dialect. */
  readonly dialect = SQLITE_DIALECT;
  readonly #db: Connection;
  readonly #timeoutMs: number;
  readonly #statements = new Map<string, Statement>();

  private constructor(db: Connection, timeoutMs: number) {
    this.#db = db;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Opens `path` (a `file:` URL or `:memory:`). A file is put in WAL mode with
   * `synchronous=FULL`, read back and checked (`approval_store_not_durable` otherwise).
   */
  static async open(path: string, timeoutMs: number, file: boolean): Promise<NativeConnection> {
    const db = new Database(path, { timeout: 0 });
    const connection = new NativeConnection(db, timeoutMs);
    try {
      await retryWhileBusy(() => db.exec("PRAGMA busy_timeout = 0"), isBusy, timeoutMs);
      if (file) {
        await retryWhileBusy(() => db.exec("PRAGMA journal_mode = WAL"), isBusy, timeoutMs);
        db.exec("PRAGMA synchronous = FULL");
        checkDurability(await connection.durability());
      }
      return connection;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * The connection's journal mode, synchronous level and driver busy timeout, read back (the
   * busy timeout is 0: the store waits for a lock asynchronously instead).
   */
  durability(): Promise<DurabilitySettings> {
    return readDurability((pragma) =>
      Promise.resolve((this.#statement(`PRAGMA ${pragma}`).raw(true).get() as unknown[])?.[0])
    );
  }

  /** Runs the statements in one `BEGIN IMMEDIATE` transaction (one statement on its own). */
  batch(statements: readonly SqlStatement[]): Promise<SqlResult[]> {
    return retryWhileBusy(() => this.#batchNow(statements), isBusy, this.#timeoutMs);
  }

  /** Runs one read. */
  query(statement: SqlStatement): Promise<Fields[]> {
    return retryWhileBusy(() => this.#execute(statement).rows, isBusy, this.#timeoutMs);
  }

  /** SQLite's busy and locked codes mean busy. */
  describe(error: unknown): DriverFailure {
    return describeSqliteFailure(error);
  }

  /** Closes the database. */
  close(): Promise<void> {
    this.#statements.clear();
    this.#db.close();
    return Promise.resolve();
  }

  #batchNow(statements: readonly SqlStatement[]): SqlResult[] {
    // One statement is atomic on its own (its triggers included): no BEGIN/COMMIT round.
    if (statements.length === 1) return [this.#execute(statements[0])];
    this.#statement("BEGIN IMMEDIATE").run();
    try {
      const results = statements.map((statement) => this.#execute(statement));
      this.#statement("COMMIT").run();
      return results;
    } catch (error) {
      if (this.#db.inTransaction) this.#statement("ROLLBACK").run();
      throw error;
    }
  }

  #execute(statement: SqlStatement): SqlResult {
    const prepared = this.#statement(statement.sql);
    if (prepared.reader) {
      const rows = prepared.all(...statement.args) as Fields[];
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: prepared.run(...statement.args).changes };
  }

  #statement(sql: string): Statement {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      prepared = this.#db.prepare(sql) as unknown as Statement;
      if (this.#statements.size >= STATEMENT_LIMIT) {
        this.#statements.delete(this.#statements.keys().next().value!);
      }
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}
