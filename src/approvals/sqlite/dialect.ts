/**
 * How SQLite (libSQL, D1) returns an approval row: one JSON array column.
 *
 * @module
 */
import { APPROVAL_COLUMNS } from "../sql/columns.ts";
import type { DriverFailure, SqlDialect } from "../sql/connection.ts";
import { driverCode } from "../sql/failure.ts";
import type { Fields } from "../sql/rows.ts";

/**
 * A whole approval row as one JSON text column, its values in {@link APPROVAL_COLUMNS} order:
 * drivers build a JS object per column of every row they return, which costs several times more
 * than the query for a 31-column row; one column keeps a store call close to the cost of its
 * transaction.
 *
 * @category Approvals
 */
export const SQLITE_DIALECT: SqlDialect = Object.freeze({
  record: `json_array(${APPROVAL_COLUMNS.join(", ")}) AS record`,
  decode(row: Fields): Fields {
    const values = JSON.parse(String(row.record)) as unknown[];
    const fields: Record<string, unknown> = {};
    for (let index = 0; index < APPROVAL_COLUMNS.length; index++) {
      fields[APPROVAL_COLUMNS[index]] = values[index];
    }
    return fields;
  },
  insertionOrder: "rowid",
  exactChanges: true,
});

/**
 * What an SQLite driver's failure means: `SQLITE_BUSY` and `SQLITE_LOCKED` codes are busy.
 *
 * @category Approvals
 */
export function describeSqliteFailure(error: unknown): DriverFailure {
  const code = driverCode(error);
  return {
    busy: /^SQLITE_(BUSY|LOCKED)/.test(code ?? ""),
    ...(code === undefined ? {} : { code }),
  };
}
