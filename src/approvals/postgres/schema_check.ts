/**
 * The open check of a PostgreSQL approval database: its schema version is the one this code
 * knows; every trigger is there, enabled, on its table and running its function with the same
 * body; no other trigger sits on sluice's tables; every named constraint is there and validated.
 *
 * @module
 */
import type { SqlConnection } from "../sql/connection.ts";
import { type SchemaDefinition, schemaInvalid as invalid, schemaVersion } from "../sql/migrate.ts";
import {
  POSTGRES_CONSTRAINTS,
  POSTGRES_LATEST_VERSION,
  POSTGRES_MIGRATIONS,
  POSTGRES_NOT_NULL,
  POSTGRES_TABLES,
  POSTGRES_TRIGGERS,
  POSTGRES_VERSION_TABLE,
} from "./migrations.ts";

/** sluice's tables, as `regclass` expressions. */
const TABLES = POSTGRES_TABLES.map((table) => `to_regclass('${table}')`).join(", ");

/** Whitespace does not change what a function does; anything else does. */
const normalize = (source: string) => source.replace(/\s+/g, " ").trim();

/**
 * Throws `approval_store_schema_invalid` unless the schema is exactly what the migrations made.
 *
 * @category Approvals
 */
export async function checkPostgresSchema(db: SqlConnection): Promise<void> {
  const version = await schemaVersion(db);
  if (version !== POSTGRES_LATEST_VERSION) throw invalid(`schema version ${version}`);
  const triggers = await db.query({
    sql: `SELECT t.tgname AS name, c.relname AS "table", t.tgenabled AS enabled,
        p.proname AS fn, p.prosrc AS body
      FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_proc p ON p.oid = t.tgfoid
      WHERE NOT t.tgisinternal AND c.oid IN (${TABLES})`,
    args: [],
  });
  const found = new Map(triggers.map((row) => [String(row.name), row]));
  for (const expected of POSTGRES_TRIGGERS) {
    const row = found.get(expected.name);
    if (row === undefined) throw invalid(`trigger ${expected.name} is missing`);
    if (
      row.table !== expected.table || row.fn !== expected.fn ||
      normalize(String(row.body)) !== normalize(expected.body)
    ) {
      throw invalid(`trigger ${expected.name} was altered`);
    }
    // `O` fires in normal operation, `A` always; `D` is disabled, `R` only on replicas.
    if (row.enabled !== "O" && row.enabled !== "A") {
      throw invalid(`trigger ${expected.name} is disabled`);
    }
  }
  for (const name of found.keys()) {
    if (!POSTGRES_TRIGGERS.some((trigger) => trigger.name === name)) {
      throw invalid(`trigger ${name} is not sluice's`);
    }
  }
  const constraints = await db.query({
    sql: `SELECT c.relname AS "table", k.conname AS name, k.convalidated AS validated
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE c.oid IN (${TABLES})`,
    args: [],
  });
  for (const [table, names] of POSTGRES_CONSTRAINTS) {
    for (const name of names) {
      const row = constraints.find((candidate) =>
        candidate.table === table && candidate.name === name
      );
      if (row === undefined) throw invalid(`constraint ${name} is missing`);
      if (row.validated !== true) throw invalid(`constraint ${name} is not validated`);
    }
  }
  const notNull = await db.query({
    sql: `SELECT c.relname AS "table", a.attname AS name
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE a.attnotnull AND a.attnum > 0 AND NOT a.attisdropped
        AND c.oid IN (${TABLES})`,
    args: [],
  });
  for (const [table, columns] of POSTGRES_NOT_NULL) {
    for (const column of columns) {
      if (!notNull.some((row) => row.table === table && row.name === column)) {
        throw invalid(`column ${column} accepts NULL`);
      }
    }
  }
}

/**
 * The PostgreSQL schema of the approval store: migrations, version table, check.
 *
 * @category Approvals
 */
export const POSTGRES_SCHEMA: SchemaDefinition = Object.freeze({
  versionTable: POSTGRES_VERSION_TABLE,
  versionTableExists: "SELECT to_regclass('schema_version') IS NOT NULL AS present",
  migrations: POSTGRES_MIGRATIONS,
  check: checkPostgresSchema,
});
