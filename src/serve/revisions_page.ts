/**
 * Staged revisions in the inbox mounted on `sluice serve`: `GET <inbox>/revisions` shows each
 * upstream change the endpoint staged (the diff of every added, removed and changed tool, server
 * text shown to a person, escaped), and `POST <inbox>/revisions/<id>/accept` takes one; only then
 * does the served list change and the clients get `notifications/tools/list_changed`. Signed in
 * as the inbox signs people in, forms only from the inbox's origin with a token issued to that
 * person for that revision.
 *
 * @module
 */
import { renderDiff } from "../catalog/render_diff.ts";
import type { StagedRevision } from "../connect/mod.ts";
import { attr, type Html, html } from "../inbox/html.ts";
import type { InboxSettings } from "../inbox/options.ts";
import { notice, noticePage, page, type PageContext } from "../inbox/pages.ts";
import { acceptForm } from "../inbox/posted_form.ts";
import { pageResponse, Refusal, securityHeaders } from "../inbox/responses.ts";
import { randomToken } from "../inbox/secrets.ts";

/** What the page needs of the endpoint. */
export interface RevisionsSource {
  revisions(): readonly StagedRevision[];
  accept(revision: StagedRevision): Promise<void>;
}

const ACTION = "accept-revision";

/**
 * The handler of `<base>/revisions` and `<base>/revisions/<id>/accept`, or `undefined` for any
 * other path (the inbox's own).
 *
 * @param settings the mounted inbox's settings (store, authorize, base, origins, form tokens)
 * @param source the endpoint's staged revisions and its accept
 *
 * @category sluice serve
 */
export function revisionsRoute(
  settings: InboxSettings,
  source: RevisionsSource,
): (request: Request) => Promise<Response> | undefined {
  const list = `${settings.base}/revisions`;
  return (request) => {
    const path = new URL(request.url).pathname;
    if (path !== list && !path.startsWith(`${list}/`)) return undefined;
    return answer(settings, source, request, path.slice(list.length));
  };
}

async function answer(
  settings: InboxSettings,
  source: RevisionsSource,
  request: Request,
  rest: string,
): Promise<Response> {
  const nonce = randomToken(18);
  let context: PageContext = { nonce, base: settings.base, person: undefined, now: Date.now() };
  try {
    const person = await settings.authorize(request);
    if (typeof person !== "string" || person === "") {
      throw new Refusal(401, "inbox_unauthorized", "Sign in to see the staged revisions.");
    }
    context = { ...context, person };
    if (rest === "" && request.method === "GET") {
      return pageResponse(await listPage(settings, source, context), nonce);
    }
    const match = /^\/([^/]+)\/accept$/.exec(rest);
    if (match === null || request.method !== "POST") {
      throw new Refusal(404, "inbox_not_found", "No such page.");
    }
    const id = decodeURIComponent(match[1]);
    await acceptForm(settings, request, person, id, ACTION, id);
    const revision = source.revisions().find((staged) => staged.id === id);
    if (revision === undefined) {
      throw new Refusal(409, "inbox_stale_form", "This revision is no longer staged.");
    }
    await source.accept(revision);
    const body = html`<h1>Accepted</h1>${
      notice("accepted", `Revision ${id} accepted by ${person}; the clients were told.`)
    }<p><a href="${attr(`${settings.base}/revisions`)}">Staged revisions</a></p>`;
    return pageResponse(noticePage(context, "Accepted", body), nonce);
  } catch (error) {
    const refusal = error instanceof Refusal
      ? error
      : new Refusal(500, "connect_revision_invalid", "The revision could not be accepted.");
    const body = noticePage(
      context,
      "Refused",
      html`<h1>Refused</h1>${notice("refused", refusal.message, refusal.code)}`,
    );
    return new Response(body, { status: refusal.status, headers: securityHeaders(nonce) });
  }
}

async function listPage(
  settings: InboxSettings,
  source: RevisionsSource,
  context: PageContext,
): Promise<string> {
  const items: Html[] = [];
  for (const revision of source.revisions()) {
    const token = await settings.tokens.issue({
      person: context.person!,
      approvalId: revision.id,
      action: ACTION,
      version: revision.id,
    });
    const action = `${settings.base}/revisions/${encodeURIComponent(revision.id)}/accept`;
    items.push(html`
      <section class="revision" id="${attr(revision.id)}">
        <h2>${revision.id} (server ${revision.server})</h2>
        <pre>${renderDiff(revision.diff)}</pre>
        <form method="post" action="${attr(action)}">
          <input type="hidden" name="token" value="${attr(token)}">
          <input type="hidden" name="version" value="${attr(revision.id)}">
          <button type="submit">Accept this revision</button>
        </form>
      </section>
    `);
  }
  const body = items.length === 0
    ? html`
      <h1>Staged revisions</h1>
      <p id="none">No upstream change waits.</p>
    `
    : html`<h1>Staged revisions</h1>
<p>Until accepted, the served list stays pinned and changed tools answer mcp_catalog_stale.</p>
${items}`;
  return page(context, "Staged revisions", body);
}
