/**
 * What server-everything's tools ask of a connect() host, checked the same way over each
 * transport (`tests/connect/everything_client_requests_test.ts` over Streamable HTTP,
 * `tests/connect/stdio_everything_test.ts` over stdio), the server registered as `everything`.
 *
 * @module
 */
import assert from "node:assert/strict";
import type {
  CallOrigin,
  connect,
  ConnectEvent,
  ElicitationRequest,
  SessionProgress,
} from "../../mod.ts";

type Toolkit = Awaited<ReturnType<typeof connect>>["toolkit"];

/**
 * Its long-running operation, 4 steps in 1 s: every step reaches onProgress, tied to the call.
 *
 * @param toolkit the connection's toolkit
 * @param progress what the host's onProgress heard (empty before)
 */
export async function assertProgressSteps(
  toolkit: Toolkit,
  progress: readonly (readonly [CallOrigin, SessionProgress])[],
): Promise<void> {
  const done = await toolkit.call("everything__trigger-long-running-operation", {
    duration: 1,
    steps: 4,
  }, { callId: "long-1" });
  assert.equal(done.errorCode, undefined);
  assert.deepEqual(progress.map(([, step]) => [step.progress, step.total]), [
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ]);
  assert.equal(progress[0][0].tool, "everything__trigger-long-running-operation");
  assert.equal(progress[0][0].callId, "long-1");
}

/**
 * Its elicitation form carries `enumNames`, outside the schema profile: declined with a code,
 * the person never asked, and the server itself reports the decline.
 *
 * @param toolkit the connection's toolkit
 * @param asked what the host's elicit handler was asked (empty before)
 * @param events the connection's events so far
 */
export async function assertFormDeclined(
  toolkit: Toolkit,
  asked: readonly ElicitationRequest[],
  events: readonly ConnectEvent[],
): Promise<void> {
  const form = await toolkit.call("everything__trigger-elicitation-request", {});
  assert.equal(form.errorCode, undefined);
  assert.match(form.text.join("\n"), /declined to provide the requested information/);
  assert.equal(asked.length, 0);
  const elicitation = events.find((event) => event.kind === "elicitation");
  assert.equal(elicitation?.errorCode, "elicitation_schema_unsupported");
}
