/**
 * The rows of the `approvals` table as `SqlApprovalStore` reads and moves them: insertions, the
 * guarded `UPDATE` of each transition (its text built once per shape), the rows this store last
 * wrote (so a transition it follows need not read the row back), and reads decoded by the
 * database's dialect.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import { assertTransition, requireSameCall, TERMINAL_STATES } from "../machine.ts";
import type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  CommitOptions,
  ListFilter,
} from "../types.ts";
import { INSERT_COLUMNS, WRITE_ONCE_COLUMNS } from "./columns.ts";
import type { SqlConnection, SqlResult, SqlStatement } from "./connection.ts";
import { type Fields, type SqlValue, toRecord } from "./rows.ts";

/** How often a transition is tried again when the row moved between a miss and its reason. */
export const ATTEMPTS = 4;

/** How many rows a store remembers for its next transition (see `move`). */
const SEEN_LIMIT = 1024;

/** The insertion of a new approval; a second one for the same run and call inserts nothing. */
const INSERT_SQL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (run_id, call_id) WHERE run_id IS NOT NULL DO NOTHING`;

/** The insertion of an edited call's approval (the schema refuses it unless its original is superseded by it). */
const INSERT_EDITED_SQL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})`;

/** Every recorded-fact column, empty: what a freshly inserted row holds beside its identity. */
export const NO_FACTS: Readonly<Record<string, null>> = Object.fromEntries(
  WRITE_ONCE_COLUMNS.map((column) => [column, null]),
);

/**
 * Whether a statement changed exactly one row: counted by its returned rows when it has
 * `RETURNING` (exact on every database), else by the driver's count.
 */
export const applied = (result: SqlResult, returning: boolean): boolean =>
  returning ? result.rows.length === 1 : result.changes === 1;

/** The parts of a guarded `UPDATE` beyond the id and the state it leaves. */
export interface Guard {
  readonly sql: string;
  readonly args: readonly SqlValue[];
}

/** The approvals table of one connection. */
export class ApprovalRows {
  readonly #db: SqlConnection;
  readonly #record: string;
  /** The text of each kind of guarded `UPDATE`, by its columns, guard and `RETURNING`. */
  readonly #updates = new Map<string, string>();
  /** Rows this store last wrote, by id; see {@link ApprovalRows.move}. */
  readonly #seen = new Map<string, Fields>();

  /** @param db the store's connection */
  constructor(db: SqlConnection) {
    this.#db = db;
    this.#record = db.dialect.record;
  }

  /** The insertion of a new approval's row (`RETURNING id` when changes must be counted so). */
  insert(fields: Readonly<Record<string, SqlValue>>, returning: boolean): SqlStatement {
    return {
      sql: returning ? `${INSERT_SQL} RETURNING id` : INSERT_SQL,
      args: INSERT_COLUMNS.map((column) => fields[column]),
    };
  }

  /** The insertion of an edited call's approval. */
  insertEdited(fields: Readonly<Record<string, SqlValue>>): SqlStatement {
    return { sql: INSERT_EDITED_SQL, args: INSERT_COLUMNS.map((column) => fields[column]) };
  }

  /**
   * Runs a batch that inserts the request's approval; when it fails and the request named its
   * id, an approval that has that id already is `approval_conflict`.
   */
  async insertBatch(
    request: ApprovalRequest,
    statements: readonly SqlStatement[],
    options?: CommitOptions,
  ): Promise<SqlResult[]> {
    try {
      return await this.#db.batch(statements, options);
    } catch (error) {
      if (request.id !== undefined && await this.read(request.id) !== undefined) {
        throw new ApprovalError("approval_conflict", `approval ${request.id} exists already`);
      }
      throw error;
    }
  }

  /**
   * The approval the request's run and call have (its insert changed nothing), when its content
   * is the same; `approval_conflict` when it is not.
   */
  async sameCall(request: ApprovalRequest): Promise<ApprovalRecord> {
    const existing = await this.findCall(request.runId ?? null, request.callId ?? null);
    if (existing === undefined) {
      throw new ApprovalError("approval_invalid_transition", "the approval was not inserted");
    }
    return requireSameCall(existing, request);
  }

  /** The guarded `UPDATE` of one transition, returning the new row when `returning`. */
  update(
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, SqlValue>>,
    guard: Guard | undefined,
    returning: boolean,
  ): SqlStatement {
    assertTransition(id, from, to);
    const columns = Object.keys(changes);
    // The few distinct texts are built once: a driver that prepares statements finds them again.
    const key = `${columns.join(",")}|${guard?.sql ?? ""}|${returning}`;
    let sql = this.#updates.get(key);
    if (sql === undefined) {
      sql = `UPDATE approvals SET state = ?${columns.map((column) => `, ${column} = ?`).join("")}
        WHERE id = ? AND state = ?${guard === undefined ? "" : ` AND ${guard.sql}`}` +
        (returning ? ` RETURNING ${this.#record}` : "");
      this.#updates.set(key, sql);
    }
    return { sql, args: [to, ...Object.values(changes), id, from, ...(guard?.args ?? [])] };
  }

  /**
   * One checked transition: the pair is checked in code, then one `UPDATE` guarded by the state
   * it leaves (and `guard`); the schema's trigger appends the event. Returns the new record, or
   * `undefined` when the row was not in `from` (or `guard` did not hold) and nothing changed.
   *
   * The new record is the remembered one plus `changes` when this store last saw the row in
   * `from`; otherwise the `UPDATE` returns the row. That is exact, not a guess: the triggers
   * (checked intact at open) make every applied `UPDATE` move the state forward to a state never
   * held before and forbid changing identity columns or recorded facts, so a row still in `from`
   * (which the `UPDATE` just checked) is unchanged since it was seen in `from`.
   */
  async move(
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, SqlValue>>,
    guard?: Guard,
    options?: CommitOptions,
  ): Promise<ApprovalRecord | undefined> {
    const seen = this.#seen.get(id);
    const known = seen !== undefined && seen.state === from;
    const returning = !known || !this.#db.dialect.exactChanges;
    const [result] = await this.#db.batch([
      this.update(id, from, to, changes, guard, returning),
    ], options);
    if (!applied(result, returning)) return undefined;
    return this.remember(
      known ? { ...seen, ...changes, state: to } : this.fields(result.rows[0]),
    );
  }

  /**
   * Keeps the fields of a row this store wrote, for the next transition of the same approval
   * (see {@link ApprovalRows.move}); forgets terminal rows and, past a bound, the oldest entries.
   */
  remember(fields: Fields): ApprovalRecord {
    const id = String(fields.id);
    this.#seen.delete(id);
    if (!TERMINAL_STATES.includes(fields.state as ApprovalState)) {
      this.#seen.set(id, fields);
      if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.keys().next().value!);
    }
    return toRecord(fields);
  }

  /** Forgets the row of `id`: the next transition reads it back. */
  forget(id: string): void {
    this.#seen.delete(id);
  }

  /**
   * Explains why a guarded move did not apply: `approval_not_found`, or
   * `approval_invalid_transition` from the current state. Returns the record when the move would
   * have been legal (the caller then knows a guard failed).
   */
  async refuse(id: string, to: ApprovalState): Promise<ApprovalRecord> {
    const record = await this.read(id);
    if (record === undefined) throw new ApprovalError("approval_not_found", `no approval ${id}`);
    assertTransition(id, record.state, to);
    return record;
  }

  /** One approval, or `undefined`. */
  async read(id: string): Promise<ApprovalRecord | undefined> {
    const [row] = await this.#db.query({
      sql: `SELECT ${this.#record} FROM approvals WHERE id = ?`,
      args: [id],
    });
    return row === undefined ? undefined : this.#decode(row);
  }

  /** The approval of a run and call, or `undefined`. */
  async findCall(runId: string | null, callId: string | null): Promise<ApprovalRecord | undefined> {
    const [row] = await this.#db.query({
      sql: `SELECT ${this.#record} FROM approvals WHERE run_id = ? AND call_id = ?`,
      args: [runId, callId],
    });
    return row === undefined ? undefined : this.#decode(row);
  }

  /** Approvals, oldest first. */
  async list(filter: ListFilter): Promise<ApprovalRecord[]> {
    const order = this.#db.dialect.insertionOrder;
    const rows = await this.#db.query(
      filter.state === undefined
        ? { sql: `SELECT ${this.#record} FROM approvals ORDER BY ${order}`, args: [] }
        : {
          sql: `SELECT ${this.#record} FROM approvals WHERE state = ? ORDER BY ${order}`,
          args: [filter.state],
        },
    );
    return rows.map((row) => this.#decode(row));
  }

  /** A returned row's fields, decoded; no row means the transition did not happen. */
  fields(row: Fields | undefined): Fields {
    if (row === undefined) {
      throw new ApprovalError("approval_invalid_transition", "no row returned");
    }
    return this.#db.dialect.decode(row);
  }

  #decode(row: Fields): ApprovalRecord {
    return toRecord(this.#db.dialect.decode(row));
  }
}
