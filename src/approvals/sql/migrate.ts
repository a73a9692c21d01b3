/**
 * Versioned migrations for the SQL stores: a `schema_version` table lists the versions applied;
 * missing ones are applied in one atomic batch each, with their version row; a database written
 * by a newer sluice is refused. Two processes migrating at once: one batch wins, the other fails
 * as a whole, reads the version again and finds nothing left to do.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import type { SqlConnection } from "./connection.ts";
import { storeFailure } from "./failure.ts";

/**
 * One schema version: statements applied together in one atomic batch.
 *
 * @category Approvals
 */
export interface Migration {
  /** The version this migration brings the database to. */
  readonly version: number;
  /** SQL statements, applied in order. */
  readonly statements: readonly string[];
}

/**
 * A database's schema: its migrations, its version table, and its open check.
 *
 * @category Approvals
 */
export interface SchemaDefinition {
  /** Creates `schema_version` (its SQL differs per database). */
  readonly versionTable: string;
  /** A query returning one row with a true or nonzero `present` when `schema_version` exists. */
  readonly versionTableExists: string;
  /** Every migration, oldest first. */
  readonly migrations: readonly Migration[];
  /** Throws `approval_store_schema_invalid` unless the schema is intact. */
  check(connection: SqlConnection): Promise<void>;
}

/**
 * The open check's refusal: `approval_store_schema_invalid`, saying what was found.
 *
 * @category Approvals
 */
export function schemaInvalid(detail: string): ApprovalError {
  return new ApprovalError(
    "approval_store_schema_invalid",
    `the approval database's schema was changed outside sluice (${detail}); it no longer ` +
      "enforces the approval state machine, so it is not used",
  );
}

/**
 * The newest version of `migrations`.
 *
 * @category Approvals
 */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations[migrations.length - 1].version;
}

/**
 * The highest version recorded in `schema_version` (0 for a new database).
 *
 * @category Approvals
 */
export async function schemaVersion(db: SqlConnection): Promise<number> {
  const [row] = await db.query({
    sql: "SELECT coalesce(max(version), 0) AS version FROM schema_version",
    args: [],
  });
  return Number(row?.version ?? 0);
}

/**
 * Brings the database to the newest of the schema's migrations, creating `schema_version` first
 * if it is missing (only then: a role that may not create tables can open a migrated database).
 * Throws `approval_store_schema_too_new` for a database with a version this code does not know.
 *
 * @category Approvals
 */
export async function migrate(
  db: SqlConnection,
  schema: SchemaDefinition,
  now: () => number = Date.now,
): Promise<void> {
  const [exists] = await db.query({ sql: schema.versionTableExists, args: [] });
  if (!exists?.present) await db.batch([{ sql: schema.versionTable, args: [] }]);
  const migrations = schema.migrations;
  const latest = latestVersion(migrations);
  for (let attempt = 0;; attempt++) {
    const current = await schemaVersion(db);
    if (current > latest) {
      throw new ApprovalError(
        "approval_store_schema_too_new",
        `the approval database has schema version ${current}; this sluice knows up to ${latest}`,
      );
    }
    const missing = migrations.filter((migration) => migration.version > current);
    if (missing.length === 0) return;
    try {
      await db.batch(missing.flatMap((migration) => [
        // The version row first: a second migrator's batch fails on it before any DDL runs.
        {
          sql: "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
          args: [migration.version, now()],
        },
        ...migration.statements.map((sql) => ({ sql, args: [] })),
      ]));
      return;
    } catch (error) {
      // Someone else migrated meanwhile: look again (bounded), else the failure stands.
      if (attempt >= 2 || await schemaVersion(db) === current) throw error;
    }
  }
}

/**
 * Migrates the database behind `connection` and runs the schema's open check; on any failure the
 * connection is closed and the failure thrown in sluice's words.
 *
 * @category Approvals
 */
export async function openSchema(
  connection: SqlConnection,
  schema: SchemaDefinition,
): Promise<void> {
  try {
    await migrate(connection, schema);
    await schema.check(connection);
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw storeFailure(error, connection.describe(error), "opening it");
  }
}
