// What the real @modelcontextprotocol/server-everything (pinned, Streamable HTTP on loopback,
// a stateful 2025 server) asks of a connect() host: its long-running operation reports
// progress to onProgress, its elicitation form is judged by the schema profile, and an
// aborted call reaches it as notifications/cancelled (seen on the wire, answered by the
// server). The server runs in its own process, stopped by PID.
import assert from "node:assert/strict";
import {
  type CallOrigin,
  connect,
  type ConnectEvent,
  type ElicitationRequest,
  type SessionProgress,
} from "../../mod.ts";
import { startEverythingHttp } from "../../fixtures/connect_servers.ts";
import { assertFormDeclined, assertProgressSteps } from "../support/everything_asks.ts";
import { processAlive } from "../support/sessions.ts";

/** One POST the client sent, and the status the server answered it with. */
interface Sent {
  readonly body: Record<string, unknown>;
  readonly status: number;
}

Deno.test("server-everything: progress reaches onProgress, its form is judged by the profile, an abort reaches it as a cancellation", async () => {
  const server = await startEverythingHttp();
  const sent: Sent[] = [];
  const progress: [CallOrigin, SessionProgress][] = [];
  const asked: ElicitationRequest[] = [];
  const events: ConnectEvent[] = [];
  const tools = ["trigger-long-running-operation", "trigger-elicitation-request"];
  try {
    const connection = await connect(server.url, {
      id: "everything",
      allow: tools,
      preApproved: tools,
      transport: {
        dangerouslyAllowLoopback: true,
        timeoutMs: 10_000,
        // The wire, as the server gets it: every POST body and the status it answered.
        fetch: async (input, init) => {
          const request = input instanceof Request ? input : new Request(input, init);
          const body = request.method === "POST" ? await request.clone().text() : "";
          const response = await fetch(input, init);
          if (body !== "") sent.push({ body: JSON.parse(body), status: response.status });
          return response;
        },
      },
      elicit: (request) => {
        asked.push(request);
        return { action: "decline" };
      },
      onProgress: (call, step) => progress.push([call, step]),
      onEvent: (event) => events.push(event),
    });
    try {
      await assertProgressSteps(connection.toolkit, progress);
      // Its form is outside the schema profile: declined with a code, the person never asked.
      await assertFormDeclined(connection.toolkit, asked, events);
      assert.deepEqual(
        sent.find((item) =>
          item.body.result !== undefined && "action" in (item.body.result as object)
        )
          ?.body.result,
        { action: "decline" },
      );

      const controller = new AbortController();
      const started = progress.length;
      const aborted = connection.toolkit.call("everything__trigger-long-running-operation", {
        duration: 5,
        steps: 50,
      }, { signal: controller.signal });
      for (let wait = 0; progress.length === started && wait < 200; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      controller.abort();
      assert.equal((await aborted).errorCode, "mcp_aborted");
      const call = sent.findLast((item) => item.body.method === "tools/call");
      for (let wait = 0; wait < 100; wait++) {
        if (sent.some((item) => item.body.method === "notifications/cancelled")) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const cancelled = sent.find((item) => item.body.method === "notifications/cancelled");
      assert.ok(cancelled !== undefined, "notifications/cancelled was sent");
      assert.equal((cancelled.body.params as { requestId: unknown }).requestId, call?.body.id);
      assert.equal(cancelled.status, 202, "the server accepted the cancellation");
    } finally {
      await connection.close();
    }
  } finally {
    await server.close();
  }
  assert.equal(await processAlive(server.pid), false);
});
