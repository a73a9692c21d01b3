/**
 * A database as an older sluice left it: brought by sluice's own migrations to one version, not
 * to the newest, on a connection of sluice's own SQL layer (so statements take `?` placeholders
 * on every database).
 *
 * @module
 */
import { migrate, type SchemaDefinition } from "../../src/approvals/sql/migrate.ts";
import type { SqlConnection } from "../../src/approvals/sql/connection.ts";

/** Applies `schema`'s migrations up to `version` (and no further) to the database. */
export async function migrateTo(
  connection: SqlConnection,
  schema: SchemaDefinition,
  version: number,
): Promise<void> {
  const migrations = schema.migrations.filter((migration) => migration.version <= version);
  await migrate(connection, { ...schema, migrations });
}
