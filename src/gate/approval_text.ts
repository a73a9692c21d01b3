/**
 * The fixed sentences a model reads for approval outcomes: sluice's own words, never the
 * owner's, a person's note or a server's text.
 *
 * @module
 */

/**
 * Fixed texts the model sees for approval outcomes.
 *
 * @category Gate
 */
export const APPROVAL_TEXT: Readonly<
  { denied: string; pending: string; unavailable: string; edited: string }
> = Object.freeze({
  denied: "This call was not approved, so it was not run.",
  edited: "A person changed this call's arguments before approving it; " +
    "what ran (if it ran) used their arguments, not the ones you sent.",
  pending: "This call needs a person's approval; it has not run yet.",
  unavailable: "This call needs approval, and no approval path is configured; it was not run.",
});

/**
 * The sentence for an approval code, if it has one.
 *
 * @category Gate
 */
export function approvalText(code: string): string | undefined {
  switch (code) {
    case "approval_denied":
      return APPROVAL_TEXT.denied;
    case "approval_pending":
      return APPROVAL_TEXT.pending;
    case "approval_unavailable":
      return APPROVAL_TEXT.unavailable;
  }
  return undefined;
}
