/**
 * The deadline of a request through a host-owned SDK client (`sessionFromClient`) is the
 * session's own: the SDK gets its signal and a timer that never fires first, and the code says
 * which of the deadline and the caller ended the request. Real in-memory fixture servers, v1
 * and v2 SDK clients.
 */
import assert from "node:assert/strict";
import { sessionFromClient } from "../../src/session/from_client.ts";
import { SessionRequestError } from "../../src/session/session.ts";
import { openSession } from "../support/sessions.ts";

/** The options each SDK request was given, recorded on the real client. */
function recordOptions(client: { request(...args: never[]): Promise<unknown> }) {
  const seen: { signal?: AbortSignal; timeout?: number }[] = [];
  const request = client.request.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as { request: unknown }).request = (...args: unknown[]) => {
    seen.push(args[2] as { signal?: AbortSignal; timeout?: number });
    return request(...args);
  };
  return seen;
}

const slow = (ms: number) => ({ name: "slow", arguments: { ms } });

for (const kind of ["memory-v2", "memory-v1"] as const) {
  Deno.test(`session deadline (${kind}): the session's deadline ends the request, not the SDK's timer`, async () => {
    const fixture = await openSession(kind);
    try {
      const seen = recordOptions(fixture.client);
      const session = sessionFromClient(fixture.client);
      const started = performance.now();
      const error = await session.request("tools/call", slow(5_000), { timeoutMs: 40 })
        .catch((thrown: unknown) => thrown);
      assert.ok(error instanceof SessionRequestError);
      assert.equal(error.code, "mcp_timeout");
      assert.equal(error.sent, true);
      assert.ok(performance.now() - started < 2_000);
      assert.equal(seen.length, 1);
      // The SDK's timer is the longest a timer can wait: it never decides.
      assert.equal(seen[0].timeout, 2 ** 31 - 1);
      assert.equal((seen[0].signal?.reason as DOMException).name, "TimeoutError");
    } finally {
      await fixture.close();
    }
  });

  Deno.test(`session deadline (${kind}): the caller's abort, and two durations at once`, async () => {
    const fixture = await openSession(kind);
    try {
      const session = sessionFromClient(fixture.client);
      const caller = new AbortController();
      const aborted = session.request("tools/call", slow(5_000), {
        timeoutMs: 60_000,
        signal: caller.signal,
      }).catch((thrown: unknown) => thrown);
      const short = session.request("tools/call", slow(5_000), { timeoutMs: 30 })
        .catch((thrown: unknown) => thrown);
      const answered = session.request("tools/call", slow(50), { timeoutMs: 60_000 });
      assert.equal(((await short) as SessionRequestError).code, "mcp_timeout");
      caller.abort();
      assert.equal(((await aborted) as SessionRequestError).code, "mcp_aborted");
      assert.deepEqual((await answered as { content: unknown[] }).content, [
        { type: "text", text: "slept 50" },
      ]);
    } finally {
      await fixture.close();
    }
  });
}
