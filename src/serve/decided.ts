/**
 * Waiting for a served call's approval to be decided: the call runs again every poll interval
 * while its approval is pending, or claimed by another instance that has not recorded the
 * outcome yet.
 *
 * @module
 */
import type { ToolkitEnvelope } from "../connect/mod.ts";
import type { ApprovalStore } from "../approvals/mod.ts";
import { pendingNote, sleep } from "./task_outcome.ts";

/**
 * Whether an envelope says the call has no outcome yet (pending, or in flight elsewhere).
 *
 * @param envelope the call's envelope
 * @param store the shared store, if any
 */
export async function undecided(
  envelope: ToolkitEnvelope,
  store: ApprovalStore | undefined,
): Promise<boolean> {
  if (envelope.errorCode === "approval_pending") return true;
  if (envelope.errorCode !== "approval_already_claimed" || envelope.effect !== "unknown") {
    return false;
  }
  if (store === undefined || envelope.approvalId === undefined) return false;
  const record = await store.get(envelope.approvalId).catch(() => undefined);
  return record?.state === "claimed";
}

/**
 * Runs the call until it has an outcome other than "not decided yet", or `signal` fires.
 *
 * @param run runs the call once
 * @param store the shared store, if any
 * @param pollMs how long to wait between runs
 * @param signal stops waiting
 * @param note says what the task waits for
 */
export async function untilDecided(
  run: () => Promise<ToolkitEnvelope>,
  store: ApprovalStore | undefined,
  pollMs: number,
  signal: AbortSignal,
  note: (statusMessage: string) => void,
): Promise<ToolkitEnvelope> {
  for (;;) {
    const envelope = await run();
    if (signal.aborted || !(await undecided(envelope, store))) return envelope;
    note(
      envelope.errorCode === "approval_pending"
        ? pendingNote(envelope.approvalId!)
        : `Approved; another instance is running the call. Approval id: ${envelope.approvalId}.`,
    );
    await sleep(pollMs, signal);
  }
}
