/**
 * The forms posted to one approval, `POST /approvals/<id>/<action>`: decide (approve or deny),
 * edit (approve with edited arguments), grant, and reconcile an `unknown` outcome. Each is
 * accepted only at the approval's version it was rendered at; whatever happens, the answer is
 * the approval as recorded now.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import type { ApprovalRecord } from "../approvals/types.ts";
import type { InboxSettings } from "./options.ts";
import { makeGrant } from "./approval_grant.ts";
import { approvalResponse, versionOf } from "./approval_page.ts";
import { notice, type PageContext } from "./pages.ts";
import { acceptForm, editedArguments, personText, single } from "./posted_form.ts";
import { Refusal } from "./responses.ts";

/** The forms an approval accepts. */
export type ApprovalAction = "decide" | "reconcile" | "edit" | "grant";

/** One accepted, current form applied to the store; answers with the approval's page. */
type ActionHandler = (
  settings: InboxSettings,
  context: PageContext,
  record: ApprovalRecord,
  form: URLSearchParams,
) => Promise<Response>;

/** The approval's page under the notice that `message` was recorded. */
function recorded(
  settings: InboxSettings,
  context: PageContext,
  id: string,
  message: string,
): Promise<Response> {
  return approvalResponse(settings, context, id, 200, notice("accepted", message));
}

/** Approve or deny, with an optional note. */
const decide: ActionHandler = async (settings, context, record, form) => {
  const person = context.person!;
  const decision = single(form, "decision");
  if (decision !== "approve" && decision !== "deny") {
    throw new Refusal(400, "inbox_form_invalid", "decision must be approve or deny.");
  }
  const note = personText(form, "note");
  const input = { by: person, ...(note === undefined ? {} : { note }) };
  if (decision === "approve") await settings.store.approve(record.id, input);
  else await settings.store.deny(record.id, input);
  const done = decision === "approve" ? "Approved" : "Denied";
  return await recorded(settings, context, record.id, `${done} by ${person}.`);
};

/** Approve with edited arguments: the store supersedes the approval with the edited call. */
const edit: ActionHandler = async (settings, context, record, form) => {
  const person = context.person!;
  const edited = editedArguments(single(form, "arguments"));
  const note = personText(form, "note");
  const { approval } = await settings.store.approveWithEdits(record.id, {
    by: person,
    arguments: edited,
    ...(note === undefined ? {} : { note }),
  });
  return await recorded(
    settings,
    context,
    record.id,
    `Approved with edits by ${person}; the edited call is ${approval.id}.`,
  );
};

/** Record a person's finding about an `unknown` outcome, with evidence. */
const reconcile: ActionHandler = async (settings, context, record, form) => {
  const person = context.person!;
  const outcome = single(form, "outcome");
  if (outcome !== "committed" && outcome !== "not_started") {
    throw new Refusal(400, "inbox_form_invalid", "outcome must be committed or not_started.");
  }
  const evidence = personText(form, "evidence");
  if (evidence === undefined) {
    throw new Refusal(400, "inbox_form_invalid", "Evidence is required.");
  }
  await settings.store.reconcile(record.id, { outcome, evidence, by: person });
  return await recorded(settings, context, record.id, `Reconciled as ${outcome} by ${person}.`);
};

const HANDLERS: Readonly<Record<ApprovalAction, ActionHandler>> = {
  decide,
  edit,
  grant: makeGrant,
  reconcile,
};

/** Accepts the form of `action` on approval `id` and applies it, or says why not. */
export async function approvalAction(
  settings: InboxSettings,
  request: Request,
  context: PageContext,
  id: string,
  action: ApprovalAction,
): Promise<Response> {
  const record = await settings.store.get(id);
  if (record === undefined) throw new Refusal(404, "inbox_not_found", "No such approval.");
  const version = versionOf(record, (await settings.store.events(id)).length);
  const { form, stale } = await acceptForm(
    settings,
    request,
    context.person!,
    id,
    action,
    version,
  );
  if (stale) {
    return await approvalResponse(
      settings,
      context,
      id,
      409,
      notice(
        "refused",
        "This approval changed after the form was shown; nothing was recorded. Its current state is below.",
        "inbox_stale_form",
      ),
    );
  }
  try {
    return await HANDLERS[action](settings, context, record, form);
  } catch (error) {
    if (!(error instanceof ApprovalError)) throw error;
    // Decided, expired or changed in the store meanwhile: show what is recorded.
    return await approvalResponse(
      settings,
      context,
      id,
      409,
      notice("refused", "The store refused this; nothing was recorded.", error.code),
    );
  }
}
