/**
 * Dispatch of one admitted call: exactly one `tools/call`, then the result checks.
 *
 * @module
 */
import { isRecord, type JsonObject } from "../identity/mod.ts";
import { type Deadline, DeadlineQueue } from "../deadline.ts";
import { SessionRequestError, type SessionRequestOptions } from "../session/session.ts";
import { MODERN_PROTOCOL_VERSION } from "../session/protocol.ts";
import { failure, type ToolEnvelope } from "./envelope.ts";
import { checkCallResult } from "./result.ts";
import { paramHeaders } from "./param_headers.ts";
import { type CallPlan, catalogProblem, toolStatus } from "./call_plan.ts";
import type { CallHandlers, CallOrigin } from "./host_handlers.ts";
import { answerElicitation } from "./elicitation.ts";
import { fulfilInputRequired } from "./input_required.ts";

/**
 * Outcome of sending a call: the envelope and whether the request may have left sluice.
 *
 * @category Discovery and calls
 */
export interface Dispatch {
  /** The call's envelope. */
  readonly envelope: ToolEnvelope;
  /** `false` only when sluice knows nothing was sent (for `not_started` vs `unknown`). */
  readonly sent: boolean;
}

/**
 * Hooks of one dispatch, for the write gate's persistence points.
 *
 * @category Discovery and calls
 */
export interface DispatchHooks {
  /** Runs once the request was handed to the session, while its answer is awaited. */
  readonly onSent?: () => void | Promise<void>;
  /**
   * When set, a tool list change heard while the request was in flight fails the call with
   * `mcp_catalog_stale` even if a valid reply arrives: for a write, the tool it reached may no
   * longer be the one that was approved, so the outcome is not proven.
   */
  readonly failIfCatalogChanged?: boolean;
  /** The call the server's requests and progress belong to (with `handlers`). */
  readonly origin?: CallOrigin;
  /** The host's handlers: elicitation (2025 requests, 2026-07-28 `input_required`), progress. */
  readonly handlers?: CallHandlers;
  /**
   * The gate's trace of the call, handed to the session with the request (telemetry), and told
   * why a request failed (the server's JSON-RPC code is on the error's cause chain).
   */
  readonly trace?: { failed?(error: unknown): void };
}

/** The origin of a call of `plan` when the caller named none. */
function originOf(plan: CallPlan, hooks: DispatchHooks): CallOrigin {
  return hooks.origin ?? {
    server: plan.serverId ?? "",
    tool: plan.entry.localName,
    remoteTool: plan.entry.remoteName,
  };
}

/**
 * The session options of each request of one call: the call's signal and deadline, the
 * headers, and the host's progress listener and elicitation handler tied to the call.
 */
function requestOptions(
  plan: CallPlan,
  hooks: DispatchHooks,
  signal: AbortSignal | undefined,
  deadline: Deadline | undefined,
  headers: Record<string, string> | undefined,
): () => SessionRequestOptions {
  const handlers = hooks.handlers;
  const origin = handlers === undefined ? undefined : originOf(plan, hooks);
  const onProgress = handlers?.onProgress;
  const fixed: Partial<SessionRequestOptions> = {
    ...(headers ? { headers } : {}),
    ...(hooks.trace ? { trace: hooks.trace } : {}),
    ...(onProgress !== undefined
      ? { onProgress: (progress) => onProgress(origin!, progress) }
      : {}),
    ...(onProgress !== undefined && handlers?.progressIdleTimeoutMs !== undefined
      ? { idleTimeoutMs: handlers.progressIdleTimeoutMs }
      : {}),
    ...(handlers?.elicit !== undefined
      ? {
        onServerRequest: (method, params, stop, delivery) =>
          method === "elicitation/create"
            ? answerElicitation(
              params,
              origin!,
              handlers,
              deadline ? AbortSignal.any([stop, deadline.signal]) : stop,
              delivery === "reply_stream" ? "call_stream" : "session_stream",
            )
            : Promise.resolve({ action: "decline" }),
      }
      : {}),
  };
  // One total deadline over every round of the call: each request gets what is left of it.
  return () => ({
    ...fixed,
    signal: deadline?.signal ?? signal,
    timeoutMs: deadline ? Math.max(1, deadline.remainingMs()) : plan.limits.timeoutMs,
  });
}

/**
 * The deadlines of calls that may take several rounds (with an elicitation handler), on one
 * shared timer: a timer of its own per call would stay pending (unref'd) for the call's whole
 * timeout after the call ended, thousands of them on a busy gateway, each promoted to the old
 * generation by the scavenges that find it.
 */
const callDeadlines = new DeadlineQueue();

/**
 * Sends one `tools/call` with already admitted arguments and checks the result (content
 * kinds, the compiled output validator, size). Never throws.
 *
 * @param plan the tool's call plan
 * @param args admitted arguments
 * @param signal stops waiting (`mcp_aborted`); a late result is discarded
 * @param hooks the write gate's persistence points
 *
 * @category Discovery and calls
 */
export async function dispatchCall(
  plan: CallPlan,
  args: JsonObject,
  signal: AbortSignal | undefined,
  hooks: DispatchHooks = {},
): Promise<Dispatch> {
  const stopped = catalogProblem(plan);
  if (stopped) return { envelope: failure(stopped), sent: false };
  let raw: unknown;
  let answered = false;
  // With an elicitation handler a call may take several rounds, all under one deadline.
  const deadline = hooks.handlers?.elicit !== undefined
    ? callDeadlines.start(signal, plan.limits.timeoutMs)
    : undefined;
  try {
    const headers = plan.paramHeaders?.length &&
        plan.monitor.protocolVersion === MODERN_PROTOCOL_VERSION
      ? paramHeaders(plan.paramHeaders, args)
      : undefined;
    const options = requestOptions(plan, hooks, signal, deadline, headers);
    const params = { name: plan.entry.remoteName, arguments: args };
    const send = (extra?: JsonObject) =>
      plan.session.request("tools/call", extra ? { ...params, ...extra } : params, options());
    const pending = plan.resendOnBrokenStream
      ? send().catch((error) => {
        // The host asked for the revision's rule for this read: a broken stream is sent again,
        // once, as a new request.
        if (
          error instanceof SessionRequestError && error.replyStreamEnded &&
          plan.monitor.protocolVersion === MODERN_PROTOCOL_VERSION
        ) {
          return send();
        }
        throw error;
      })
      : send();
    if (hooks.onSent) {
      // Observed below; a rejection while the hook runs must not count as unhandled.
      pending.catch(() => undefined);
      await hooks.onSent();
    }
    raw = await pending;
    if (isRecord(raw) && raw.resultType === "input_required" && hooks.handlers !== undefined) {
      // The first request was answered: whatever happens to a later round, the call was sent.
      answered = true;
      const fulfilled = await fulfilInputRequired(
        raw,
        send,
        originOf(plan, hooks),
        hooks.handlers,
        deadline?.signal ?? signal ?? new AbortController().signal,
      );
      if ("code" in fulfilled) return { envelope: failure(fulfilled.code), sent: true };
      raw = fulfilled.raw;
    }
  } catch (error) {
    hooks.trace?.failed?.(error);
    if (error instanceof SessionRequestError) {
      // The call's own deadline over its rounds passed: a timeout, not the caller's abort.
      const code = deadline?.expired && error.code === "mcp_aborted" ? "mcp_timeout" : error.code;
      return { envelope: failure(code), sent: answered || error.sent };
    }
    return { envelope: failure("mcp_transport_error"), sent: true };
  } finally {
    deadline?.stop();
  }
  if (hooks.failIfCatalogChanged && toolStatus(plan) === "stale") {
    return { envelope: failure("mcp_catalog_stale"), sent: true };
  }
  try {
    return {
      envelope: checkCallResult(raw, plan.validateOutput, plan.limits, plan.resultScreen),
      sent: true,
    };
  } catch {
    return { envelope: failure("mcp_result_invalid"), sent: true };
  }
}
