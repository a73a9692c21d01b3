/**
 * `sluice serve` as a Worker's fetch handler (`serveFetchHandler`), bundled for workerd and run
 * through Miniflare with a real D1 database (`DB0`) as the approval store. The upstream's URL
 * comes from `POST /configure` with `{ "upstream": <MCP URL> }` (a test has no fixed URL to
 * bind); every other request is the endpoint's, with the one client `ide` and its bearer token.
 * `POST /approve` with `{ "id": <approval id> }` approves in the same D1 database, standing in
 * for a person's decision in the inbox (its own suite drives that).
 *
 * @module
 */
import { D1ApprovalStore, type D1DatabaseLike } from "../../d1.ts";
import { serveFetchHandler, type WorkerContextLike } from "../../serve.ts";

/** The Worker's one client. */
export const WORKER_CLIENT = { name: "ide", token: "ide-token-0123456789abcdef0123456789abcdef" };

interface Env {
  readonly DB0: D1DatabaseLike;
}

let upstream: string | undefined;

const endpoint = serveFetchHandler(async (env: Env) => ({
  servers: [{ id: "records", url: upstream! }],
  allow: ["records.write_record", "records.read_record"],
  preApproved: ["records.read_record"],
  store: await D1ApprovalStore.open(env.DB0),
  transport: { dangerouslyAllowLoopback: true },
  serve: { clients: [WORKER_CLIENT] },
}));

export default {
  async fetch(request: Request, env: Env, ctx: WorkerContextLike): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/approve") {
      const { id } = await request.json() as { id: string };
      const store = await D1ApprovalStore.open(env.DB0);
      return Response.json({ state: (await store.approve(id, { by: "alice" })).state });
    }
    if (path === "/configure") {
      upstream = (await request.json() as { upstream: string }).upstream;
      return Response.json({ configured: true });
    }
    if (upstream === undefined) return new Response("not configured", { status: 503 });
    return await endpoint.fetch(request, env, ctx);
  },
};
