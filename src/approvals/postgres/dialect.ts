/**
 * How PostgreSQL returns an approval row: its columns by name (`bigint` as decimal text, read
 * with `Number` by the row mapping), in insertion order by an identity column.
 *
 * @module
 */
import { APPROVAL_COLUMNS } from "../sql/columns.ts";
import type { SqlDialect } from "../sql/connection.ts";
import type { Fields } from "../sql/rows.ts";

/**
 * PostgreSQL's dialect of the store's SQL.
 *
 * @category Approvals
 */
export const POSTGRES_DIALECT: SqlDialect = Object.freeze({
  record: APPROVAL_COLUMNS.join(", "),
  decode: (row: Fields): Fields => row,
  insertionOrder: "position",
  exactChanges: true,
  rowLock: " FOR UPDATE",
});
