/**
 * The D1 test harness: bundles `d1_worker.ts` for workerd, starts it in Miniflare with real D1
 * databases (Miniflare pinned as the runtime smoke pins it, installed into `.cache/smoke`), and
 * gives the tests an `ApprovalStore` whose every call runs inside the Worker.
 *
 * @module
 */
import {
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalStore,
} from "../../src/approvals/mod.ts";
import { bundleForBrowser } from "./bundle.ts";

/** Miniflare 4.20260426.0 is the newest that runs on Node 20 (NOTES.md). */
const MINIFLARE_VERSION = "4.20260426.0";
const root = new URL("../../", import.meta.url).pathname;
const cacheDir = `${root}.cache/smoke`;

/** A running Worker with its D1 databases. */
export interface D1Worker {
  /** The Worker's loopback URL. */
  readonly url: string;
  /** The loopback URL of the second Worker (`approver`), bound to the same D1 databases. */
  readonly approverUrl: string;
  /** The host process's PID. */
  readonly pid: number;
  /**
   * Sends one call to the Worker (or to the second Worker, `to: "approver"`); throws the store's
   * error as an `ApprovalError`.
   */
  call(body: Record<string, unknown>, to?: "agent" | "approver"): Promise<unknown>;
  /** Stops Miniflare and waits for its process. */
  stop(): Promise<void>;
}

async function ensureMiniflare(): Promise<void> {
  try {
    const installed = JSON.parse(
      await Deno.readTextFile(`${cacheDir}/node_modules/miniflare/package.json`),
    ).version;
    if (installed === MINIFLARE_VERSION) return;
  } catch {
    // Not installed yet.
  }
  await Deno.mkdir(cacheDir, { recursive: true });
  const output = await new Deno.Command("npm", {
    args: ["install", "--prefix", cacheDir, "--no-audit", "--no-fund", "--save-exact"]
      .concat(`miniflare@${MINIFLARE_VERSION}`),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
}

/**
 * Bundles the Worker (`entry`, default the store RPC Worker) and starts it with `databases` D1
 * databases.
 */
export async function startD1Worker(
  databases: number,
  entry = "tests/support/d1_worker.ts",
): Promise<D1Worker> {
  await ensureMiniflare();
  const dir = await Deno.makeTempDir({ prefix: "sluice-d1-" });
  const bundle = `${dir}/worker.mjs`;
  await Deno.writeTextFile(
    bundle,
    await bundleForBrowser(entry, "sluice-d1-bundle-"),
  );
  const child = new Deno.Command("node", {
    args: [`${root}tests/support/d1_host.mjs`, cacheDir, bundle, String(databases)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the D1 host ended before it was ready");
    first += value;
  }
  const { url, approverUrl } = JSON.parse(first.split("\n")[0]) as {
    url: string;
    approverUrl: string;
  };
  // Miniflare has loaded the bundle: nothing is left behind even if stop() never runs.
  await Deno.remove(dir, { recursive: true });
  const drain = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    url,
    approverUrl,
    pid: child.pid,
    async call(body, to = "agent") {
      const response = await fetch(to === "agent" ? url : approverUrl, {
        method: "POST",
        body: JSON.stringify(body),
      });
      const answer = await response.json() as {
        value?: unknown;
        undefined?: true;
        error?: { name?: string; code?: string; message?: string };
      };
      if (answer.error !== undefined) {
        if (answer.error.name === "ApprovalError") {
          throw new ApprovalError(
            answer.error.code as ApprovalErrorCode,
            answer.error.message ?? "",
          );
        }
        throw new Error(`the Worker threw ${answer.error.name}: ${answer.error.message}`);
      }
      return answer.undefined === true ? undefined : answer.value;
    },
    async stop() {
      await child.stdin.close();
      await child.status;
      await drain;
    },
  };
}

/**
 * An `ApprovalStore` on database `db` of the Worker, on the test's clock. With `fresh`, every call
 * opens a store of its own in the Worker, as concurrent stateless Worker requests would.
 */
export function d1Store(
  worker: D1Worker,
  db: string,
  now: () => number,
  options: { readonly fresh?: boolean } = {},
): ApprovalStore {
  const call = (method: string) => (...args: unknown[]) =>
    worker.call({ db, now: now(), method, args, ...(options.fresh ? { fresh: true } : {}) });
  return {
    durable: true,
    prepare: call("prepare"),
    prepareClaimed: call("prepareClaimed"),
    get: call("get"),
    findCall: call("findCall"),
    list: call("list"),
    approve: call("approve"),
    deny: call("deny"),
    approveWithEdits: call("approveWithEdits"),
    createGrant: call("createGrant"),
    getGrant: call("getGrant"),
    listGrants: call("listGrants"),
    revokeGrant: call("revokeGrant"),
    approveByGrant: call("approveByGrant"),
    grantEvents: call("grantEvents"),
    claim: call("claim"),
    recordOutcome: call("recordOutcome"),
    reconcile: call("reconcile"),
    events: call("events"),
    close: call("close"),
  } as ApprovalStore;
}
