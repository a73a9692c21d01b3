/**
 * The `approvals` stage of the code catalog (approvals: stores, claims and grants);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `approvals` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const APPROVALS_CODES = {
  approval_already_claimed: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The approval was claimed before: it is used at most once.",
  },
  approval_arguments_changed: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The arguments differ from the approved ones.",
  },
  approval_binding_mismatch: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The current binding identity differs from the approved one.",
  },
  approval_expired: {
    stage: "approvals",
    in: ["ClaimRefusalCode", "ApprovalErrorCode"],
    meaning: "The approval passed its expiry before it was decided or claimed.",
  },
  approval_invalid_request: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "A request to the store is not the documented shape.",
  },
  approval_invalid_transition: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The approval is not in a state that allows that move.",
  },
  approval_not_found: {
    stage: "approvals",
    in: ["ClaimRefusalCode", "GrantApprovalResult", "ApprovalErrorCode"],
    meaning: "No approval has that id.",
  },
  approval_scope_revoked: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The scope revision changed since the approval.",
  },
  approval_superseded: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning:
      "A person approved an edited call instead; the call runs under the new approval (`supersededBy`).",
  },
  approval_grant_not_found: {
    stage: "approvals",
    in: ["GrantRefusalCode", "ApprovalErrorCode"],
    meaning: "No grant has that id.",
  },
  approval_grant_revoked: {
    stage: "approvals",
    in: ["GrantRefusalCode", "ApprovalErrorCode"],
    meaning: "The grant was revoked; it approves nothing.",
  },
  approval_grant_expired: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning: "The grant passed its end; it approves nothing.",
  },
  approval_grant_exhausted: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning: "The grant approved as many calls as it allows.",
  },
  approval_grant_mismatch: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning:
      "The grant does not cover that approval (other tool, catalog or run, or arguments outside its schema), or it is no longer pending.",
  },
  approval_store_busy: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The database stayed locked past `busyTimeoutMs`.",
  },
  approval_store_closed: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The store was closed.",
  },
  approval_store_schema_too_new: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The database was written by a newer sluice.",
  },
  approval_store_schema_invalid: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning:
      "The database's schema or its enforcement (triggers, constraints) was changed: the store refuses to open it.",
  },
  approval_store_url_invalid: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The store URL is not a path, `file:`, `libsql:` or `https:` URL, or carries a token.",
  },
} as const satisfies StageCodes<"approvals">;
