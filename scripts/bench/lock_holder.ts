/**
 * Holds a lock of an approval database from a process of its own, for the stall measurement in
 * `write_path.ts`: `deno run -A scripts/bench/lock_holder.ts <sqlite file> <ms>` takes the write
 * lock (`BEGIN IMMEDIATE`), prints `locked`, holds it `ms` milliseconds, commits and exits.
 *
 * @module
 */
import Database from "libsql";

const [path, ms] = Deno.args;
const db = new Database(path);
db.exec("BEGIN IMMEDIATE");
Deno.stdout.writeSync(new TextEncoder().encode("locked\n"));
await new Promise((resolve) => setTimeout(resolve, Number(ms)));
db.exec("COMMIT");
db.close();
