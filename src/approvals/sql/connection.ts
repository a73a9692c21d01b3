/**
 * The contract between the one SQL approval store and a database driver: atomic batches of
 * statements, reads, and a description of what a driver failure means. Each database adapts its
 * driver to it (`libsql/native.ts`, `libsql/remote.ts`, `postgres/connection.ts`,
 * `d1/connection.ts`); the store's logic is written once against it.
 *
 * @module
 */
import type { CommitOptions } from "../types.ts";
import type { Fields, SqlValue } from "./rows.ts";

/**
 * One statement with `?` placeholders and their values, in order.
 *
 * @category Approvals
 */
export interface SqlStatement {
  /** SQL text; every parameter is a `?` (a driver renumbers them if its database needs it). */
  readonly sql: string;
  /** The parameters' values. */
  readonly args: readonly SqlValue[];
}

/**
 * What one statement of a batch did.
 *
 * @category Approvals
 */
export interface SqlResult {
  /** The rows it returned (a `SELECT`, or `RETURNING`). */
  readonly rows: Fields[];
  /** How many rows it inserted, updated or deleted. */
  readonly changes: number;
}

/**
 * What a driver failure means for the caller.
 *
 * @category Approvals
 */
export interface DriverFailure {
  /** Another connection held a lock the operation needed for longer than the store waits. */
  readonly busy: boolean;
  /** The driver's own error code (`SQLITE_IOERR`, `40001`, ...), if it names one. */
  readonly code?: string;
}

/**
 * How one database speaks the store's SQL.
 *
 * @category Approvals
 */
export interface SqlDialect {
  /** A select list returning a whole approval row (one column or many). */
  readonly record: string;
  /** Turns one row selected with {@link record} into fields by column name. */
  decode(row: Fields): Fields;
  /** The `ORDER BY` expression listing approvals in insertion order. */
  readonly insertionOrder: string;
  /**
   * Whether {@link SqlResult.changes} counts exactly the rows a statement changed, not those its
   * triggers changed too. When not, the store has every write return its rows and counts those.
   */
  readonly exactChanges: boolean;
  /**
   * What ends a `SELECT` that locks the rows it reads until the transaction ends (` FOR UPDATE`),
   * on a database whose writers otherwise run side by side; absent where writes are serialized.
   */
  readonly rowLock?: string;
}

/**
 * A database the store runs on.
 *
 * @category Approvals
 */
export interface SqlConnection {
  /** The dialect of its SQL. */
  readonly dialect: SqlDialect;
  /**
   * Runs the statements in order as one atomic transaction and returns what each did. Nothing
   * of a batch that throws is kept. `options.sync: "with_next"` lets the commit ride on the next
   * synced one where the database can ({@link CommitOptions}); a driver that cannot ignores it.
   */
  batch(statements: readonly SqlStatement[], options?: CommitOptions): Promise<SqlResult[]>;
  /** Runs one read. */
  query(statement: SqlStatement): Promise<Fields[]>;
  /** Says what a failure thrown by {@link batch} or {@link query} means. */
  describe(error: unknown): DriverFailure;
  /** Releases the connection. */
  close(): Promise<void>;
}
