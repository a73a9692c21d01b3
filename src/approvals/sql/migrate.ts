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

/** One schema version: statements applied together in one atomic batch. */
export interface Migration {
  /** The version this migration brings the database to. */
  readonly version: number;
  /** SQL statements, applied in order. */
  readonly statements: readonly string[];
}

/** The newest version of `migrations`. */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations[migrations.length - 1].version;
}

/** The highest version recorded in `schema_version` (0 for a new database). */
export async function schemaVersion(db: SqlConnection): Promise<number> {
  const [row] = await db.query({
    sql: "SELECT coalesce(max(version), 0) AS version FROM schema_version",
    args: [],
  });
  return Number(row?.version ?? 0);
}

/**
 * Brings the database to the newest of `migrations`. `versionTable` creates `schema_version` if
 * it is missing (its SQL differs per database). Throws `approval_store_schema_too_new` for a
 * database with a version this code does not know.
 */
export async function migrate(
  db: SqlConnection,
  versionTable: string,
  migrations: readonly Migration[],
  now: () => number = Date.now,
): Promise<void> {
  await db.batch([{ sql: versionTable, args: [] }]);
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
 * Migrates the database behind `connection` and runs its open `check`; on any failure the
 * connection is closed and the failure thrown in sluice's words.
 */
export async function openSchema(
  connection: SqlConnection,
  versionTable: string,
  migrations: readonly Migration[],
  check: (connection: SqlConnection) => Promise<void>,
): Promise<void> {
  try {
    await migrate(connection, versionTable, migrations);
    await check(connection);
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw storeFailure(error, connection.describe(error), "opening it");
  }
}
