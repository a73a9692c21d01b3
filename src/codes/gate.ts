/**
 * The `gate` stage of the code catalog (the gate); `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `gate` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const GATE_CODES = {
  approval_conflict: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning:
      "The run and call ids already belong to a pending approval with other content, a caller-named approval id is taken, or a caller-named grant id has other terms.",
  },
  approval_denied: {
    stage: "gate",
    in: ["ClaimRefusalCode"],
    meaning: "The inline approver did not return exactly `true` (or threw); nothing was sent.",
  },
  approval_pending: {
    stage: "gate",
    in: ["ClaimRefusalCode"],
    meaning: "The call waits for a person's decision in the approval store (then `resume`).",
  },
  approval_store_error: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning: "The approval store failed; with effect `unknown` the write may have been sent.",
  },
  approval_store_not_durable: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning: "The approval store is not durable and the host did not allow it for tests.",
  },
  approval_unavailable: {
    stage: "gate",
    meaning: 'The tool needs approval and nobody is configured to decide (`decidedBy: "none"`).',
  },
  batch_rejected: {
    stage: "gate",
    meaning: "Another call of the batch failed admission, so nothing of the batch ran.",
  },
  gate_duplicate_name: {
    stage: "gate",
    in: ["GateErrorCodeThrown", "ToolMapProblem"],
    meaning: "Two catalogs of one gate share a local name.",
  },
  gate_invalid_call_id: {
    stage: "gate",
    meaning: "The call has no non-empty string id, or its id repeats within the batch.",
  },
  gate_options_invalid: {
    stage: "gate",
    in: ["GateErrorCodeThrown"],
    meaning: "The gate's options, batch or run id are not the documented shape.",
  },
  gate_registration_invalid: {
    stage: "gate",
    in: ["GateErrorCodeThrown", "ToolMapProblem"],
    meaning: "A catalog entry is not a call plan made by discovery.",
  },
  gate_store_missing: {
    stage: "gate",
    in: ["GateErrorCodeThrown"],
    meaning: "Write tools have no approval store (and are not all decided inline or by nobody).",
  },
  unknown_tool: {
    stage: "gate",
    meaning: "The model called a name no catalog of this gate (or toolkit) has.",
  },
} as const satisfies StageCodes<"gate">;
