/**
 * `approvalInbox`: a Web-standard request handler where people see what waits for them and
 * decide. Every request is authorized by the host's `authorize` (there is no default); the
 * person it returns is the only decider ever recorded. Forms carry a per-form token bound to the
 * person, the approval and its version, and are accepted only from an allowed origin. Every
 * response carries a strict Content-Security-Policy with a fresh nonce.
 *
 * @module
 */
import { html } from "./html.ts";
import { type ApprovalInboxOptions, type InboxHandler, inboxSettings } from "./options.ts";
import { notice, noticePage, type PageContext } from "./pages.ts";
import { Refusal, securityHeaders } from "./responses.ts";
import { route } from "./routes.ts";
import { randomToken } from "./secrets.ts";

export type { ApprovalInboxOptions, InboxAuthorize, InboxHandler } from "./options.ts";

/** The person `authorize` names, or `undefined` when it refuses (a throw refuses too). */
async function who(
  authorize: ApprovalInboxOptions["authorize"],
  request: Request,
): Promise<string | undefined> {
  try {
    const person = await authorize(request);
    return typeof person === "string" && person.length > 0 ? person : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the approval inbox: a `(request: Request) => Promise<Response>` handler with the list
 * of pending approvals (refreshing itself), each approval in full with approve / deny and a
 * note, and reconciliation of `unknown` outcomes with evidence. Throws `inbox_options_invalid`
 * without `authorize` or with a malformed option.
 *
 * Routes under `basePath`: `GET /` (the list), `GET /rows` (its rows, for the refresh),
 * `GET /approvals/<id>`, `POST /approvals/<id>/decide`, `POST /approvals/<id>/edit` (approve
 * with edited arguments), `POST /approvals/<id>/grant` (a standing grant for its tool),
 * `POST /approvals/<id>/reconcile`, `GET /grants` and `POST /grants/<id>/revoke`.
 * Refusals answer with a status and a code: 401 `inbox_unauthorized`, 403
 * `inbox_origin_refused` or `inbox_token_invalid`, 409 `inbox_stale_form` (the approval changed
 * since the form was rendered; the page shows its real state) or the store's own code.
 *
 * @example
 * ```ts
 * import { approvalInbox } from "@sluice/mcp/inbox";
 * import { MemoryApprovalStore } from "@sluice/mcp";
 *
 * const inbox = approvalInbox({
 *   store: new MemoryApprovalStore(),
 *   // Your own sign-in: return the person's id, or undefined to refuse.
 *   authorize: (request) =>
 *     request.headers.get("x-forwarded-user") === "alice" ? "alice" : undefined,
 * });
 * const response = await inbox(new Request("http://127.0.0.1/"));
 * console.assert(response.status === 401);
 * // Deno.serve({ hostname: "127.0.0.1", port: 8787 }, inbox);
 * ```
 *
 * @param options the store, `authorize`, and optional mount path, origins, key and clock
 *
 * @category Approval inbox
 */
export function approvalInbox(options: ApprovalInboxOptions): InboxHandler {
  const settings = inboxSettings(options);
  const { base, now } = settings;
  return async (request: Request): Promise<Response> => {
    const nonce = randomToken(18);
    const url = new URL(request.url);
    let context: PageContext = { nonce, base, person: undefined, now: now() };
    try {
      if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        throw new Refusal(404, "inbox_not_found", "No such page.");
      }
      const person = await who(settings.authorize, request);
      if (person === undefined) {
        throw new Refusal(401, "inbox_unauthorized", "Sign in to see the approval inbox.");
      }
      context = { ...context, person };
      return await route(settings, request, context, url.pathname.slice(base.length));
    } catch (error) {
      const refusal = error instanceof Refusal
        ? error
        : new Refusal(500, "approval_store_error", "The approval store failed; try again.");
      const body = noticePage(
        context,
        "Refused",
        html`<h1>Refused</h1>${notice("refused", refusal.message, refusal.code)}`,
      );
      return new Response(body, { status: refusal.status, headers: securityHeaders(nonce) });
    }
  };
}
