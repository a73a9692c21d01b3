/**
 * The form `POST /approvals/<id>/grant`: a standing grant for the approval's tool, made at most
 * once per rendered form.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import type { ApprovalRecord } from "../approvals/types.ts";
import type { InboxSettings } from "./options.ts";
import { approvalResponse } from "./approval_page.ts";
import { notice, type PageContext } from "./pages.ts";
import { personText, single } from "./posted_form.ts";
import { Refusal } from "./responses.ts";

/** The grant the grant form asks for: this approval's tool, N calls, its run and/or hours. */
function grantInput(form: URLSearchParams, record: ApprovalRecord, person: string, now: number) {
  const whole = (name: string, max: number) => {
    const value = single(form, name)?.trim() ?? "";
    if (value === "") return undefined;
    if (!/^[0-9]{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new Refusal(400, "inbox_form_invalid", `${name} must be a whole number 1 to ${max}.`);
    }
    return Number(value);
  };
  const uses = whole("uses", 1000);
  if (uses === undefined) throw new Refusal(400, "inbox_form_invalid", "uses is required.");
  const hours = whole("hours", 720);
  const thisRun = single(form, "this_run") === "yes" && record.runId !== undefined;
  if (!thisRun && hours === undefined) {
    throw new Refusal(
      400,
      "inbox_form_invalid",
      "A grant needs this run, a number of hours, or both.",
    );
  }
  const note = personText(form, "note");
  return {
    serverId: record.serverId,
    toolName: record.toolName,
    bindingId: record.bindingId,
    catalogDigest: record.catalogDigest,
    ...(thisRun ? { runId: record.runId } : {}),
    ...(hours === undefined ? {} : { expiresAt: now + hours * 3_600_000 }),
    maxUses: uses,
    by: person,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * The grant form. A grant leaves the approval as it was, so its form's token stays valid: the
 * grant's id is derived from that token instead, and a replay of the form (a resubmit, or the
 * same body posted again at once) finds the grant the form made and records nothing.
 */
export async function makeGrant(
  settings: InboxSettings,
  context: PageContext,
  record: ApprovalRecord,
  form: URLSearchParams,
): Promise<Response> {
  const person = context.person!;
  const id = await settings.tokens.submissionId(single(form, "token")!);
  const replayed = async () => {
    const made = await settings.store.getGrant(id);
    if (made === undefined) return undefined;
    return await approvalResponse(
      settings,
      context,
      record.id,
      409,
      notice(
        "refused",
        `This form was already used: it made grant ${made.id}; nothing new was recorded.`,
        "inbox_stale_form",
      ),
    );
  };
  const earlier = await replayed();
  if (earlier !== undefined) return earlier;
  try {
    const grant = await settings.store.createGrant({
      id,
      ...grantInput(form, record, person, settings.now()),
    });
    return await approvalResponse(
      settings,
      context,
      record.id,
      200,
      notice("accepted", `Grant ${grant.id} made by ${person}.`),
    );
  } catch (error) {
    // A replay posted at the same time stored its grant first (at its own instant).
    const raced = error instanceof ApprovalError && error.code === "approval_conflict"
      ? await replayed()
      : undefined;
    if (raced === undefined) throw error;
    return raced;
  }
}
