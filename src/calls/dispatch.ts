/**
 * Dispatch of one admitted call: exactly one `tools/call`, then the result checks.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { SessionRequestError } from "../session/session.ts";
import { MODERN_PROTOCOL_VERSION } from "../session/protocol.ts";
import { failure, type ToolEnvelope } from "./envelope.ts";
import { checkCallResult } from "./result.ts";
import { paramHeaders } from "./param_headers.ts";
import { type CallPlan, catalogProblem, toolStatus } from "./call_plan.ts";

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
  /** The gate's trace of the call, handed to the session with the request (telemetry). */
  readonly trace?: object;
}

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
  try {
    const headers = plan.paramHeaders?.length &&
        plan.monitor.protocolVersion === MODERN_PROTOCOL_VERSION
      ? paramHeaders(plan.paramHeaders, args)
      : undefined;
    const send = () =>
      plan.session.request(
        "tools/call",
        { name: plan.entry.remoteName, arguments: args },
        {
          signal,
          timeoutMs: plan.limits.timeoutMs,
          ...(headers ? { headers } : {}),
          ...(hooks.trace ? { trace: hooks.trace } : {}),
        },
      );
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
  } catch (error) {
    if (error instanceof SessionRequestError) {
      return { envelope: failure(error.code), sent: error.sent };
    }
    return { envelope: failure("mcp_transport_error"), sent: true };
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
