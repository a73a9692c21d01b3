/**
 * The approval inbox: a Web-standard handler where people see the writes waiting for them and
 * approve, deny or reconcile them; a one-time login for a single operator; and a signed webhook
 * notifier for the gate's and `connect()`'s `onPending`. Web APIs only: it mounts in
 * `Deno.serve`, `Bun.serve`, a Worker's `fetch` or Hono, and in Node through `toNodeListener`.
 *
 * @example
 * ```ts
 * import { approvalInbox, oneTimeLogin } from "@sluice/mcp/inbox";
 * import { MemoryApprovalStore } from "@sluice/mcp";
 *
 * const login = oneTimeLogin({ person: "alice" });
 * const inbox = approvalInbox({ store: new MemoryApprovalStore(), authorize: login.authorize });
 * const handler = (request: Request) => login.handle(request) ?? inbox(request);
 * // Deno.serve({ hostname: "127.0.0.1", port: 8787 }, handler);
 * ```
 *
 * @module
 */
export {
  approvalInbox,
  type ApprovalInboxOptions,
  type InboxAuthorize,
  type InboxHandler,
} from "./src/inbox/approval_inbox.ts";
export { InboxError, type InboxErrorCode } from "./src/inbox/errors.ts";
export {
  type NodeRequestLike,
  type NodeResponseLike,
  toNodeListener,
} from "./src/inbox/node_adapter.ts";
export {
  type OneTimeLogin,
  oneTimeLogin,
  type OneTimeLoginOptions,
} from "./src/inbox/one_time_login.ts";
export {
  type PendingNotifier,
  type PendingWebhookPayload,
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  webhookNotifier,
  type WebhookNotifierOptions,
} from "./src/inbox/webhook.ts";
export { SluiceError } from "./src/errors.ts";
export type { FetchFunction, SecureFetchOptions } from "./src/transport/secure_fetch.ts";
export type { Resolver } from "./src/transport/resolver.ts";
// The store's record and input types, so this entry documents itself completely.
export type * from "./src/approvals/types.ts";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "./src/identity/mod.ts";
