/**
 * The approval inbox's options, checked once when the handler is made, and the settings every
 * route reads from them.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/types.ts";
import { InboxError } from "./errors.ts";
import { FormTokens } from "./form_token.ts";

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

/** What the routes read: the options with their defaults applied, and the form tokens. */
export interface InboxSettings {
  /** The approval store people decide in. */
  readonly store: ApprovalStore;
  /** Who the request comes from. */
  readonly authorize: InboxAuthorize;
  /** The mount path, `""` at the root. */
  readonly base: string;
  /** Origins forms may be posted from; `undefined`: the request's own origin. */
  readonly allowedOrigins: readonly string[] | undefined;
  /** The list's reload interval in milliseconds (0: off). */
  readonly refreshMs: number;
  /** Clock in milliseconds since the Unix epoch. */
  readonly now: () => number;
  /** Issues and checks the per-form tokens. */
  readonly tokens: FormTokens;
}

/** Checks `options` and applies their defaults; throws `inbox_options_invalid`. */
export function inboxSettings(options: ApprovalInboxOptions): InboxSettings {
  checkOptions(options);
  const now = options.now ?? Date.now;
  const secret = options.secret === undefined
    ? crypto.getRandomValues(new Uint8Array(32))
    : new Uint8Array(options.secret);
  return {
    store: options.store,
    authorize: options.authorize,
    base: options.basePath ?? "",
    allowedOrigins: options.allowedOrigins,
    refreshMs: options.refreshMs ?? 3000,
    now,
    tokens: new FormTokens(secret, options.formTtlMs ?? 60 * 60 * 1000, now),
  };
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
