/**
 * The open check of an SQLite approval database (libSQL, D1): its schema version is the one this
 * code knows and every table, index and trigger the migrations created is still there with the
 * same definition, so the state machine is still enforced by the database, not only by code.
 *
 * @module
 */
import type { SqlConnection } from "../sql/connection.ts";
import { type SchemaDefinition, schemaInvalid as invalid, schemaVersion } from "../sql/migrate.ts";
import { LATEST_SCHEMA_VERSION, SQLITE_MIGRATIONS, SQLITE_VERSION_TABLE } from "./migrations.ts";

const CREATE = /^CREATE\s+(?:UNIQUE\s+)?(TABLE|INDEX|TRIGGER)\s+(\w+)/;
const DROP = /^DROP\s+(?:TABLE|INDEX|TRIGGER)\s+(?:IF\s+EXISTS\s+)?(\w+)/;
const ADD_COLUMN = /^ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(.+)$/;
/** Where SQLite writes an added column: after the last column, before the table's checks. */
const AFTER_LAST_COLUMN = /,(\s*CHECK \()/;
const normalize = (sql: string) => sql.replace(/\s+/g, " ").trim();

/**
 * Every object the migrations left, by name: its type and its normalized definition (a later
 * migration's `CREATE` replaces an earlier one's; its `DROP` removes it).
 */
const EXPECTED: ReadonlyMap<string, { type: string; sql: string }> = (() => {
  const objects = new Map<string, { type: string; sql: string }>();
  for (const statement of SQLITE_MIGRATIONS.flatMap((migration) => migration.statements)) {
    const created = CREATE.exec(statement);
    if (created !== null) {
      objects.set(created[2], { type: created[1].toLowerCase(), sql: normalize(statement) });
    }
    const dropped = DROP.exec(statement);
    if (dropped !== null) objects.delete(dropped[1]);
    const added = ADD_COLUMN.exec(statement);
    const table = added === null ? undefined : objects.get(added[1]);
    if (added !== null && table !== undefined) {
      const sql = table.sql.replace(AFTER_LAST_COLUMN, `, ${added[2]},$1`);
      objects.set(added[1], { ...table, sql: normalize(sql) });
    }
  }
  return objects;
})();

/** sluice's tables: no trigger but its own may sit on them. */
const SLUICE_TABLES: ReadonlySet<string> = new Set(
  [...EXPECTED].filter(([, object]) => object.type === "table").map(([name]) => name),
);

/**
 * Throws `approval_store_schema_invalid` unless the database is at the newest schema version and
 * every migration object is intact, and no other trigger sits on sluice's tables.
 *
 * @category Approvals
 */
export async function checkSqliteSchema(db: SqlConnection): Promise<void> {
  const version = await schemaVersion(db);
  if (version !== LATEST_SCHEMA_VERSION) throw invalid(`schema version ${version}`);
  const rows = await db.query({
    sql: `SELECT type, name, tbl_name, sql FROM sqlite_master
      WHERE type IN ('table', 'index', 'trigger')`,
    args: [],
  });
  const found = new Map(rows.map((row) => [String(row.name), row]));
  for (const [name, expected] of EXPECTED) {
    const row = found.get(name);
    if (row === undefined) throw invalid(`${expected.type} ${name} is missing`);
    if (row.type !== expected.type || normalize(String(row.sql)) !== expected.sql) {
      throw invalid(`${expected.type} ${name} was altered`);
    }
  }
  for (const row of rows) {
    const table = String(row.tbl_name);
    if (
      row.type === "trigger" && !EXPECTED.has(String(row.name)) &&
      SLUICE_TABLES.has(table)
    ) {
      throw invalid(`trigger ${String(row.name)} is not sluice's`);
    }
  }
}

/**
 * The SQLite schema of the approval store (libSQL, D1): migrations, version table, check.
 *
 * @category Approvals
 */
export const SQLITE_SCHEMA: SchemaDefinition = Object.freeze({
  versionTable: SQLITE_VERSION_TABLE,
  versionTableExists: `SELECT count(*) AS present FROM sqlite_master
    WHERE type = 'table' AND name = 'schema_version'`,
  migrations: SQLITE_MIGRATIONS,
  check: checkSqliteSchema,
});
