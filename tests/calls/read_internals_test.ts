/**
 * The two call layers the write gate builds on (`admit`, `dispatch`), against the real
 * in-memory v2 fixture: `sent` is false exactly when sluice knows nothing left it, which the
 * server's own log confirms.
 */
import assert from "node:assert/strict";
import type { CallPlan } from "../../src/calls/call_plan.ts";
import { admitCall } from "../../src/calls/admit.ts";
import { dispatchCall, type DispatchHooks } from "../../src/calls/dispatch.ts";
import type { JsonObject } from "../../src/identity/mod.ts";
import { bind, discover } from "../support/read_host.ts";
import { openSession } from "../support/sessions.ts";

/** The two layers over one call plan, as the gate runs them. */
function layersOf(plan: CallPlan) {
  return {
    entry: plan.entry,
    admit: (args: unknown, state: unknown, signal: AbortSignal | undefined) =>
      admitCall(plan, args, state, signal),
    dispatch: (args: JsonObject, signal: AbortSignal | undefined, hooks?: DispatchHooks) =>
      dispatchCall(plan, args, signal, hooks),
  };
}

Deno.test("call layers: admit detaches arguments; dispatch reports whether it sent", async () => {
  const session = await openSession("memory-v2");
  try {
    const scopes: unknown[] = [];
    const { calls, monitor } = await discover(session, {
      echo: bind("echo_text", (state, args) => {
        scopes.push([state, args.message]);
        return undefined;
      }),
      slow: bind("slow"),
    }, { limits: { timeoutMs: 100 } });
    const [echo, slow] = calls.map(layersOf);
    assert.equal(echo.entry.remoteName, "echo");
    const sentCalls = async () =>
      (await session.log()).filter((entry) => entry.method === "tools/call").length;

    const args = { message: "original" };
    const admitted = await echo.admit(args, "state-1", undefined);
    assert.ok(admitted.ok);
    args.message = "mutated";
    assert.deepEqual(admitted.args, { message: "original" });
    assert.deepEqual(scopes, [["state-1", "original"]]);
    // The model learns where its arguments broke the schema: the failing leaf only.
    assert.deepEqual(await echo.admit({ message: 1 }, null, undefined), {
      ok: false,
      errorCode: "mcp_invalid_arguments",
      problems: [{ path: "/message", keyword: "type" }],
    });
    assert.equal(await sentCalls(), 0, "admit never sends");

    assert.deepEqual(await echo.dispatch(admitted.args, undefined), {
      envelope: { text: ["original"], structured: null },
      sent: true,
    });
    const aborted = new AbortController();
    aborted.abort();
    assert.deepEqual(await echo.dispatch(admitted.args, aborted.signal), {
      envelope: { text: [], structured: null, errorCode: "mcp_aborted" },
      sent: false,
    });
    assert.equal(await sentCalls(), 1);
    const timedOut = await slow.dispatch({ ms: 1_000 }, undefined);
    assert.deepEqual(timedOut, {
      envelope: { text: [], structured: null, errorCode: "mcp_timeout" },
      sent: true,
    });
    assert.equal(await sentCalls(), 2, "the timed-out request did reach the server");

    monitor.close();
    assert.deepEqual(await echo.dispatch(admitted.args, undefined), {
      envelope: { text: [], structured: null, errorCode: "mcp_connection_closed" },
      sent: false,
    });
    assert.equal(await sentCalls(), 2);
  } finally {
    await session.close();
  }
});

Deno.test("call layers: a closed session is known not to have sent", async () => {
  const session = await openSession("memory-v1");
  const { calls, monitor } = await discover(session, { echo: bind("echo_text") });
  try {
    await session.close();
    const echo = layersOf(calls[0]);
    assert.deepEqual(await echo.dispatch({ message: "x" }, undefined), {
      envelope: { text: [], structured: null, errorCode: "mcp_connection_closed" },
      sent: false,
    });
  } finally {
    monitor.close();
  }
});
