/**
 * A Worker for the D1 tests, bundled and run in workerd through Miniflare with real D1
 * databases bound as `DB0`, `DB1`, ... Each POST names a database and a store method; the Worker
 * runs it on a `D1ApprovalStore` inside workerd and answers the JSON result or the error's code.
 *
 * `{ db, now?, method, args, fresh? }`: `fresh` opens a new store for this request alone (a
 * stateless Worker); otherwise one store per database lives in the isolate, on a clock the test
 * sets with every request (`now`). `{ db, sql }` runs one raw statement (to tamper with a schema).
 * `{ db, connect: url, call: [tool, args] }` or `{ db, connect: url, resume: approvalId }` runs
 * `connect()` against the MCP server at `url` (loopback allowed) with deferred approvals in a
 * fresh D1 store and answers the envelope, as a stateless Worker serving an agent would.
 * `{ whoami: true }` answers the Worker's name (`agent`, or `approver` for the second Worker).
 *
 * @module
 */
import { D1ApprovalStore, type D1DatabaseLike } from "../../d1.ts";
import { connect, type JsonObject } from "../../mod.ts";

interface Call {
  readonly db: string;
  readonly now?: number;
  readonly method?: string;
  readonly args?: readonly unknown[];
  readonly fresh?: boolean;
  readonly sql?: string;
  readonly connect?: string;
  readonly call?: readonly [string, JsonObject];
  readonly resume?: string;
  readonly whoami?: boolean;
}

/** One agent step in a fresh Worker: connect, call or resume, close. */
async function agentStep(call: Call, db: D1DatabaseLike): Promise<unknown> {
  const connection = await connect(call.connect!, {
    id: "records",
    allow: ["write_record"],
    store: await D1ApprovalStore.open(db),
    transport: { dangerouslyAllowLoopback: true },
  });
  try {
    return call.resume !== undefined
      ? await connection.toolkit.resume(call.resume)
      : await connection.toolkit.call(call.call![0], call.call![1]);
  } finally {
    await connection.close();
  }
}

let clock = 0;
const stores = new Map<string, Promise<D1ApprovalStore>>();

function storeFor(call: Call, db: D1DatabaseLike): Promise<D1ApprovalStore> {
  if (call.fresh === true) return D1ApprovalStore.open(db);
  let store = stores.get(call.db);
  if (store === undefined) {
    store = D1ApprovalStore.open(db, { now: () => clock });
    stores.set(call.db, store);
    store.catch(() => stores.delete(call.db));
  }
  return store;
}

export default {
  async fetch(request: Request, env: Record<string, D1DatabaseLike | string>): Promise<Response> {
    const call = await request.json() as Call;
    if (call.whoami === true) return Response.json({ value: env.WORKER_NAME });
    if (call.now !== undefined) clock = call.now;
    try {
      const db = env[call.db] as D1DatabaseLike;
      if (call.connect !== undefined) return Response.json({ value: await agentStep(call, db) });
      if (call.sql !== undefined) {
        await db.prepare(call.sql).all();
        return Response.json({ value: null });
      }
      const store = await storeFor(call, db);
      if (call.method === "open") return Response.json({ value: null });
      const method = (store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[
        call.method ?? ""
      ];
      const value = await method.apply(store, [...(call.args ?? [])]);
      return Response.json(value === undefined ? { undefined: true } : { value });
    } catch (error) {
      const { name, code, message } = error as { name?: string; code?: string; message?: string };
      return Response.json({ error: { name, code, message } });
    }
  },
};
