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
/**
 * The part of the driver's prepared statement the connection uses. A single array argument binds
 * its values in order, as the driver's spread form does after flattening its arguments.
 */
interface Statement {
  readonly reader: boolean;
  all(args?: readonly unknown[]): unknown[];
  get(args?: readonly unknown[]): unknown;
  run(args: readonly unknown[]): { readonly changes: number };
  raw(on: boolean): Statement;
}

/** A statement prepared once, with whether it returns rows (a native call, asked once too). */
interface Prepared {
  readonly statement: Statement;
  readonly reader: boolean;
}

const NO_ARGS: readonly unknown[] = Object.freeze([]);
/** The rows of a write without `RETURNING`: none (shared, never written to). */
const NO_ROWS: Fields[] = Object.freeze([]) as unknown as Fields[];

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
  readonly #statements = new Map<string, Prepared>();

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
      Promise.resolve(
        (this.#statement(`PRAGMA ${pragma}`).statement.raw(true).get() as unknown[])?.[0],
      )
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
    this.#statement("BEGIN IMMEDIATE").statement.run(NO_ARGS);
    try {
      const results = statements.map((statement) => this.#execute(statement));
      this.#statement("COMMIT").statement.run(NO_ARGS);
      return results;
    } catch (error) {
      if (this.#db.inTransaction) this.#statement("ROLLBACK").statement.run(NO_ARGS);
      throw error;
    }
  }

  #execute({ sql, args }: SqlStatement): SqlResult {
    const { statement, reader } = this.#statement(sql);
    if (reader) {
      const rows = statement.all(args) as Fields[];
      return { rows, changes: rows.length };
    }
    return { rows: NO_ROWS, changes: statement.run(args).changes };
  }

  #statement(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      const statement = this.#db.prepare(sql) as unknown as Statement;
      prepared = { statement, reader: statement.reader };
      if (this.#statements.size >= STATEMENT_LIMIT) {
        this.#statements.delete(this.#statements.keys().next().value!);
      }
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}
