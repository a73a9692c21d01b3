/**
 * A libSQL server (`libsql:`, `https:`, `wss:`; Turso) through `@libsql/client`, as a
 * {@link SqlConnection}: each batch is one `write` batch of the client, atomic on the server.
 *
 * @module
 */
import { type Client, createClient, type InValue } from "@libsql/client";
import type { DriverFailure, SqlConnection, SqlResult, SqlStatement } from "../sql/connection.ts";
import type { Fields } from "../sql/rows.ts";
import { describeSqliteFailure, SQLITE_DIALECT } from "../sqlite/dialect.ts";

const toClient = (statement: SqlStatement) => ({
  sql: statement.sql,
  args: statement.args as InValue[],
});

/**
 * A libSQL server connection.
 *
 * @category Approvals
 */
export class RemoteConnection implements SqlConnection {
  /** SQLite's dialect. */
  readonly dialect = SQLITE_DIALECT;
  readonly #client: Client;

  private constructor(client: Client) {
    this.#client = client;
  }

  /** Connects to the server at `url` with `authToken`; `timeoutMs` bounds each request. */
  static open(url: string, authToken: string | undefined, timeoutMs: number): RemoteConnection {
    return new RemoteConnection(createClient({
      url,
      ...(authToken === undefined ? {} : { authToken }),
      intMode: "number",
      timeout: timeoutMs,
    }));
  }

  /**
   * Runs the statements as one write batch. The server decides its own durability:
   * `CommitOptions` are not taken, every commit is as durable as the server makes it.
   */
  async batch(statements: readonly SqlStatement[]): Promise<SqlResult[]> {
    const results = await this.#client.batch(statements.map(toClient), "write");
    return results.map((result) => ({
      rows: result.rows as unknown as Fields[],
      changes: result.rowsAffected,
    }));
  }

  /** Runs one read. */
  async query(statement: SqlStatement): Promise<Fields[]> {
    return (await this.#client.execute(toClient(statement))).rows as unknown as Fields[];
  }

  /** SQLite's busy and locked codes mean busy. */
  describe(error: unknown): DriverFailure {
    return describeSqliteFailure(error);
  }

  /** Closes the client. */
  close(): Promise<void> {
    this.#client.close();
    return Promise.resolve();
  }
}
