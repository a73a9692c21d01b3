/**
 * An approval's history, read from its record. The state machine has no cycle, so the path
 * to every state is fixed by that state and the facts recorded on the way (an `expired` record
 * with a decision was approved first), and every transition writes the instant, person and
 * detail of its event into columns that are written once and never change. So the history is a
 * function of the record, and no store keeps a second copy of it (schema version 3 dropped the
 * `approval_events` table that did).
 *
 * @module
 */
import type { ApprovalEvent, ApprovalRecord, ApprovalState } from "./types.ts";

/** One step of a history before it is numbered. */
type Step = Omit<ApprovalEvent, "seq" | "approvalId" | "from">;

const step = (to: ApprovalState, at: number, by?: string, detail?: string): Step => ({
  to,
  at,
  ...(by === undefined ? {} : { by }),
  ...(detail === undefined ? {} : { detail }),
});

/**
 * The steps that end in `record.state`, oldest first. Every state change records its instant (the
 * schema refuses one that does not), so the `?? 0` fallbacks below only satisfy the types.
 */
function steps(record: ApprovalRecord): Step[] {
  const created = step("pending", record.createdAt);
  const decision = record.decision;
  const decided = decision === undefined
    ? []
    : [step(decision.decision, decision.at, decision.by, decision.note)];
  const claimed = record.claimedAt === undefined
    ? []
    : [step("claimed", record.claimedAt, undefined, record.refusal?.code)];
  const outcomeAt = record.outcomeAt ?? 0;
  switch (record.state) {
    case "pending":
      return [created];
    case "approved":
    case "denied":
      return [created, ...decided];
    case "superseded":
      return [
        created,
        step("superseded", record.supersededAt ?? 0, decision?.by, record.supersededBy),
      ];
    case "expired":
      return [
        created,
        ...decided,
        step("expired", record.expiredAt ?? 0, undefined, "approval_expired"),
      ];
    case "claimed":
      return [created, ...decided, ...claimed];
    case "committed":
      return [
        created,
        ...decided,
        ...claimed,
        step("committed", outcomeAt, undefined, record.receipt?.resultDigest),
      ];
    case "not_started":
    case "unknown":
      return [
        created,
        ...decided,
        ...claimed,
        step(record.state, outcomeAt, undefined, record.outcomeReason),
      ];
    case "reconciled": {
      const reconciliation = record.reconciliation;
      return [
        created,
        ...decided,
        ...claimed,
        step("unknown", outcomeAt, undefined, record.outcomeReason),
        step(
          "reconciled",
          reconciliation?.at ?? 0,
          reconciliation?.by,
          reconciliation === undefined
            ? undefined
            : `${reconciliation.outcome}: ${reconciliation.evidence}`,
        ),
      ];
    }
  }
}

/**
 * The events of `record`'s history, oldest first: one for its creation and one per state
 * change, each with the instant, the person and the short detail the transition recorded.
 *
 * @example
 * ```ts
 * import { approvalHistory } from "./history.ts";
 * declare const record: import("./types.ts").ApprovalRecord;
 * const states = approvalHistory(record).map((event) => event.to); // ["pending", "approved", …]
 * ```
 *
 * @category Approvals
 */
export function approvalHistory(record: ApprovalRecord): ApprovalEvent[] {
  let from: ApprovalState | null = null;
  return steps(record).map((event, index) => {
    const numbered = { seq: index + 1, approvalId: record.id, from, ...event };
    from = event.to;
    return numbered;
  });
}
