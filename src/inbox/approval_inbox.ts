/**
 * `approvalInbox`: a Web-standard request handler where people see what waits for them and
 * decide. Every request is authorized by the host's `authorize` (there is no default); the
 * person it returns is the only decider ever recorded. Forms carry a per-form token bound to the
 * person, the approval and its version, and are accepted only from an allowed origin. Every
 * response carries a strict Content-Security-Policy with a fresh nonce.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import type { JsonObject } from "../identity/mod.ts";
import type { ApprovalRecord, ApprovalStore } from "../approvals/types.ts";
import { InboxError, type InboxErrorCode } from "./errors.ts";
import { FormTokens } from "./form_token.ts";
import { randomToken } from "./secrets.ts";
import { type Html, html } from "./html.ts";
import {
  type DetailForms,
  detailPage,
  grantsPage,
  listPage,
  notice,
  noticePage,
  type PageContext,
  pendingRows,
} from "./pages.ts";

/**
 * Decides who sends a request: a person's id (non-empty), or `undefined` / `null` to refuse it.
 * A throw refuses too.
 *
 * @category Approval inbox
 */
export type InboxAuthorize = (
  request: Request,
) => string | undefined | null | Promise<string | undefined | null>;

/**
 * A Web-standard handler: mount it in `Deno.serve`, `Bun.serve`, a Worker's `fetch`, Hono.
 *
 * @category Approval inbox
 */
export type InboxHandler = (request: Request) => Promise<Response>;

/**
 * Options of {@link approvalInbox}.
 *
 * @category Approval inbox
 */
export interface ApprovalInboxOptions {
  /** The approval store people decide in (the one the gate uses). */
  readonly store: ApprovalStore;
  /** Required: who the request comes from. There is no default that lets everyone in. */
  readonly authorize: InboxAuthorize;
  /** The path the inbox is mounted at, such as `/inbox` (default: the root). */
  readonly basePath?: string;
  /**
   * Origins forms may be posted from, such as `https://ops.example.com` behind a proxy.
   * Default: the origin of the request's own URL.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Key of the per-form tokens (at least 32 bytes); share it between instances behind one
   * load balancer. Default: random, per handler.
   */
  readonly secret?: Uint8Array;
  /** How long a rendered form stays usable, in milliseconds (default one hour). */
  readonly formTtlMs?: number;
  /** How often the list reloads its rows, in milliseconds (default 3 000; 0 turns it off). */
  readonly refreshMs?: number;
  /** Clock in milliseconds since the Unix epoch (default `Date.now`). */
  readonly now?: () => number;
}

/** The longest form body read, in bytes. */
const MAX_FORM_BYTES = 16 * 1024;
/** The longest note or evidence kept, in characters. */
const MAX_TEXT = 2000;

const HTML_TYPE = "text/html; charset=utf-8";

/** The security headers of every response, with the nonce of its one script and style. */
function headers(nonce: string, extra: Record<string, string> = {}): Headers {
  return new Headers({
    "content-type": HTML_TYPE,
    "content-security-policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    ...extra,
  });
}

class Refusal {
  readonly status: number;
  readonly code: InboxErrorCode | string;
  readonly message: string;
  constructor(status: number, code: InboxErrorCode | string, message: string) {
    this.status = status;
    this.code = code;
    this.message = message;
  }
}

/** Reads a urlencoded form of at most {@link MAX_FORM_BYTES}. */
async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new Refusal(415, "inbox_form_invalid", "The form must be sent urlencoded.");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) {
    throw new Refusal(413, "inbox_form_invalid", "The form is too large.");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size > MAX_FORM_BYTES) {
        throw new Refusal(413, "inbox_form_invalid", "The form is too large.");
      }
      chunks.push(chunk);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** A single form field: absent, or present exactly once. */
function single(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new Refusal(400, "inbox_form_invalid", `${name} given twice.`);
  return values[0];
}

/** A person's text field: trimmed, bounded; `undefined` when empty. */
function personText(form: URLSearchParams, name: string): string | undefined {
  const value = single(form, name)?.trim();
  if (value === undefined || value === "") return undefined;
  if (value.length > MAX_TEXT) {
    throw new Refusal(400, "inbox_form_invalid", `${name} is longer than ${MAX_TEXT} characters.`);
  }
  return value;
}

/** A path segment, decoded; a malformed one is a page that does not exist. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Refusal(404, "inbox_not_found", "No such page.");
  }
}

/** The edited arguments of the approve-with-edits form: one JSON object. */
function editedArguments(text: string | undefined): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "");
  } catch {
    throw new Refusal(400, "inbox_form_invalid", "The arguments are not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Refusal(400, "inbox_form_invalid", "The arguments must be a JSON object.");
  }
  return value as JsonObject;
}

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

/** The approval's version a form is bound to: its state and the length of its history. */
function versionOf(record: ApprovalRecord, historyLength: number): string {
  return `${record.state}:${historyLength}`;
}

function checkOptions(options: ApprovalInboxOptions): void {
  const invalid = (message: string) => new InboxError("inbox_options_invalid", message);
  if (typeof options !== "object" || options === null) throw invalid("options are required");
  if (typeof options.authorize !== "function") {
    throw invalid("authorize is required: the inbox has no default that lets everyone in");
  }
  const store = options.store as Partial<ApprovalStore> | undefined;
  for (
    const method of [
      "list",
      "get",
      "events",
      "approve",
      "deny",
      "reconcile",
      "approveWithEdits",
      "createGrant",
      "listGrants",
      "revokeGrant",
    ] as const
  ) {
    if (typeof store?.[method] !== "function") throw invalid(`store.${method} is missing`);
  }
  if (options.basePath !== undefined && !/^(\/[A-Za-z0-9._~-]+)*$/.test(options.basePath)) {
    throw invalid("basePath must be empty or like /inbox (no trailing slash)");
  }
  if (options.secret !== undefined && options.secret.byteLength < 32) {
    throw invalid("secret must be at least 32 bytes");
  }
  for (
    const [name, value] of [["formTtlMs", options.formTtlMs], [
      "refreshMs",
      options.refreshMs,
    ]] as const
  ) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw invalid(`${name} must be a non-negative integer`);
    }
  }
  for (const origin of options.allowedOrigins ?? []) {
    if (typeof origin !== "string" || URL.parse(origin)?.origin !== origin) {
      throw invalid(`allowedOrigins entry is not an origin like https://host: ${origin}`);
    }
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
  checkOptions(options);
  const { store, authorize } = options;
  const base = options.basePath ?? "";
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 3000;
  const secret = options.secret === undefined
    ? crypto.getRandomValues(new Uint8Array(32))
    : new Uint8Array(options.secret);
  const tokens = new FormTokens(secret, options.formTtlMs ?? 60 * 60 * 1000, now);

  async function who(request: Request): Promise<string | undefined> {
    try {
      const person = await authorize(request);
      return typeof person === "string" && person.length > 0 ? person : undefined;
    } catch {
      return undefined;
    }
  }

  function originAllowed(request: Request): boolean {
    const origin = request.headers.get("origin");
    const allowed = options.allowedOrigins ?? [new URL(request.url).origin];
    if (origin !== null) return allowed.includes(origin);
    // No Origin header: only a same-origin request marked so by the browser itself.
    return request.headers.get("sec-fetch-site") === "same-origin" && options.allowedOrigins ===
        undefined;
  }

  async function forms(record: ApprovalRecord, person: string, version: string) {
    const bind = (action: string) =>
      tokens.issue({ person, approvalId: record.id, action, version });
    const result: DetailForms = {
      version,
      ...(record.state === "pending"
        ? { decide: await bind("decide"), edit: await bind("edit"), grant: await bind("grant") }
        : {}),
      ...(record.state === "unknown" ? { reconcile: await bind("reconcile") } : {}),
    };
    return result;
  }

  async function detail(
    context: PageContext,
    id: string,
    status: number,
    message?: Html,
  ): Promise<Response> {
    const record = await store.get(id);
    if (record === undefined) throw new Refusal(404, "inbox_not_found", "No such approval.");
    const events = await store.events(id);
    const version = versionOf(record, events.length);
    const body = detailPage(
      context,
      record,
      events,
      await forms(record, context.person!, version),
      message,
    );
    return new Response(body, { status, headers: headers(context.nonce) });
  }

  /** The origin check, the form, and its token: refusals throw, `stale` is returned. */
  async function acceptForm(
    request: Request,
    person: string,
    subject: string,
    action: string,
    version: string,
  ): Promise<{ form: URLSearchParams; stale: boolean }> {
    if (!originAllowed(request)) {
      throw new Refusal(403, "inbox_origin_refused", "Forms are accepted from this inbox only.");
    }
    const form = await readForm(request);
    const check = await tokens.check(
      single(form, "token"),
      { person, approvalId: subject, action, version },
      single(form, "version"),
    );
    if (check === "invalid" || check === "expired") {
      throw new Refusal(
        403,
        "inbox_token_invalid",
        check === "expired"
          ? "This form has expired; reload the page."
          : "This form was not issued to you by this inbox.",
      );
    }
    return { form, stale: check === "stale" };
  }

  async function grants(context: PageContext, status: number, message?: Html) {
    const all = await store.listGrants();
    const revoke = new Map<string, string>();
    for (const grant of all) {
      if (grant.revokedAt !== undefined) continue;
      revoke.set(
        grant.id,
        await tokens.issue({
          person: context.person!,
          approvalId: grant.id,
          action: "revoke",
          version: "active",
        }),
      );
    }
    return new Response(grantsPage(context, all, revoke, message), {
      status,
      headers: headers(context.nonce),
    });
  }

  async function revoke(request: Request, context: PageContext, id: string) {
    const grant = await store.getGrant(id);
    if (grant === undefined) throw new Refusal(404, "inbox_not_found", "No such grant.");
    const version = grant.revokedAt === undefined ? "active" : "revoked";
    const { stale } = await acceptForm(request, context.person!, id, "revoke", version);
    if (stale) {
      return await grants(
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
      await store.revokeGrant(id, { by: context.person! });
    } catch (error) {
      if (!(error instanceof ApprovalError)) throw error;
      return await grants(
        context,
        409,
        notice("refused", "The store refused this; nothing was recorded.", error.code),
      );
    }
    return await grants(context, 200, notice("accepted", `Grant revoked by ${context.person}.`));
  }

  /**
   * The grant form. A grant leaves the approval as it was, so its form's token stays valid: the
   * grant's id is derived from that token instead, and a replay of the form (a resubmit, or the
   * same body posted again at once) finds the grant the form made and records nothing.
   */
  async function makeGrant(
    context: PageContext,
    record: ApprovalRecord,
    form: URLSearchParams,
  ): Promise<Response> {
    const person = context.person!;
    const id = await tokens.submissionId(single(form, "token")!);
    const replayed = async () => {
      const made = await store.getGrant(id);
      if (made === undefined) return undefined;
      return await detail(
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
      const grant = await store.createGrant({ id, ...grantInput(form, record, person, now()) });
      return await detail(
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

  async function act(
    request: Request,
    context: PageContext,
    id: string,
    action: "decide" | "reconcile" | "edit" | "grant",
  ): Promise<Response> {
    const person = context.person!;
    const record = await store.get(id);
    if (record === undefined) throw new Refusal(404, "inbox_not_found", "No such approval.");
    const version = versionOf(record, (await store.events(id)).length);
    const { form, stale } = await acceptForm(request, person, id, action, version);
    if (stale) {
      return await detail(
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
      if (action === "edit") {
        const edited = editedArguments(single(form, "arguments"));
        const note = personText(form, "note");
        const { approval } = await store.approveWithEdits(id, {
          by: person,
          arguments: edited,
          ...(note === undefined ? {} : { note }),
        });
        return await detail(
          context,
          id,
          200,
          notice(
            "accepted",
            `Approved with edits by ${person}; the edited call is ${approval.id}.`,
          ),
        );
      }
      if (action === "grant") return await makeGrant(context, record, form);
      if (action === "decide") {
        const decision = single(form, "decision");
        if (decision !== "approve" && decision !== "deny") {
          throw new Refusal(400, "inbox_form_invalid", "decision must be approve or deny.");
        }
        const note = personText(form, "note");
        const input = { by: person, ...(note === undefined ? {} : { note }) };
        if (decision === "approve") await store.approve(id, input);
        else await store.deny(id, input);
        const done = decision === "approve" ? "Approved" : "Denied";
        return await detail(context, id, 200, notice("accepted", `${done} by ${person}.`));
      }
      const outcome = single(form, "outcome");
      if (outcome !== "committed" && outcome !== "not_started") {
        throw new Refusal(400, "inbox_form_invalid", "outcome must be committed or not_started.");
      }
      const evidence = personText(form, "evidence");
      if (evidence === undefined) {
        throw new Refusal(400, "inbox_form_invalid", "Evidence is required.");
      }
      await store.reconcile(id, { outcome, evidence, by: person });
      return await detail(
        context,
        id,
        200,
        notice("accepted", `Reconciled as ${outcome} by ${person}.`),
      );
    } catch (error) {
      if (!(error instanceof ApprovalError)) throw error;
      // Decided, expired or changed in the store meanwhile: show what is recorded.
      return await detail(
        context,
        id,
        409,
        notice("refused", "The store refused this; nothing was recorded.", error.code),
      );
    }
  }

  async function route(request: Request, context: PageContext, path: string): Promise<Response> {
    const method = request.method;
    if (path === "/" || path === "") {
      if (method !== "GET") throw new Refusal(405, "inbox_not_found", "Use GET.");
      const pending = await store.list({ state: "pending" });
      const unknown = await store.list({ state: "unknown" });
      return new Response(listPage(context, pending, unknown, refreshMs), {
        headers: headers(context.nonce),
      });
    }
    if (path === "/rows") {
      if (method !== "GET") throw new Refusal(405, "inbox_not_found", "Use GET.");
      const pending = await store.list({ state: "pending" });
      return new Response(pendingRows(context, pending).html, { headers: headers(context.nonce) });
    }
    if (path === "/grants") {
      if (method !== "GET") throw new Refusal(405, "inbox_not_found", "Use GET.");
      return await grants(context, 200);
    }
    const revoking = /^\/grants\/([^/]+)\/revoke$/.exec(path);
    if (revoking !== null) {
      if (method !== "POST") throw new Refusal(405, "inbox_not_found", "Use POST.");
      return await revoke(request, context, decoded(revoking[1]));
    }
    const match = /^\/approvals\/([^/]+)(?:\/(decide|reconcile|edit|grant))?$/.exec(path);
    if (match === null) throw new Refusal(404, "inbox_not_found", "No such page.");
    const id = decoded(match[1]);
    const action = match[2] as "decide" | "reconcile" | "edit" | "grant" | undefined;
    if (action === undefined) {
      if (method !== "GET") throw new Refusal(405, "inbox_not_found", "Use GET.");
      return await detail(context, id, 200);
    }
    if (method !== "POST") throw new Refusal(405, "inbox_not_found", "Use POST.");
    return await act(request, context, id, action);
  }

  return async (request: Request): Promise<Response> => {
    const nonce = randomToken(18);
    const url = new URL(request.url);
    let context: PageContext = { nonce, base, person: undefined, now: now() };
    try {
      if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        throw new Refusal(404, "inbox_not_found", "No such page.");
      }
      const person = await who(request);
      if (person === undefined) {
        throw new Refusal(401, "inbox_unauthorized", "Sign in to see the approval inbox.");
      }
      context = { ...context, person };
      return await route(request, context, url.pathname.slice(base.length));
    } catch (error) {
      const refusal = error instanceof Refusal
        ? error
        : new Refusal(500, "approval_store_error", "The approval store failed; try again.");
      const body = noticePage(
        context,
        "Refused",
        html`<h1>Refused</h1>${notice("refused", refusal.message, refusal.code)}`,
      );
      return new Response(body, { status: refusal.status, headers: headers(nonce) });
    }
  };
}
