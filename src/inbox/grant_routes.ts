/**
 * The standing grants: `GET /grants` lists them with a revoke form for each active one, and
 * `POST /grants/<id>/revoke` revokes one.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import type { Html } from "./html.ts";
import type { InboxSettings } from "./options.ts";
import { grantsPage, notice, type PageContext } from "./pages.ts";
import { acceptForm } from "./posted_form.ts";
import { pageResponse, Refusal } from "./responses.ts";

/** Every grant, with fresh revoke tokens for the active ones. */
export async function grantsResponse(
  settings: InboxSettings,
  context: PageContext,
  status: number,
  message?: Html,
): Promise<Response> {
  const all = await settings.store.listGrants();
  const revoke = new Map<string, string>();
  for (const grant of all) {
    if (grant.revokedAt !== undefined) continue;
    revoke.set(
      grant.id,
      await settings.tokens.issue({
        person: context.person!,
        approvalId: grant.id,
        action: "revoke",
        version: "active",
      }),
    );
  }
  return pageResponse(grantsPage(context, all, revoke, message), context.nonce, status);
}

/** Revokes grant `id` when its form is current; answers with the grants. */
export async function revokeGrant(
  settings: InboxSettings,
  request: Request,
  context: PageContext,
  id: string,
): Promise<Response> {
  const grant = await settings.store.getGrant(id);
  if (grant === undefined) throw new Refusal(404, "inbox_not_found", "No such grant.");
  const version = grant.revokedAt === undefined ? "active" : "revoked";
  const { stale } = await acceptForm(settings, request, context.person!, id, "revoke", version);
  if (stale) {
    return await grantsResponse(
      settings,
      context,
      409,
      notice(
        "refused",
        "This grant was already revoked; nothing was recorded.",
        "inbox_stale_form",
      ),
    );
  }
  try {
    await settings.store.revokeGrant(id, { by: context.person! });
  } catch (error) {
    if (!(error instanceof ApprovalError)) throw error;
    return await grantsResponse(
      settings,
      context,
      409,
      notice("refused", "The store refused this; nothing was recorded.", error.code),
    );
  }
  return await grantsResponse(
    settings,
    context,
    200,
    notice("accepted", `Grant revoked by ${context.person}.`),
  );
}
