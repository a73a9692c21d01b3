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
import type { DriverFailure, SqlConnection, SqlStatement } from "../sql/connection.ts";
import type { Fields } from "../sql/rows.ts";
import { describeSqliteFailure, SQLITE_DIALECT } from "../sqlite/dialect.ts";

/** The part of D1's prepared statement the store uses. */
export interface D1PreparedStatementLike {
  /** Binds the parameters, in order. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs the statement and returns its rows. */
  all(): Promise<{ readonly results?: readonly unknown[] }>;
}

/** The part of a D1 binding (`env.DB`) the store uses. */
export interface D1DatabaseLike {
  /** Prepares one statement. */
  prepare(sql: string): D1PreparedStatementLike;
  /** Runs statements as one transaction and returns each one's rows. */
  batch(
    statements: D1PreparedStatementLike[],
  ): Promise<readonly { readonly results?: readonly unknown[] }[]>;
}

/** A D1 binding as a {@link SqlConnection}. */
export class D1Connection implements SqlConnection {
  /** SQLite's dialect. */
  readonly dialect = SQLITE_DIALECT;
  readonly #db: D1DatabaseLike;

  /** Wraps the binding. */
  constructor(db: D1DatabaseLike) {
    this.#db = db;
  }

  /** Runs one statement on its own, several as one D1 batch. */
  async batch(statements: readonly SqlStatement[]): Promise<Fields[][]> {
    if (statements.length === 1) return [await this.query(statements[0])];
    const results = await this.#db.batch(statements.map((statement) => this.#bind(statement)));
    return results.map((result) => (result.results ?? []) as Fields[]);
  }

  /** Runs one statement. */
  async query(statement: SqlStatement): Promise<Fields[]> {
    return ((await this.#bind(statement).all()).results ?? []) as Fields[];
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
