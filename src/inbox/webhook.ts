/**
 * `webhookNotifier`: tells a person's tools that an approval waits. It POSTs a small JSON
 * (id, server, tool, effect, expiry and a link to the inbox; the arguments only when the host
 * opts in) through sluice's hardened fetch, signed with HMAC-SHA256 so the receiver can check
 * it came from the host. Hand it to the gate's or `connect()`'s `onPending`, which never waits
 * for it and ignores its failures.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { ApprovalRecord } from "../approvals/types.ts";
import { secureFetch, type SecureFetchOptions } from "../transport/secure_fetch.ts";
import { InboxError } from "./errors.ts";
import { equalSecrets } from "./secrets.ts";

/**
 * The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`.
 *
 * @category Approval inbox
 */
export const WEBHOOK_SIGNATURE_HEADER = "sluice-signature";

/**
 * The JSON a webhook receives.
 *
 * @category Approval inbox
 */
export interface PendingWebhookPayload {
  /** Always `approval.pending`. */
  readonly type: "approval.pending";
  /** The approval's id. */
  readonly id: string;
  /** The host's id for the server. */
  readonly server: string;
  /** The local tool name. */
  readonly tool: string;
  /** The declared effect. */
  readonly effect: "write" | "destructive";
  /** Expiry, ISO 8601. */
  readonly expiresAt: string;
  /** The approval's page in the inbox, when `inboxUrl` is configured. */
  readonly link?: string;
  /** The call's arguments, only with `includeArguments: true`. */
  readonly arguments?: JsonObject;
}

/**
 * Options of {@link webhookNotifier}.
 *
 * @category Approval inbox
 */
export interface WebhookNotifierOptions {
  /** The shared HMAC key the receiver verifies with (at least 16 characters). */
  readonly secret: string;
  /** Where the inbox is served, such as `https://ops.example.com/inbox`; links point below it. */
  readonly inboxUrl?: string;
  /** Send the call's arguments too. Default `false`: they may hold what the hook must not see. */
  readonly includeArguments?: boolean;
  /** The hardened fetch's options (loopback for tests, deadline, resolver). */
  readonly transport?: Pick<
    SecureFetchOptions,
    "dangerouslyAllowLoopback" | "timeoutMs" | "resolve" | "fetch"
  >;
  /** Clock in milliseconds since the Unix epoch (default `Date.now`), for the signature time. */
  readonly now?: () => number;
}

/**
 * What `onPending` receives and a notifier takes.
 *
 * @category Approval inbox
 */
export type PendingNotifier = (approval: ApprovalRecord) => Promise<void>;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return [...mac].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Creates a notifier that POSTs each pending approval to `url`, signed with `secret`. The
 * returned function rejects (`inbox_webhook_failed`, or the transport's code) when the webhook
 * does not answer 2xx; the gate ignores that. Throws `inbox_options_invalid` for a short
 * secret or a malformed `inboxUrl`.
 *
 * @example
 * ```ts
 * import { webhookNotifier } from "@sluice/mcp/inbox";
 * const notify = webhookNotifier("https://hooks.example.com/sluice", {
 *   secret: "a shared secret of some length",
 *   inboxUrl: "https://ops.example.com/inbox",
 * });
 * // new Gate({ catalogs, store, onPending: notify }), or connect({ ..., onPending: notify })
 * ```
 *
 * @param url the webhook's https URL
 * @param options the shared secret, inbox link, opt-in for arguments, transport options
 *
 * @category Approval inbox
 */
export function webhookNotifier(
  url: string | URL,
  options: WebhookNotifierOptions,
): PendingNotifier {
  if (typeof options?.secret !== "string" || options.secret.length < 16) {
    throw new InboxError("inbox_options_invalid", "secret must be at least 16 characters");
  }
  const inboxUrl = options.inboxUrl?.replace(/\/+$/, "");
  if (inboxUrl !== undefined && URL.parse(inboxUrl) === null) {
    throw new InboxError("inbox_options_invalid", "inboxUrl is not a URL");
  }
  const target = String(url);
  const now = options.now ?? Date.now;
  const post = secureFetch({
    maxResponseBytes: 16 * 1024,
    timeoutMs: 10_000,
    ...options.transport,
  });
  return async (approval) => {
    const payload: PendingWebhookPayload = {
      type: "approval.pending",
      id: approval.id,
      server: approval.serverId,
      tool: approval.toolName,
      effect: approval.effect,
      expiresAt: new Date(approval.expiresAt).toISOString(),
      ...(inboxUrl === undefined
        ? {}
        : { link: `${inboxUrl}/approvals/${encodeURIComponent(approval.id)}` }),
      ...(options.includeArguments === true ? { arguments: approval.arguments } : {}),
    };
    const body = JSON.stringify(payload);
    const t = Math.floor(now() / 1000);
    const response = await post(target, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [WEBHOOK_SIGNATURE_HEADER]: `t=${t},v1=${await hmacHex(options.secret, `${t}.${body}`)}`,
      },
      body,
    });
    await response.body?.cancel();
    if (!response.ok) {
      throw new InboxError("inbox_webhook_failed", `the webhook answered ${response.status}`);
    }
  };
}

/**
 * Options of {@link verifyWebhookSignature}.
 *
 * @category Approval inbox
 */
export interface VerifyWebhookOptions {
  /** How old a signature may be, in milliseconds (default 5 minutes). */
  readonly toleranceMs?: number;
  /** Clock in milliseconds since the Unix epoch (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * Whether `header` (the `sluice-signature` value) signs `body` with `secret` and is recent. For
 * the receiving side; read the body as text before parsing it.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "@sluice/mcp/inbox";
 * async function receive(request: Request): Promise<Response> {
 *   const body = await request.text();
 *   const header = request.headers.get(WEBHOOK_SIGNATURE_HEADER) ?? "";
 *   if (!await verifyWebhookSignature(body, header, "a shared secret of some length")) {
 *     return new Response("bad signature", { status: 401 });
 *   }
 *   return new Response(null, { status: 204 });
 * }
 * ```
 *
 * @param body the request body exactly as received
 * @param header the signature header's value
 * @param secret the shared secret
 * @param options tolerance and clock
 *
 * @category Approval inbox
 */
export async function verifyWebhookSignature(
  body: string,
  header: string,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (match === null) return false;
  const t = Number(match[1]);
  const age = (options.now ?? Date.now)() - t * 1000;
  if (Math.abs(age) > (options.toleranceMs ?? 5 * 60 * 1000)) return false;
  return await equalSecrets(await hmacHex(secret, `${t}.${body}`), match[2]);
}
