import type { JsonObject } from "../identity/mod.ts";

/**
 * Why a tool does or does not require approval.
 *
 * @category Agent developers: connect()
 */
export type ApprovalReason =
  /** The default: every tool requires approval. */
  | "default"
  /** The owner listed it in `preApproved`. */
  | "pre_approved"
  /** The owner trusts the server's `readOnlyHint`, and the tool says `readOnlyHint: true`. */
  | "trusted_read_only_hint"
  /** The server marks it `destructiveHint: true`: approval stays, whatever the owner listed. */
  | "destructive_hint";

/**
 * A tool's approval policy.
 *
 * @category Agent developers: connect()
 */
export interface ApprovalPolicy {
  /** Whether each call needs an approval. */
  readonly requiresApproval: boolean;
  /** Why. */
  readonly reason: ApprovalReason;
}

/**
 * Decides whether a tool requires approval. Owner settings can only relax the default;
 * remote annotations can only make it stricter:
 * - an explicit `destructiveHint: true` keeps approval even for a pre-approved tool;
 * - `readOnlyHint: true` lifts approval only when the owner set `trustReadOnlyHint` for the
 *   server (and the tool is not also marked destructive);
 * - absent annotations change nothing (the spec's default `destructiveHint: true` for
 *   non-read-only tools is not applied, or no unannotated tool could ever be pre-approved).
 *
 * @param preApproved whether the owner listed the tool in `preApproved`
 * @param trustReadOnlyHint the server's owner setting
 * @param annotations the tool's annotations as listed, or `null` (owner specs have none)
 *
 * @category Agent developers: connect()
 */
export function approvalPolicy(
  preApproved: boolean,
  trustReadOnlyHint: boolean,
  annotations: Readonly<JsonObject> | null,
): ApprovalPolicy {
  if (annotations?.destructiveHint === true) {
    return { requiresApproval: true, reason: "destructive_hint" };
  }
  if (preApproved) return { requiresApproval: false, reason: "pre_approved" };
  if (trustReadOnlyHint && annotations?.readOnlyHint === true) {
    return { requiresApproval: false, reason: "trusted_read_only_hint" };
  }
  return { requiresApproval: true, reason: "default" };
}
