/**
 * The write-path benchmarks' baseline: a table of one-row durable transactions on an embedded
 * libSQL file (WAL, `synchronous = FULL`, as sluice's store), with no sluice code around it.
 *
 * @module
 */
import Database from "libsql";

/** Opens (creates) the bare table in a new file at `path`; `insert.run(id, state, body, at)`. */
export function bareTable(path: string): { db: Database.Database; insert: Database.Statement } {
  const db = new Database(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");
  return { db, insert: db.prepare("INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)") };
}
