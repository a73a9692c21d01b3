/**
 * `sluice serve`: the governed toolkit as an MCP server. Any MCP client (a desktop assistant, an
 * IDE, another agent framework) gets only the allowed, pinned tools under their local names;
 * every call runs through the gate, writes wait for a durable approval, and each client has its
 * own bearer token and allowlist. In its own entry so the core bundle never loads the MCP server
 * SDK.
 *
 * @example
 * ```ts ignore
 * // Runs end to end in tests/serve/serve_test.ts.
 * import { MemoryApprovalStore } from "@sluice/mcp";
 * import { serve } from "@sluice/mcp/serve";
 *
 * const served = await serve({
 *   servers: [{ id: "docs", url: "https://docs.example.com/mcp" }],
 *   allow: ["docs.search"],
 *   preApproved: ["docs.search"],
 *   serve: { clients: [{ name: "ide", token: Deno.env.get("IDE_TOKEN")! }] },
 * });
 * Deno.serve({ hostname: "127.0.0.1", port: 8931 }, served.fetch);
 * ```
 *
 * @module
 */
export { CALL_ID_META_KEYS, type ServedCallIds, servedCallIds } from "./src/serve/call_ids.ts";
export {
  clientMay,
  MIN_TOKEN_LENGTH,
  type ServeClient,
  ServeClients,
} from "./src/serve/clients.ts";
export { ServeError, type ServeErrorCode } from "./src/serve/errors.ts";
export { type ServeEvent } from "./src/serve/events.ts";
export { type ServeHandler, serveToolkit, type ServeToolkitOptions } from "./src/serve/handler.ts";
export { DEFAULT_SERVE_LIMITS, type ServeLimits } from "./src/serve/limits.ts";
export type { ServedTaskSupport } from "./src/serve/governed.ts";
export type { ServedToolNames } from "./src/serve/names.ts";
export type { ServeOAuth, ServeOAuthClient } from "./src/serve/oauth.ts";
export { RATE_LIMITED_JSONRPC_CODE } from "./src/serve/refusal.ts";
export { recoverServedClaims, type ServeRecoverOptions } from "./src/serve/recover.ts";
export {
  OUTCOME_META_KEY,
  type ServedEnvelope,
  type ServedResult,
  servedResult,
} from "./src/serve/result.ts";
export {
  connectRelayed,
  type DownstreamAsk,
  type DownstreamProgress,
  InputRelay,
} from "./src/serve/relay.ts";
export { serve, type ServeConfig, type Served, type ServeInboxOptions } from "./src/serve/serve.ts";
export type { InboxAuthorize } from "./src/inbox/options.ts";
export { type ServeStdioOptions, serveToolkitStdio, type StdioServed } from "./src/serve/stdio.ts";
export { serveFetchHandler, type ServeWorker, type WorkerContextLike } from "./src/serve/worker.ts";
// The types the serve API names (the toolkit, its envelope, connectAll's configuration), so
// this entry documents itself completely; types only, nothing more is loaded.
export type * from "./mod.ts";
