/**
 * Run under `strace` by `tests/gate/commit_sync_test.ts`: opens a libSQL file store in `dir`,
 * runs one inline write cycle, one deferred one and one inline decision of a call left pending
 * (after one of each untimed, so opening and first-use work is outside), each between two marker
 * files it fsyncs (`mark-<name>-start`, `mark-<name>-end`), so the tracer's output says which
 * fsyncs each cycle made.
 *
 * ```
 * deno run -A tests/support/sync_count_child.ts <dir>
 * ```
 *
 * @module
 */
import { LibsqlApprovalStore } from "../../libsql.ts";
import { writeCycles } from "./write_cycles.ts";

const [dir] = Deno.args;
const mark = (name: string) => {
  const file = Deno.openSync(`${dir}/mark-${name}`, { write: true, create: true });
  try {
    file.syncSync();
  } finally {
    file.close();
  }
};
const store = await LibsqlApprovalStore.open(`${dir}/approvals.db`);
const cycles = await writeCycles(store);
try {
  await cycles.inline("warm-inline");
  await cycles.deferred("warm-deferred");
  await cycles.pending("warm-waiting");
  await cycles.inline("warm-waiting");
  mark("inline-start");
  await cycles.inline("inline");
  mark("inline-end");
  mark("deferred-start");
  await cycles.deferred("deferred");
  mark("deferred-end");
  await cycles.pending("waiting");
  mark("waiting-start");
  await cycles.inline("waiting");
  mark("waiting-end");
} finally {
  await cycles.close();
  await store.close();
}
