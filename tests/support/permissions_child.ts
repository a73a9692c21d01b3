/**
 * A child process for the permission tests, meant to run under exactly the `--allow-*` set
 * docs/permissions.md lists, and printing one JSON line of what happened.
 *
 * `deno run <flags> tests/support/permissions_child.ts connect <url> [name-to-127.0.0.1]`:
 * connect() with loopback allowed (and, with a third argument, a resolver that maps that name to
 * 127.0.0.1), one call of `echo`, close. Prints the envelope, or when connect() rejects, the
 * `ConnectError`'s code, its explanation and its message (which carries the transport's own).
 *
 * `deno run <flags> tests/support/permissions_child.ts libsql <db>`: opens a LibsqlApprovalStore
 * file, prepares, approves and claims one approval, closes. Prints the claim's outcome.
 *
 * `deno run <flags> tests/support/permissions_child.ts memory`: the same cycle on the
 * MemoryApprovalStore.
 */
import { connect, ConnectError, MemoryApprovalStore } from "../../mod.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";

const [mode, target, alias] = Deno.args;

async function runConnect(url: string): Promise<unknown> {
  const transport = {
    dangerouslyAllowLoopback: true,
    timeoutMs: 10_000,
    ...(alias !== undefined
      ? { resolve: (name: string) => Promise.resolve(name === alias ? ["127.0.0.1"] : []) }
      : {}),
  };
  let connection;
  try {
    connection = await connect(url, {
      id: "p",
      allow: ["echo"],
      preApproved: ["echo"],
      transport,
    });
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return {
      errorCode: error.code,
      reason: error.failures[0].reason,
      message: error.message,
      envelope: null,
    };
  }
  let envelope: unknown;
  try {
    envelope = await connection.toolkit.call("p__echo", { message: "permitted" });
  } finally {
    await connection.close();
  }
  return { errorCode: null, reason: null, message: null, envelope };
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
