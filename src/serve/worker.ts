/**
 * `sluice serve` as a Cloudflare Worker's fetch handler. A Worker may not use, in one request, an
 * I/O object another request made (a session's streams, an abort signal), so each request
 * connects, serves and closes on its own: discovery runs per request (the list is pinned per
 * request, by the lock when the configuration passes one), and every approval lives in the
 * shared store (D1), where a retry of the same call meets it whichever isolate serves it. No
 * `subscriptions/listen` stream outlives its request, and no claim is recovered at start-up
 * (there is none): settle crashed claims with `recoverServedClaims` on a schedule, with an
 * `olderThanMs` above the upstream deadline.
 *
 * @module
 */
import { serve, type ServeConfig } from "./serve.ts";

/**
 * The `ctx` a Worker's `fetch` is given (only `waitUntil` is used).
 *
 * @category sluice serve
 */
export interface WorkerContextLike {
  /** Keeps the isolate alive until `promise` settles, after the response. */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * A Worker module's default export.
 *
 * @category sluice serve
 */
export interface ServeWorker<Env> {
  /** Serves one request: connect, serve, close (after the response, through `ctx.waitUntil`). */
  fetch(request: Request, env: Env, ctx?: WorkerContextLike): Promise<Response>;
}

/**
 * The governed endpoint as a Worker's fetch handler, configured from the Worker's bindings per
 * request (the D1 store among them).
 *
 * @example
 * ```ts ignore
 * // Runs in workerd in tests/serve/worker_test.ts.
 * import { D1ApprovalStore } from "@sluice/mcp/d1";
 * export default serveFetchHandler(async (env: { DB: D1DatabaseLike; IDE_TOKEN: string }) => ({
 *   servers: [{ id: "records", url: "https://records.example.com/mcp" }],
 *   allow: ["records.write_record"],
 *   store: await D1ApprovalStore.open(env.DB),
 *   serve: { clients: [{ name: "ide", token: env.IDE_TOKEN }] },
 * }));
 * ```
 *
 * @param configure the configuration, from the Worker's environment
 *
 * @category sluice serve
 */
export function serveFetchHandler<Env>(
  configure: (env: Env) => ServeConfig | Promise<ServeConfig>,
): ServeWorker<Env> {
  return {
    async fetch(request, env, ctx) {
      const config = await configure(env);
      const served = await serve({ ...config, serve: { ...config.serve, recover: false } });
      let response: Response;
      try {
        response = await served.fetch(request);
      } catch (error) {
        await served.close();
        throw error;
      }
      const closing = served.close();
      if (ctx === undefined) await closing;
      else ctx.waitUntil(closing);
      return response;
    },
  };
}
