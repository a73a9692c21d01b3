/**
 * The envelopes of write outcomes as the model sees them: a fixed sentence per approval code,
 * the effect, the approval id; never a store's or a server's own text.
 *
 * @module
 */
import { codeOf } from "../codes.ts";
import type { ArgumentProblem, WriteOutcomeEffect } from "../calls/envelope.ts";
import type { ApprovalRecord } from "../approvals/types.ts";
import { approvalText } from "./approval_text.ts";
import type { GateEnvelope, GateErrorCode } from "./types.ts";

/**
 * The code of a store call's failure the model is told: expiry, or the store's own failure.
 *
 * @param error what the store threw
 *
 * @category Gate
 */
export function storeRefusal(error: unknown): GateErrorCode {
  return codeOf(error) === "approval_expired" ? "approval_expired" : "approval_store_error";
}

/**
 * A write envelope for `code`: the fixed sentence of an approval outcome, the effect and the
 * approval.
 *
 * @category Gate
 */
export function writeFailure(
  id: string,
  code: GateErrorCode,
  effect: WriteOutcomeEffect,
  approvalId?: string,
  problems?: readonly ArgumentProblem[],
): GateEnvelope {
  const text = approvalText(code);
  return {
    id,
    text: text === undefined ? [] : [text],
    structured: null,
    errorCode: code,
    ...(problems ? { problems } : {}),
    effect,
    ...(approvalId !== undefined ? { approvalId } : {}),
  };
}

/**
 * The effect a stored approval stands for, when a call meets it again.
 *
 * @param record the stored approval
 *
 * @category Gate
 */
export function recordedEffect(record: ApprovalRecord): WriteOutcomeEffect {
  switch (record.state) {
    case "committed":
      return "committed";
    case "claimed":
    case "unknown":
      return "unknown";
    case "reconciled":
      return record.reconciliation?.outcome ?? "unknown";
    default:
      return "not_started";
  }
}
