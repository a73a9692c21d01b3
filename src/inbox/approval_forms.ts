/**
 * The forms of one approval's page: approve / deny, approve with edits, a standing grant for its
 * tool, and reconciliation of an `unknown` outcome. Each posts to its own route under the
 * approval and carries the token and version the handler checks.
 *
 * @module
 */
import type { ApprovalRecord } from "../approvals/types.ts";
import { attr, editableJson, type Html, html } from "./html.ts";

/** Where one approval's forms post, and the hidden fields that bind a form to its version. */
export interface ApprovalFormTarget {
  /** The `action` attribute of the form named `name`. */
  readonly action: (name: string) => Html;
  /** The hidden token and version fields of a form issued `token`. */
  readonly hidden: (token: string) => Html;
}

/** The target of `record`'s forms, mounted at `base`, rendered at `version`. */
export function approvalFormTarget(
  base: string,
  record: ApprovalRecord,
  version: string,
): ApprovalFormTarget {
  return {
    action: (name) => attr(`${base}/approvals/${encodeURIComponent(record.id)}/${name}`),
    hidden: (token) =>
      html`<input type="hidden" name="token" value="${attr(token)}">
<input type="hidden" name="version" value="${attr(version)}">`,
  };
}

/** Approve or deny, with an optional note. */
export function decideForm(target: ApprovalFormTarget, token: string): Html {
  return html`<form method="post" action="${target.action("decide")}" id="decide">
${target.hidden(token)}
<label for="note">Note (optional)</label>
<textarea id="note" name="note" maxlength="2000"></textarea>
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`;
}

/** Approve with edited arguments: the approval is superseded by one bound to the edit. */
export function editForm(target: ApprovalFormTarget, token: string, record: ApprovalRecord): Html {
  return html`<form method="post" action="${target.action("edit")}" id="edit">
${target.hidden(token)}
<h2>Approve with edits</h2>
<p>Change the arguments, then approve: this approval becomes superseded and a new one, bound to
your arguments, is approved by you. The call is checked against the tool's schema and scope again
before it runs, and the model is told that a person changed its arguments.</p>
<label for="edit-arguments">Arguments (a JSON object)</label>
<textarea id="edit-arguments" name="arguments" required spellcheck="false" rows="8">${
    editableJson(record.arguments)
  }</textarea>
<label for="edit-note">Note (optional)</label>
<textarea id="edit-note" name="note" maxlength="2000"></textarea>
<button type="submit" id="approve-edited">Approve with these arguments</button>
</form>`;
}

/** A standing grant for this approval's tool: a number of calls, this run and/or hours. */
export function grantForm(target: ApprovalFormTarget, token: string, record: ApprovalRecord): Html {
  return html`<form method="post" action="${target.action("grant")}" id="grant">
${target.hidden(token)}
<h2>Grant: let this tool run without asking</h2>
<p>${record.serverId} / ${record.toolName} under this catalog (${record.catalogDigest}) may run up
to the number of calls below without a person; each still gets its own approval record. Revoke it
any time under Standing grants. This approval itself still waits for your decision above.</p>
<label for="grant-uses">At most this many calls</label>
<input id="grant-uses" name="uses" type="number" min="1" max="1000" value="1" required>
${
    record.runId === undefined
      ? ""
      : html`<label><input type="checkbox" name="this_run" value="yes" checked>
Only in this run (${record.runId})</label>`
  }
<label for="grant-hours">For this many hours (empty: until the run ends)</label>
<input id="grant-hours" name="hours" type="number" min="1" max="720">
<label for="grant-note">Note (optional)</label>
<textarea id="grant-note" name="note" maxlength="2000"></textarea>
<button type="submit" id="grant-submit">Grant</button>
</form>`;
}

/** Record what a person found out about an `unknown` outcome, with evidence. */
export function reconcileForm(target: ApprovalFormTarget, token: string): Html {
  return html`<form method="post" action="${target.action("reconcile")}" id="reconcile">
${target.hidden(token)}
<p>The write may or may not have happened. Check the server independently, then record what you
found.</p>
<label><input type="radio" name="outcome" value="committed" required> It happened (committed)</label>
<label><input type="radio" name="outcome" value="not_started"> It did not happen (not started)</label>
<label for="evidence">Evidence</label>
<textarea id="evidence" name="evidence" required maxlength="2000"></textarea>
<button type="submit" id="reconcile-submit">Record the outcome</button>
</form>`;
}
