/**
 * PostgreSQL through the `postgres` driver (Deno, Bun, Node, Workers) as a {@link SqlConnection}:
 * a pool of connections, `?` placeholders renumbered to `$n` once per statement text, statements
 * prepared by the server and reused, a batch of several statements in one transaction. Waiting
 * for a row lock happens on the socket, never in the event loop; `lock_timeout` bounds it.
 *
 * @module
 */
import postgres from "postgres";
import type { CommitOptions } from "../types.ts";
import type { DriverFailure, SqlConnection, SqlResult, SqlStatement } from "../sql/connection.ts";
import { driverCode } from "../sql/failure.ts";
import type { Fields } from "../sql/rows.ts";
import { POSTGRES_DIALECT } from "./dialect.ts";

/** SQLSTATEs that mean another transaction held what this one needed for too long. */
const BUSY_CODES = new Set(["55P03", "40001", "40P01"]);

/**
 * Options of {@link PostgresConnection.open}.
 *
 * @category Approvals
 */
export interface PostgresConnectionOptions {
  /** The password, when the server asks for one. */
  readonly password?: string;
  /** The longest wait for a row lock, in milliseconds. */
  readonly lockTimeoutMs: number;
  /** Connections in the pool. */
  readonly max: number;
}

type Sql = ReturnType<typeof postgres>;

/**
 * A pool of PostgreSQL connections.
 *
 * @category Approvals
 */
export class PostgresConnection implements SqlConnection {
  /** PostgreSQL's dialect. */
  readonly dialect = POSTGRES_DIALECT;
  readonly #sql: Sql;
  /** The pool whose sessions run `synchronous_commit = off`, for `sync: "with_next"` batches. */
  readonly #later: Sql;
  readonly #numbered = new Map<string, string>();

  private constructor(sql: Sql, later: Sql) {
    this.#sql = sql;
    this.#later = later;
  }

  /**
   * Two pools for `url`, of `max` connections each, opened on first use: one for synced
   * commits, one whose sessions set `synchronous_commit = off` at connect, for
   * `sync: "with_next"` batches (inline decisions only; it stays empty otherwise).
   */
  static open(url: string, options: PostgresConnectionOptions): PostgresConnection {
    const pool = (synchronousCommit: "on" | "off") =>
      postgres(url, {
        max: options.max,
        ...(options.password === undefined ? {} : { password: options.password }),
        prepare: true,
        onnotice: () => {},
        connection: {
          application_name: "sluice",
          lock_timeout: Math.max(1, Math.trunc(options.lockTimeoutMs)),
          synchronous_commit: synchronousCommit,
        },
      });
    return new PostgresConnection(pool("on"), pool("off"));
  }

  /**
   * Runs one statement on its own (atomic), several in one transaction, pipelined. A `sync: "with_next"`
   * batch runs on the pool whose sessions have `synchronous_commit = off` (set at connect, so it
   * costs no round trip): its commit returns before the server flushes its WAL, and the next
   * commit that waits for the flush (every other one, on either pool) makes it durable too. A
   * crash of this process keeps it (the server has it); a crash of the server before that
   * flush may lose it.
   */
  async batch(statements: readonly SqlStatement[], options?: CommitOptions): Promise<SqlResult[]> {
    const sql = options?.sync === "with_next" ? this.#later : this.#sql;
    if (statements.length === 1) return [await this.#run(sql, statements[0])];
    // Sent back to back on the transaction's connection (the driver pipelines them; the server
    // runs them in order): one round trip for the statements instead of one each. The first
    // failure fails the transaction, which rolls back.
    return await sql.begin((tx) =>
      Promise.all(statements.map((statement) => this.#run(tx, statement)))
    ) as SqlResult[];
  }

  /** Runs one statement. */
  async query(statement: SqlStatement): Promise<Fields[]> {
    return (await this.#run(this.#sql, statement)).rows;
  }

  /** Lock timeouts, serialization failures and deadlocks are busy. */
  describe(error: unknown): DriverFailure {
    const code = driverCode(error);
    return {
      busy: code !== undefined && BUSY_CODES.has(code),
      ...(code === undefined ? {} : { code }),
    };
  }

  /** Ends every connection of both pools. */
  async close(): Promise<void> {
    await Promise.all([this.#sql.end({ timeout: 5 }), this.#later.end({ timeout: 5 })]);
  }

  async #run(sql: Sql | postgres.TransactionSql, statement: SqlStatement): Promise<SqlResult> {
    const rows = await sql.unsafe(
      this.#text(statement.sql),
      statement.args as postgres.ParameterOrJSON<never>[],
    );
    return { rows: [...rows] as unknown as Fields[], changes: rows.count };
  }

  /** The statement with `$1`, `$2`, ... for its `?` (the store's SQL has no `?` in literals). */
  #text(sql: string): string {
    let text = this.#numbered.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      this.#numbered.set(sql, text);
    }
    return text;
  }
}
