/**
 * A child process for the permission tests, meant to run under exactly the `--allow-*` set
 * docs/permissions.md lists, and printing one JSON line of what happened.
 *
 * `deno run <flags> tests/support/permissions_child.ts connect <url> [name-to-127.0.0.1]`:
 * connect() with loopback allowed (and, with a third argument, a resolver that maps that name to
 * 127.0.0.1), one call of `echo`, close. Prints the server's code and the skip reason (if
 * setup failed), the envelope, and the transport's own message when a plain secureFetch of the
 * same URL fails (connect()'s report carries codes only).
 *
 * `deno run <flags> tests/support/permissions_child.ts libsql <db>`: opens a LibsqlApprovalStore
 * file, prepares, approves and claims one approval, closes. Prints the claim's outcome.
 *
 * `deno run <flags> tests/support/permissions_child.ts memory`: the same cycle on the
 * MemoryApprovalStore.
 */
import { connect, MemoryApprovalStore, secureFetch, TransportError } from "../../mod.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { expectationFor, makeRequest } from "./approval_requests.ts";

const [mode, target, alias] = Deno.args;

async function runConnect(url: string): Promise<unknown> {
  const transport = {
    dangerouslyAllowLoopback: true,
    timeoutMs: 10_000,
    ...(alias !== undefined
      ? { resolve: (name: string) => Promise.resolve(name === alias ? ["127.0.0.1"] : []) }
      : {}),
  };
  const connection = await connect(url, {
    id: "p",
    allow: ["echo"],
    preApproved: ["echo"],
    transport,
  });
  let envelope: unknown;
  try {
    envelope = await connection.toolkit.call("p__echo", { message: "permitted" });
  } finally {
    await connection.close();
  }
  const report = connection.report();
  let message: string | undefined;
  if (report.servers[0].errorCode !== undefined) {
    try {
      await (await secureFetch(transport)(url, { method: "POST", body: "{}" })).body?.cancel();
    } catch (error) {
      if (error instanceof TransportError) message = error.message;
    }
  }
  return {
    errorCode: report.servers[0].errorCode ?? null,
    reason: report.skipped[0]?.reason ?? null,
    message: message ?? null,
    envelope,
  };
}

async function runStore(store: ApprovalStore): Promise<unknown> {
  try {
    const request = await makeRequest(Date.now());
    const prepared = await store.prepare(request);
    await store.approve(prepared.id, { by: "permissions test" });
    const claim = await store.claim(prepared.id, expectationFor(request));
    return { claimed: claim.ok };
  } finally {
    await store.close();
  }
}

let result: unknown;
if (mode === "connect") result = await runConnect(target);
else if (mode === "libsql") {
  // Loaded only here: the other modes must run without what @libsql/client needs.
  const { LibsqlApprovalStore } = await import("../../libsql.ts");
  result = await runStore(await LibsqlApprovalStore.open(target));
} else if (mode === "memory") result = await runStore(new MemoryApprovalStore());
else throw new Error(`unknown mode ${mode}`);
console.log(JSON.stringify(result));
