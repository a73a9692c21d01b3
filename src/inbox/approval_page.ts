/**
 * The route `GET /approvals/<id>` and the page every approval form answers with: the approval
 * as recorded now, with fresh tokens for the forms its state allows.
 *
 * @module
 */
import type { ApprovalRecord } from "../approvals/types.ts";
import type { Html } from "./html.ts";
import type { InboxSettings } from "./options.ts";
import { type DetailForms, detailPage, type PageContext } from "./pages.ts";
import { pageResponse, Refusal } from "./responses.ts";

/** The approval's version a form is bound to: its state and the length of its history. */
export function versionOf(record: ApprovalRecord, historyLength: number): string {
  return `${record.state}:${historyLength}`;
}

/** The tokens of the forms `record`'s state allows, bound to `person` and `version`. */
async function formsOf(
  settings: InboxSettings,
  record: ApprovalRecord,
  person: string,
  version: string,
): Promise<DetailForms> {
  const bind = (action: string) =>
    settings.tokens.issue({ person, approvalId: record.id, action, version });
  return {
    version,
    ...(record.state === "pending"
      ? { decide: await bind("decide"), edit: await bind("edit"), grant: await bind("grant") }
      : {}),
    ...(record.state === "unknown" ? { reconcile: await bind("reconcile") } : {}),
  };
}

/** Approval `id` in full, with `status` and an optional notice above it. */
export async function approvalResponse(
  settings: InboxSettings,
  context: PageContext,
  id: string,
  status: number,
  message?: Html,
): Promise<Response> {
  const record = await settings.store.get(id);
  if (record === undefined) throw new Refusal(404, "inbox_not_found", "No such approval.");
  const events = await settings.store.events(id);
  const version = versionOf(record, events.length);
  const forms = await formsOf(settings, record, context.person!, version);
  return pageResponse(detailPage(context, record, events, forms, message), context.nonce, status);
}
