/**
 * Sees the batches the SQL stores send: the write-path benchmark counts a write's commits with it.
 *
 * @module
 */
import { NativeConnection } from "../../src/approvals/libsql/native.ts";
import { PostgresConnection } from "../../src/approvals/postgres/connection.ts";
import type { SqlStatement } from "../../src/approvals/sql/connection.ts";

/**
 * Runs `work` and returns its value with every batch the embedded file's and PostgreSQL's
 * connections were given meanwhile (each batch is one transaction; reads are not batches).
 */
export async function observeBatches<T>(
  work: () => Promise<T>,
): Promise<{ value: T; batches: (readonly SqlStatement[])[] }> {
  const batches: (readonly SqlStatement[])[] = [];
  const restores = [NativeConnection.prototype, PostgresConnection.prototype].map((prototype) => {
    const batch = prototype.batch;
    prototype.batch = function (this: typeof prototype, ...args: Parameters<typeof batch>) {
      batches.push(args[0]);
      return batch.apply(this, args);
    } as typeof batch;
    return () => prototype.batch = batch;
  });
  try {
    return { value: await work(), batches };
  } finally {
    for (const restore of restores) restore();
  }
}
