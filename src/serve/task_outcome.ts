/**
 * A served call's envelope as a task's outcome, and the small helpers of task calls: which
 * envelope codes make a 2026-07-28 task `failed` (a protocol-level reason, with an inlined
 * JSON-RPC error) rather than `completed` with an `isError` result.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { type ServedEnvelope, servedResult } from "./result.ts";
import type { TaskOutcome } from "./tasks.ts";

/** Envelope codes that mean no result could be had for a protocol-level reason. */
const PROTOCOL_FAILURES: ReadonlySet<string> = new Set([
  "mcp_protocol_error",
  "mcp_transport_error",
  "mcp_timeout",
  "mcp_connection_closed",
  "mcp_handshake_failed",
]);
const INTERNAL_ERROR = -32603;

/** What a task's outcome is, from the call's envelope. */
export function taskOutcome(envelope: ServedEnvelope): TaskOutcome {
  const result = servedResult(envelope) as unknown as CallToolResult;
  const code = envelope.errorCode;
  if (code === undefined || !PROTOCOL_FAILURES.has(code)) {
    // Run once elsewhere (another instance of a fleet claimed it) and committed: the call has
    // its outcome, though its result went back to the instance that ran it.
    const ranElsewhere = code === "approval_already_claimed" && envelope.effect === "committed";
    return { result, failed: code !== undefined && !ranElsewhere };
  }
  return {
    result,
    failed: true,
    error: {
      code: INTERNAL_ERROR,
      message: `The call produced no result: ${code}.`,
      data: { errorCode: code, ...(envelope.effect ? { effect: envelope.effect } : {}) },
    },
  };
}

export function pendingNote(approvalId: string): string {
  return `Waiting for a person's approval in the approval store. Approval id: ${approvalId}.`;
}

export function busyResult(): CallToolResult {
  return servedResult({
    text: [],
    structured: null,
    errorCode: "serve_client_busy",
  }) as unknown as CallToolResult;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
