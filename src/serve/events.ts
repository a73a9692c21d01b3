/**
 * The audit events of `sluice serve`: one small frozen object per refused request, tool list
 * and tool call, naming the client. Like `connect()`'s events they hold no arguments, no
 * results, no tokens and no text a server sent.
 *
 * @module
 */
import type { ServeErrorCode } from "./errors.ts";

/**
 * One audit event of `sluice serve`.
 *
 * @category sluice serve
 */
export type ServeEvent =
  | {
    /** A request refused before MCP saw it (401, 403, 413, 503). */
    readonly kind: "refused";
    /** The client, when the token named one (a 413 or 503 of a known client). */
    readonly client?: string;
    readonly errorCode: ServeErrorCode;
    /** The HTTP status answered. */
    readonly status: number;
  }
  | {
    /** A `tools/list` answered. */
    readonly kind: "list";
    readonly client: string;
    /** How many tools the client was shown. */
    readonly tools: number;
  }
  | {
    /** A `tools/call` answered. */
    readonly kind: "call";
    readonly client: string;
    /** The served tool's local name, as the client sent it (only when it is served to it). */
    readonly tool?: string;
    readonly ok: boolean;
    /** The envelope's code when the call produced no result. */
    readonly errorCode?: string;
    /** Calls with an approval: what happened at the server as far as sluice can prove. */
    readonly effect?: "committed" | "not_started" | "unknown";
    /** Calls with an approval: its id. */
    readonly approvalId?: string;
    /** A task-augmented call: its task (the event comes when the task's call has its outcome). */
    readonly taskId?: string;
    /** The run id the call was recorded under (`serve:<client>:<run>`). */
    readonly runId: string;
    readonly durationMs: number;
  };

/**
 * Hands an event to the host's handler; a handler that throws or rejects never affects a
 * request.
 *
 * @param onEvent the host's handler, if any
 * @param event the event
 *
 * @category sluice serve
 */
export function emitServeEvent(
  onEvent: ((event: ServeEvent) => void) | undefined,
  event: ServeEvent,
): void {
  if (onEvent === undefined) return;
  try {
    const result: unknown = onEvent(Object.freeze(event));
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // The host's handler failing is the host's concern, never the caller's.
  }
}

/**
 * Tells `onEvent` of one served call: the client, the tool, the envelope's codes, the ids.
 *
 * @param onEvent the audit sink, if any
 * @param client the client's name
 * @param served the served tool (local name), when the client may call it
 * @param envelope the call's envelope
 * @param ids the call's run id
 * @param start when the call started (`performance.now()`)
 * @param taskId the task the call ran as, if any
 */
export function emitCallEvent(
  onEvent: ((event: ServeEvent) => void) | undefined,
  client: string,
  served: string | undefined,
  envelope: {
    readonly errorCode?: string;
    readonly effect?: "committed" | "not_started" | "unknown";
    readonly approvalId?: string;
  },
  ids: { readonly runId: string },
  start: number,
  taskId?: string,
): void {
  if (onEvent === undefined) return;
  emitServeEvent(onEvent, {
    kind: "call",
    client,
    ...(served === undefined ? {} : { tool: served }),
    ok: envelope.errorCode === undefined,
    ...(envelope.errorCode === undefined ? {} : { errorCode: envelope.errorCode }),
    ...(envelope.effect === undefined ? {} : { effect: envelope.effect }),
    ...(envelope.approvalId === undefined ? {} : { approvalId: envelope.approvalId }),
    ...(taskId === undefined ? {} : { taskId }),
    runId: ids.runId,
    durationMs: performance.now() - start,
  } as ServeEvent);
}
