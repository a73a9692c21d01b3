/**
 * The dispatch hooks that tie a call to the host's handlers: which call it is (server, tool,
 * run and call ids, approval id) and the handlers it runs with.
 *
 * @module
 */
import type { CallPlan } from "../calls/call_plan.ts";
import type { DispatchHooks } from "../calls/dispatch.ts";
import type { CallHandlers } from "../calls/host_handlers.ts";

/** The ids a call is known by; absent or empty ids are left out. */
export interface CallIds {
  readonly server?: string;
  readonly runId?: string;
  readonly callId?: string;
  readonly approvalId?: string;
}

/**
 * The hooks of one call of `plan`: none when the host gave no handlers.
 *
 * @param handlers the gate's handlers
 * @param plan the tool's call plan
 * @param ids what the call is known by
 */
export function handlerHooks(
  handlers: CallHandlers | undefined,
  plan: CallPlan,
  ids: CallIds,
): Pick<DispatchHooks, "handlers" | "origin"> {
  if (handlers === undefined) return {};
  const { runId, callId, approvalId } = ids;
  return {
    handlers,
    origin: {
      server: ids.server ?? plan.serverId ?? "",
      tool: plan.entry.localName,
      remoteTool: plan.entry.remoteName,
      ...(runId !== undefined && runId !== "" ? { runId } : {}),
      ...(callId !== undefined && callId !== "" ? { callId } : {}),
      ...(approvalId !== undefined ? { approvalId } : {}),
    },
  };
}
