/**
 * The inbox's routes under its mount path, each a named function: the list and its rows, one
 * approval and its forms, the standing grants and their revocation. A path no route matches is
 * `inbox_not_found`; a known path with the wrong method is refused with 405.
 *
 * @module
 */
import { type ApprovalAction, approvalAction } from "./approval_actions.ts";
import { approvalResponse } from "./approval_page.ts";
import { grantsResponse, revokeGrant } from "./grant_routes.ts";
import type { InboxSettings } from "./options.ts";
import { listPage, type PageContext, pendingRows } from "./pages.ts";
import { pageResponse, Refusal } from "./responses.ts";

/** `GET /`: approvals waiting for a decision, then outcomes waiting for reconciliation. */
async function listResponse(settings: InboxSettings, context: PageContext): Promise<Response> {
  const pending = await settings.store.list({ state: "pending" });
  const unknown = await settings.store.list({ state: "unknown" });
  return pageResponse(listPage(context, pending, unknown, settings.refreshMs), context.nonce);
}

/** `GET /rows`: the pending rows alone, for the list's refresh. */
async function rowsResponse(settings: InboxSettings, context: PageContext): Promise<Response> {
  const pending = await settings.store.list({ state: "pending" });
  return pageResponse(pendingRows(context, pending).html, context.nonce);
}

/** A path segment, decoded; a malformed one is a page that does not exist. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Refusal(404, "inbox_not_found", "No such page.");
  }
}

function expectMethod(request: Request, method: "GET" | "POST"): void {
  if (request.method !== method) throw new Refusal(405, "inbox_not_found", `Use ${method}.`);
}

/** Answers `request` for `path` (below the mount path) on behalf of `context.person`. */
export async function route(
  settings: InboxSettings,
  request: Request,
  context: PageContext,
  path: string,
): Promise<Response> {
  if (path === "/" || path === "") {
    expectMethod(request, "GET");
    return await listResponse(settings, context);
  }
  if (path === "/rows") {
    expectMethod(request, "GET");
    return await rowsResponse(settings, context);
  }
  if (path === "/grants") {
    expectMethod(request, "GET");
    return await grantsResponse(settings, context, 200);
  }
  const revoking = /^\/grants\/([^/]+)\/revoke$/.exec(path);
  if (revoking !== null) {
    expectMethod(request, "POST");
    return await revokeGrant(settings, request, context, decoded(revoking[1]));
  }
  const match = /^\/approvals\/([^/]+)(?:\/(decide|reconcile|edit|grant))?$/.exec(path);
  if (match === null) throw new Refusal(404, "inbox_not_found", "No such page.");
  const id = decoded(match[1]);
  const action = match[2] as ApprovalAction | undefined;
  if (action === undefined) {
    expectMethod(request, "GET");
    return await approvalResponse(settings, context, id, 200);
  }
  expectMethod(request, "POST");
  return await approvalAction(settings, request, context, id, action);
}
