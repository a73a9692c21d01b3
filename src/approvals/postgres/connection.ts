/**
 * PostgreSQL through the `postgres` driver (Deno, Bun, Node, Workers) as a {@link SqlConnection}:
 * a pool of connections, `?` placeholders renumbered to `$n` once per statement text, statements
 * prepared by the server and reused, a batch of several statements in one transaction sent in one
 * piece. Waiting for a row lock happens on the socket, never in the event loop; `lock_timeout`
 * bounds it.
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
type Row = postgres.Row;

/**
 * Whether a failure may have cost the connection: anything but a server's plain `ERROR` (a
 * `FATAL` one, such as a terminated backend, ends the session; the driver's own failures mean
 * the socket broke).
 */
const connectionLost = (error: unknown): boolean =>
  !(error instanceof postgres.PostgresError && error.severity === "ERROR");

/**
 * Waits for every query of a transaction sent on one reserved connection, or for the first that
 * says the connection is gone: the driver then rejects what the server had been sent but never
 * sends what it still held back for that connection (it waits for a statement's first
 * description before pipelining the rest), so those never settle and are never run.
 */
function settle(queries: readonly Promise<postgres.RowList<Row[]>>[]): Promise<{
  values: postgres.RowList<Row[]>[];
  failure?: unknown;
  lost: boolean;
}> {
  return new Promise((resolve) => {
    const values: postgres.RowList<Row[]>[] = [];
    let failure: unknown;
    let left = queries.length;
    const done = () => --left === 0 && resolve({ values, failure, lost: false });
    queries.forEach((query, index) =>
      query.then((value) => {
        values[index] = value;
        done();
      }, (error: unknown) => {
        // The first failure in order is the cause; the later ones say the transaction aborted.
        failure ??= error;
        if (connectionLost(error)) resolve({ values, failure, lost: true });
        else done();
      })
    );
  });
}

/** What one statement did, from the driver's rows. */
const result = (rows: postgres.RowList<Row[]>): SqlResult => ({
  rows: [...rows] as unknown as Fields[],
  changes: rows.count,
});

/**
 * A pool of PostgreSQL connections.
 *
 * @category Approvals
 */
export class PostgresConnection implements SqlConnection {
  /** PostgreSQL's dialect. */
  readonly dialect = POSTGRES_DIALECT;
  readonly #open: () => Sql;
  #sql: Sql;
  /** Pools given up after a connection broke mid-transaction, still ending. */
  readonly #ending = new Set<Promise<void>>();
  readonly #numbered = new Map<string, string>();

  private constructor(open: () => Sql) {
    this.#open = open;
    this.#sql = open();
  }

  /** A pool of `max` connections to `url`, opened on first use. */
  static open(url: string, options: PostgresConnectionOptions): PostgresConnection {
    return new PostgresConnection(() =>
      postgres(url, {
        max: options.max,
        ...(options.password === undefined ? {} : { password: options.password }),
        prepare: true,
        onnotice: () => {},
        connection: {
          application_name: "sluice",
          lock_timeout: Math.max(1, Math.trunc(options.lockTimeoutMs)),
        },
      })
    );
  }

  /**
   * Runs one statement on its own (atomic), several in one transaction. A transaction is sent in
   * one piece (`BEGIN`, the statements, `COMMIT`, pipelined on one connection): one round trip
   * instead of three. A `sync: "with_next"` batch is a transaction that also sets
   * `synchronous_commit = off` for itself (`SET LOCAL`, in the same piece): its commit returns
   * before the server flushes its WAL, and the next commit that waits for the flush makes it
   * durable too. A crash of this process keeps it (the server has it); a crash of the server
   * before that flush may lose it.
   */
  async batch(statements: readonly SqlStatement[], options?: CommitOptions): Promise<SqlResult[]> {
    const later = options?.sync === "with_next";
    if (statements.length === 1 && !later) return [await this.#run(this.#sql, statements[0])];
    const sql = this.#sql;
    const tx = await sql.reserve();
    // Queued in order on the reserved connection and written together; the server runs them in
    // order. The first failure aborts the transaction: the statements after it fail (`25P02`)
    // and the `COMMIT` rolls it back, so nothing of the batch is kept.
    const sent = [
      tx.unsafe("BEGIN").execute(),
      ...(later ? [tx.unsafe("SET LOCAL synchronous_commit = off").execute()] : []),
      ...statements.map((statement) => this.#send(tx, statement)),
      tx.unsafe("COMMIT").execute(),
    ];
    const { values, failure, lost } = await settle(sent);
    if (lost) this.#renew(sql);
    else tx.release();
    if (failure !== undefined) throw failure;
    if (values.at(-1)!.command !== "COMMIT") throw new Error("the transaction was rolled back");
    return values.slice(sent.length - 1 - statements.length, -1).map(result);
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

  /** Ends every connection of the pool. */
  async close(): Promise<void> {
    await Promise.all([this.#sql.end({ timeout: 5 }), ...this.#ending]);
  }

  /**
   * Replaces `broken`, whose reserved connection broke mid-transaction, with a new pool. The
   * driver cannot hand that connection out again safely: returned to the pool it would be
   * written to with no socket, and reconnected for a reservation it reports the old session's
   * error to that reservation and then gives itself to it, so it is never used again. Calls
   * already on the old pool finish there, then it ends.
   */
  #renew(broken: Sql): void {
    if (this.#sql !== broken) return;
    this.#sql = this.#open();
    const ending = broken.end({ timeout: 5 }).catch(() => {});
    this.#ending.add(ending);
    ending.finally(() => this.#ending.delete(ending));
  }

  async #run(sql: Sql, statement: SqlStatement): Promise<SqlResult> {
    return result(await this.#send(sql, statement));
  }

  /**
   * Sends one statement now (a query of the driver runs only once executed or awaited), as a
   * prepared statement: the driver's `unsafe` does not prepare unless told to, whatever the
   * pool's `prepare` says, and then describes every statement with parameters in a round trip
   * of its own before running it (two round trips per statement, and a transaction's pipeline
   * stalls behind each description).
   */
  #send(sql: Sql | postgres.ReservedSql, statement: SqlStatement) {
    return sql.unsafe(
      this.#text(statement.sql),
      statement.args as postgres.ParameterOrJSON<never>[],
      { prepare: true },
    ).execute();
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
