/**
 * The inbox's server-rendered pages: the list of approvals waiting for a person, one approval in
 * full with its forms, and the answer to a refused or accepted form. Every value goes through
 * the escaping of `html.ts`; the one script and the one style sheet carry the response's nonce.
 *
 * @module
 */
import type { ApprovalEvent, ApprovalGrant, ApprovalRecord } from "../approvals/types.ts";
import { grantStatus } from "../approvals/grants.ts";
import { attr, constantMarkup, type Html, html } from "./html.ts";
import {
  approvalFormTarget,
  decideForm,
  editForm,
  grantForm,
  reconcileForm,
} from "./approval_forms.ts";

/**
 * What every page needs: the nonce of its response and where the inbox is mounted.
 *
 * @category Approval inbox
 */
export interface PageContext {
  /** The Content-Security-Policy nonce of this response. */
  readonly nonce: string;
  /** The path the inbox is mounted at, without a trailing slash (`""` at the root). */
  readonly base: string;
  /** The authorized person; `undefined` on the pages that refuse anonymous requests. */
  readonly person: string | undefined;
  /** The current time, milliseconds since the Unix epoch. */
  readonly now: number;
}

/**
 * The tokens a detail page's forms carry.
 *
 * @category Approval inbox
 */
export interface DetailForms {
  /** The approval's version the forms were rendered at. */
  readonly version: string;
  /** Token of the approve / deny form, when the approval is pending. */
  readonly decide?: string;
  /** Token of the reconcile form, when the outcome is `unknown`. */
  readonly reconcile?: string;
  /** Token of the approve-with-edits form, when the approval is pending. */
  readonly edit?: string;
  /** Token of the grant form, when the approval is pending. */
  readonly grant?: string;
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b1f24;color:#fff;padding:.7rem 1.2rem;display:flex;gap:1rem;align-items:baseline}
header a{color:#fff;text-decoration:none;font-weight:600}header span{margin-left:auto;opacity:.8}
main{max-width:70rem;margin:1.2rem auto;padding:0 1.2rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#57606a}
dl{display:grid;grid-template-columns:12rem 1fr;gap:.3rem 1rem;background:#fff;padding:1rem}
dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}
pre{background:#fff;border:1px solid #e3e6ea;padding:1rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.cp{background:#fff0c2;color:#7a4d00;border-radius:3px;font:12px monospace;padding:0 2px}
.state{font-weight:600}.state-pending{color:#9a6700}.state-approved,.state-committed{color:#1a7f37}
.state-denied,.state-expired,.state-not_started{color:#57606a}.state-unknown{color:#cf222e}
.refused{background:#ffebe9;border:1px solid #ff8182;padding:1rem}
.accepted{background:#dafbe1;border:1px solid #4ac26b;padding:1rem}
form{background:#fff;padding:1rem;margin:1rem 0;border:1px solid #e3e6ea}
textarea{width:100%;min-height:4rem;font:inherit;box-sizing:border-box}
button{font:inherit;padding:.4rem 1rem;margin:.5rem .5rem 0 0;cursor:pointer}
.empty{color:#57606a;padding:1rem;background:#fff}`;

/** `value` as a JavaScript string literal that cannot end the script element. */
function scriptString(value: string): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028|\u2029/g, "");
}

/** The browser side: expiry countdowns, and the list reloading its rows. */
function script(base: string, refreshMs: number | undefined): string {
  return `(() => {
const left = (ms) => { if (ms <= 0) return "expired"; const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + "h " : "") + (h || m ? m + "m " : "") + r + "s"; };
const tick = () => { for (const el of document.querySelectorAll("time[data-expires]")) {
  el.textContent = left(Number(el.dataset.expires) - Date.now()); } };
tick(); setInterval(tick, 1000);
const rows = document.getElementById("pending-rows");
const refresh = ${refreshMs === undefined ? "0" : String(refreshMs)};
if (rows && refresh > 0) setInterval(async () => {
  try { const res = await fetch(${scriptString(`${base}/rows`)}, { credentials: "same-origin" });
    if (!res.ok) return; rows.innerHTML = await res.text(); tick();
  } catch { /* the next poll tries again */ } }, refresh);
})();`;
}

/**
 * A whole page around `body`.
 *
 * @category Approval inbox
 */
export function page(
  context: PageContext,
  title: string,
  body: Html,
  refreshMs?: number,
): string {
  const nonce = attr(context.nonce);
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <meta name="referrer" content="same-origin">
        <title>${title} · sluice inbox</title>
        <style nonce="${nonce}">${constantMarkup(STYLE)}</style>
      </head>
      <body>
        <header><a href="${attr(`${context.base}/`)}">sluice inbox</a>
    <a href="${attr(`${context.base}/grants`)}" id="grants-link">Standing grants</a>
    <span>${context.person === undefined
      ? "not signed in"
      : html`signed in as <b id="person">${context.person}</b>`}</span></header>
        <main>${body}</main>
        <script nonce="${nonce}">${constantMarkup(script(context.base, refreshMs))}</script>
      </body>
    </html>
  `.html;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A countdown to `expiresAt`, updated by the page's script. */
function expiry(expiresAt: number, now: number): Html {
  return html`<time data-expires="${attr(String(expiresAt))}" datetime="${attr(iso(expiresAt))}">${
    remaining(expiresAt - now)
  }</time>`;
}

/** `14m 59s`, or `expired`. */
function remaining(ms: number): string {
  if (ms <= 0) return "expired";
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h}h ` : ""}${h || m ? `${m}m ` : ""}${s % 60}s`;
}

/** A table's header row. */
function tableHead(...columns: string[]): Html {
  return html`
    <thead>
      <tr>${columns.map((column) => html`<th>${column}</th>`)}</tr>
    </thead>
  `;
}

function state(record: ApprovalRecord): Html {
  return html`<span class="state state-${attr(record.state)}">${record.state}</span>`;
}

function link(context: PageContext, record: ApprovalRecord): Html {
  return approvalLink(context, record.id);
}

function approvalLink(context: PageContext, id: string): Html {
  return html`<a class="approval-link" href="${
    attr(`${context.base}/approvals/${encodeURIComponent(id)}`)
  }">${id}</a>`;
}

/**
 * The standing grants, each with its status, its uses and (while active) a revoke form carrying
 * its token.
 *
 * @category Approval inbox
 */
export function grantsPage(
  context: PageContext,
  grants: readonly ApprovalGrant[],
  revokeTokens: ReadonlyMap<string, string>,
  notice?: Html,
): string {
  const rows = grants.map((grant) => {
    const status = grantStatus(grant, context.now);
    const token = revokeTokens.get(grant.id);
    return html`
      <tr data-grant="${attr(grant.id)}">
        <td>${grant.id}</td>
        <td><span class="state state-${attr(status)}">${status}</span></td>
        <td>${grant.serverId} / ${grant.toolName}</td>
        <td>${grant.uses} of ${grant.maxUses}</td>
        <td>${grant.runId ?? ""}</td>
        <td>${grant.expiresAt === undefined ? "" : iso(grant.expiresAt)}</td>
        <td>${grant.grantedBy}${grant.note === undefined ? "" : html`
          — “${grant.note}”
        `}</td>
        <td>${token === undefined
          ? (grant.revokedBy === undefined ? "" : `revoked by ${grant.revokedBy}`)
          : html`
            <form method="post" class="revoke"
              action="${attr(
                `${context.base}/grants/${encodeURIComponent(grant.id)}/revoke`,
              )}"><input type="hidden" name="token" value="${attr(token)}">
            <input type="hidden" name="version" value="active">
            <button type="submit" class="revoke-submit">Revoke</button></form>
          `}</td>
      </tr>
    `;
  });
  return page(
    context,
    "Standing grants",
    html`
      ${notice}<h1>Standing grants</h1>
      <table id="grants">
        ${tableHead("Grant", "Status", "Tool", "Used", "Run", "Until", "Granted by", "")}
        <tbody>${grants.length === 0
          ? html`
            <tr>
              <td colspan="8" class="empty">No grants.</td>
            </tr>
          `
          : rows}</tbody>
      </table>
    `,
  );
}

/**
 * The rows of the pending table (also served alone, for the list's refresh).
 *
 * @category Approval inbox
 */
export function pendingRows(context: PageContext, records: readonly ApprovalRecord[]): Html {
  if (records.length === 0) {
    return html`
      <tr>
        <td colspan="6" class="empty">Nothing is waiting for a decision.</td>
      </tr>
    `;
  }
  return html`${
    records.map((record) =>
      html`
        <tr data-id="${attr(record.id)}">
          <td>${link(context, record)}</td>
          <td>${record.serverId}</td>
          <td>${record.toolName}</td>
          <td>${record.effect}</td>
          <td>${expiry(record.expiresAt, context.now)}</td>
          <td>${record.runId ?? ""}</td>
        </tr>
      `
    )
  }`;
}

/**
 * The list: approvals waiting for a decision, then outcomes waiting for reconciliation.
 *
 * @category Approval inbox
 */
export function listPage(
  context: PageContext,
  pending: readonly ApprovalRecord[],
  unknown: readonly ApprovalRecord[],
  refreshMs: number,
): string {
  const rows = pendingRows(context, pending);
  const unknownRows = unknown.map((record) =>
    html`
      <tr>
        <td>${link(context, record)}</td>
        <td>${record.serverId}</td>
        <td>${record.toolName}</td>
        <td>${record.outcomeReason ?? ""}</td>
      </tr>
    `
  );
  return page(
    context,
    "Pending approvals",
    html`
      <h1>Waiting for a decision</h1>
      <table>
        ${tableHead("Approval", "Server", "Tool", "Effect", "Expires in", "Run")}
        <tbody id="pending-rows">${rows}</tbody>
      </table>
      ${unknown.length === 0 ? "" : html`
        <h2>Outcome unknown: reconcile with evidence</h2>
        <table>
          ${tableHead("Approval", "Server", "Tool", "Reason")}
          <tbody id="unknown-rows">${unknownRows}</tbody>
        </table>
      `}
    `,
    refreshMs,
  );
}

function field(name: string, value: unknown): Html {
  return value === undefined ? html`` : html`
    <dt>${name}</dt>
    <dd>${value}</dd>
  `;
}

function decisionText(record: ApprovalRecord): string | undefined {
  const decision = record.decision;
  if (decision === undefined) return undefined;
  const note = decision.note === undefined ? "" : ` — “${decision.note}”`;
  return `${decision.decision} by ${decision.by} at ${iso(decision.at)}${note}`;
}

/** Everything being approved, field by field. */
function approvalFields(context: PageContext, record: ApprovalRecord): Html {
  const reconciliation = record.reconciliation;
  return html`
    <dl id="approval">
    ${field("State", state(record))}
    ${field("Server", record.serverId)}
    ${field("Tool", html`${record.toolName} (remote ${record.remoteToolName})`)}
    ${field("Effect", record.effect)}
    ${field(
      "Expires",
      record.state === "pending" || record.state === "approved"
        ? html`${expiry(record.expiresAt, context.now)} (${iso(record.expiresAt)})`
        : iso(record.expiresAt),
    )}
    ${field("Created", iso(record.createdAt))}
    ${field("Catalog digest", record.catalogDigest)}
    ${field("Binding", record.bindingId)}
    ${field("Scope", html`${record.scopeId} (revision ${record.scopeRevision})`)}
    ${field("Run", record.runId)}
    ${field("Call", record.callId)}
    ${field("Arguments digest", record.argumentsDigest)}
    ${field("Decision", decisionText(record))}
    ${field("Claimed", record.claimedAt === undefined ? undefined : iso(record.claimedAt))}
    ${field("Refused", record.refusal?.code)}
    ${field("Receipt", record.receipt?.resultDigest)}
    ${field("Outcome reason", record.outcomeReason)}
    ${field(
      "Superseded by",
      record.supersededBy === undefined ? undefined : approvalLink(context, record.supersededBy),
    )}
    ${field(
      "Edit of",
      record.supersedes === undefined ? undefined : approvalLink(context, record.supersedes),
    )}
    ${field("Approved by grant", record.grantId)}
    ${field(
      "Reconciled",
      reconciliation === undefined
        ? undefined
        : `${reconciliation.outcome} by ${reconciliation.by} at ${
          iso(reconciliation.at)
        }: ${reconciliation.evidence}`,
    )}
    </dl>
  `;
}

/** The approval's recorded transitions, oldest first. */
function historyTable(events: readonly ApprovalEvent[]): Html {
  return html`
    <h2>History</h2>
    <table id="history">
      ${tableHead("When", "From", "To", "By", "Detail")}
      <tbody>${events.map((event) =>
        html`
          <tr>
            <td>${iso(event.at)}</td>
            <td>${event.from ?? "—"}</td>
            <td>${event.to}</td>
            <td>${event.by ?? ""}</td>
            <td>${event.detail ?? ""}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/**
 * One approval in full: everything being approved, its history and the forms it allows.
 *
 * @category Approval inbox
 */
export function detailPage(
  context: PageContext,
  record: ApprovalRecord,
  events: readonly ApprovalEvent[],
  forms: DetailForms,
  notice?: Html,
): string {
  const target = approvalFormTarget(context.base, record, forms.version);
  const body = html`
    ${notice}<h1>Approval ${record.id}</h1>
    ${approvalFields(context, record)}
    <h2>Arguments</h2>
    <pre id="arguments">${JSON.stringify(record.arguments, null, 2)}</pre>
    ${forms.decide === undefined ? "" : decideForm(target, forms.decide)}
    ${forms.edit === undefined ? "" : editForm(target, forms.edit, record)}
    ${forms.grant === undefined ? "" : grantForm(target, forms.grant, record)}
    ${forms.reconcile === undefined ? "" : reconcileForm(target, forms.reconcile)}
    ${historyTable(events)}
  `;
  return page(context, `Approval ${record.id}`, body);
}

/**
 * A short notice above a page: a refusal (with its code) or a recorded decision.
 *
 * @category Approval inbox
 */
export function notice(kind: "refused" | "accepted", message: string, code?: string): Html {
  return html`<div class="${attr(kind)}" id="notice" role="status">${message}${
    code === undefined ? "" : html`
      <code>${code}</code>
    `
  }</div>`;
}

/**
 * A page that is only a notice (refusals before any approval can be shown).
 *
 * @category Approval inbox
 */
export function noticePage(context: PageContext, title: string, body: Html): string {
  return page(context, title, body);
}
