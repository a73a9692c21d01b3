/**
 * Cloudflare D1 as a {@link SqlConnection}: one statement runs on its own, several as one
 * `batch` (D1 runs a batch as a single transaction and rolls it back whole on any failure). D1
 * has no interactive transactions, which the store does not need: every decision is a
 * conditional statement.
 *
 * The binding's types are written here structurally, so sluice needs no Workers type package.
 *
 * @module
 */
import type {
  DriverFailure,
  SqlConnection,
  SqlDialect,
  SqlResult,
  SqlStatement,
} from "../sql/connection.ts";
import type { Fields } from "../sql/rows.ts";
import { describeSqliteFailure, SQLITE_DIALECT } from "../sqlite/dialect.ts";

/**
 * The part of a D1 result the store reads.
 *
 * @category Approvals
 */
export interface D1ResultLike {
  /** The rows returned. */
  readonly results?: readonly unknown[];
  /** `changes`: rows inserted, updated or deleted. */
  readonly meta?: { readonly changes?: number };
}

/**
 * The part of D1's prepared statement the store uses.
 *
 * @category Approvals
 */
export interface D1PreparedStatementLike {
  /** Binds the parameters, in order. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs the statement and returns its rows and how many rows it changed. */
  all(): Promise<D1ResultLike>;
}

/**
 * The part of a D1 binding (`env.DB`) the store uses.
 *
 * @category Approvals
 */
export interface D1DatabaseLike {
  /** Prepares one statement. */
  prepare(sql: string): D1PreparedStatementLike;
  /** Runs statements as one transaction and returns each one's rows. */
  batch(
    statements: D1PreparedStatementLike[],
  ): Promise<readonly D1ResultLike[]>;
}

const toResult = (result: D1ResultLike): SqlResult => ({
  rows: (result.results ?? []) as Fields[],
  changes: result.meta?.changes ?? 0,
});

/**
 * A D1 binding as a {@link SqlConnection}.
 *
 * @category Approvals
 */
export class D1Connection implements SqlConnection {
  /** SQLite's dialect; D1's `meta.changes` also counts the rows triggers wrote. */
  readonly dialect: SqlDialect = Object.freeze({ ...SQLITE_DIALECT, exactChanges: false });
  readonly #db: D1DatabaseLike;

  /** Wraps the binding. */
  constructor(db: D1DatabaseLike) {
    this.#db = db;
  }

  /**
   * Runs one statement on its own, several as one D1 batch. D1 decides its own durability:
   * `CommitOptions` are not taken, every commit is as durable as D1 makes it.
   */
  async batch(statements: readonly SqlStatement[]): Promise<SqlResult[]> {
    const results = statements.length === 1
      ? [await this.#bind(statements[0]).all()]
      : await this.#db.batch(statements.map((statement) => this.#bind(statement)));
    return results.map(toResult);
  }

  /** Runs one statement. */
  async query(statement: SqlStatement): Promise<Fields[]> {
    return toResult(await this.#bind(statement).all()).rows;
  }

  /** SQLite's busy and locked codes mean busy; D1 serializes writes itself. */
  describe(error: unknown): DriverFailure {
    return describeSqliteFailure(error);
  }

  /** Nothing to release: the binding belongs to the Worker. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  #bind(statement: SqlStatement): D1PreparedStatementLike {
    const prepared = this.#db.prepare(statement.sql);
    return statement.args.length === 0 ? prepared : prepared.bind(...statement.args);
  }
}
