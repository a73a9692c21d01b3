/**
 * An embedded libSQL file (or `:memory:`) on the native `libsql` driver, the engine under
 * `@libsql/client`: statements are prepared once per connection and reused, the driver's own busy
 * wait is off (`busy_timeout = 0`) and a locked database is waited for asynchronously
 * ({@link retryWhileBusy}), so no call stalls the event loop while another process holds the lock.
 *
 * One transaction at a time per connection, and none open across a wait. Every batch, a single
 * statement included, runs from `BEGIN IMMEDIATE` to `COMMIT` in one synchronous call of the
 * driver, so two calls of one store never interleave inside a transaction. Only `BEGIN IMMEDIATE`
 * meets another connection's lock (in WAL mode a transaction that holds the write lock reads the
 * newest snapshot and cannot be busy after it), and the three transaction statements run through
 * `exec`, which finalizes its statement whatever happens: a busy `BEGIN` leaves nothing behind,
 * and the whole transaction is tried again after an asynchronous pause.
 *
 * Why not the driver's cached statements for them, or one statement without `BEGIN`: the driver
 * resets a statement before it runs it, not after it fails. A write that met the lock stayed
 * active, holding the connection's implicit transaction open while the store waited; the next
 * write of any other call of the same connection joined that transaction, was acknowledged, and
 * was rolled back with it when the waiting statement was reset for its retry (or lost at close).
 *
 * @module
 */
import Database from "libsql";
import type { CommitOptions } from "../types.ts";
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

/** The two `synchronous` levels a file connection runs at. */
type Synchronous = "FULL" | "NORMAL";

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
  /** Whether the database is a file (`synchronous` matters), not `:memory:`. */
  readonly #file: boolean;
  /** The `synchronous` level the connection runs at now (FULL unless a batch asked otherwise). */
  #synchronous: Synchronous = "FULL";

  private constructor(db: Connection, timeoutMs: number, file: boolean) {
    this.#db = db;
    this.#timeoutMs = timeoutMs;
    this.#file = file;
  }

  /**
   * Opens `path` (a `file:` URL or `:memory:`). A file is put in WAL mode with
   * `synchronous=FULL`, read back and checked (`approval_store_not_durable` otherwise).
   */
  static async open(path: string, timeoutMs: number, file: boolean): Promise<NativeConnection> {
    const db = new Database(path, { timeout: 0 });
    const connection = new NativeConnection(db, timeoutMs, file);
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
   * busy timeout is 0: the store waits for a lock asynchronously instead). The synchronous level
   * is the one every synced commit runs at: a connection left at NORMAL by a `with_next` batch
   * is put back to FULL first, as its next synced batch would do.
   */
  durability(): Promise<DurabilitySettings> {
    this.#synchronize("FULL");
    return readDurability((pragma) =>
      Promise.resolve(
        (this.#statement(`PRAGMA ${pragma}`).statement.raw(true).get() as unknown[])?.[0],
      )
    );
  }

  /**
   * Runs the statements in one `BEGIN IMMEDIATE` transaction, tried again as a whole while the
   * database is busy, until the busy timeout. On a
   * file, a `sync: "with_next"` batch commits at `synchronous = NORMAL`: in WAL mode its commit
   * appends to the log without an fsync of its own, and the next batch at FULL (the default)
   * fsyncs the log, that commit and every earlier one with it. The level is switched only when
   * it changes.
   */
  batch(statements: readonly SqlStatement[], options?: CommitOptions): Promise<SqlResult[]> {
    const level: Synchronous = options?.sync === "with_next" ? "NORMAL" : "FULL";
    return retryWhileBusy(
      () => {
        this.#synchronize(level);
        return this.#batchNow(statements);
      },
      isBusy,
      this.#timeoutMs,
    );
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
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const results = statements.map((statement) => this.#execute(statement));
      this.#db.exec("COMMIT");
      return results;
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Sets `PRAGMA synchronous` to `level` on a file when it is not there already. */
  #synchronize(level: Synchronous): void {
    if (!this.#file || this.#synchronous === level) return;
    this.#statement(`PRAGMA synchronous = ${level}`).statement.run(NO_ARGS);
    this.#synchronous = level;
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
