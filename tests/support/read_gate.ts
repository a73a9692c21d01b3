/**
 * Runs reads the way a host does: through a read-only `Gate` over a discovery result's call
 * plans. A registration has no call path of its own.
 */
import { Gate } from "../../src/gate/gate.ts";
import type { CallPlan } from "../../src/calls/call_plan.ts";
import type { ToolEnvelope } from "../../src/calls/envelope.ts";
import type { GateErrorCode, RunOptions } from "../../src/gate/types.ts";

/** One read tool of a read-only gate: `call` runs a batch of one and returns its envelope. */
export interface GatedRead {
  call(
    args: unknown,
    options?: Omit<RunOptions, "runId">,
  ): Promise<ToolEnvelope<GateErrorCode>>;
}

/**
 * The read tool `localName` of a discovery result, behind a read-only gate of its own.
 *
 * @param found a discovery result (anything with call plans)
 * @param localName the tool's local name
 */
export function gatedRead(
  found: { readonly calls: readonly CallPlan[] },
  localName: string,
): GatedRead {
  const calls = found.calls.filter((plan) => plan.entry.localName === localName);
  if (calls.length === 0) throw new Error(`no read tool named ${localName}`);
  const gate = new Gate({ catalogs: [{ calls }] });
  return {
    async call(args, options = {}) {
      const [{ id: _id, ...envelope }] = await gate.run(
        [{ id: "call", name: localName, arguments: args }],
        { ...options, runId: "read" },
      );
      return envelope;
    },
  };
}

/**
 * Every read tool of a discovery result behind read-only gates, in registration order.
 *
 * @param found a discovery result
 */
export function gatedReads(found: { readonly calls: readonly CallPlan[] }): GatedRead[] {
  return found.calls.map((plan) => gatedRead(found, plan.entry.localName));
}
