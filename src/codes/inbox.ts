/**
 * The `inbox` stage of the code catalog (the approval inbox); `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `inbox` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const INBOX_CODES = {
  inbox_options_invalid: {
    stage: "inbox",
    meaning:
      "`approvalInbox`, `oneTimeLogin` or `webhookNotifier` was given a missing or malformed option (no `authorize`, a short secret).",
  },
  inbox_unauthorized: {
    stage: "inbox",
    meaning: "401: `authorize` refused the request (no person), or the login session is gone.",
  },
  inbox_origin_refused: {
    stage: "inbox",
    meaning: "403: a form was posted from an origin the inbox does not allow (cross-site).",
  },
  inbox_token_invalid: {
    stage: "inbox",
    meaning:
      "403: a form's token is missing, forged, expired, or was issued to another person, approval or action.",
  },
  inbox_stale_form: {
    stage: "inbox",
    meaning:
      "409: the approval changed after the form was rendered (decided elsewhere, a replayed form); nothing was recorded.",
  },
  inbox_form_invalid: {
    stage: "inbox",
    meaning:
      "400/413/415: the form is not urlencoded, too large, repeats a field, or lacks a required one.",
  },
  inbox_not_found: {
    stage: "inbox",
    meaning: "404/405: no such page or approval, or the wrong method for it.",
  },
  inbox_login_invalid: {
    stage: "inbox",
    meaning: "401: the one-time login link is wrong, was already used, or expired.",
  },
  inbox_webhook_failed: {
    stage: "inbox",
    meaning: "A webhook notifier's endpoint answered with a status other than 2xx.",
  },
} as const satisfies StageCodes<"inbox">;
