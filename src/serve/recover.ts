/**
 * What a crash of `sluice serve` leaves behind: a served write claimed (perhaps sent) but never
 * recorded. At start-up every such claim of a served call (run id `serve:...`) is recorded
 * `unknown`, exactly as `gate.recover()` does for a host: sluice cannot prove whether the
 * upstream ran it, so it is never sent again, and a person reconciles it.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/types.ts";
import { RECOVERED_REASON } from "../gate/mod.ts";

/**
 * How `serve()` settles claims at start-up. `olderThanMs`: only claims made at least that long
 * before start-up (with several serve processes on one store, more than the longest upstream
 * deadline, so that no claim still in flight in another process is touched); default 0, every
 * claim (one process: nothing of its own is in flight yet).
 *
 * @category sluice serve
 */
export interface ServeRecoverOptions {
  /** Only claims at least this old (milliseconds) are settled. */
  readonly olderThanMs?: number;
}

/**
 * Records every claimed, unrecorded approval of a served call `unknown`; returns their ids.
 *
 * @param store the approval store the served toolkit uses
 * @param options the age cut-off
 *
 * @category sluice serve
 */
export async function recoverServedClaims(
  store: ApprovalStore,
  options: ServeRecoverOptions = {},
): Promise<string[]> {
  const cutoff = Date.now() - (options.olderThanMs ?? 0);
  const settled: string[] = [];
  for (const record of await store.list({ state: "claimed" })) {
    if (!record.runId?.startsWith("serve:")) continue;
    if ((record.claimedAt ?? Infinity) > cutoff) continue;
    try {
      await store.recordOutcome(record.id, { outcome: "unknown", reason: RECOVERED_REASON });
      settled.push(record.id);
    } catch {
      // Another process recorded it meanwhile: its outcome stands.
    }
  }
  return settled;
}
