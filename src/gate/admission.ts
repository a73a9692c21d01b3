/**
 * Batch admission: the gate's tools by local name, and the local checks of a whole batch
 * before anything of it runs.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { CallPlan } from "../calls/call_plan.ts";
import type { ApprovalBinding } from "../approvals/types.ts";
import { admitCall } from "../calls/admit.ts";
import type { ArgumentProblem } from "../calls/envelope.ts";
import type { ApprovalDecider } from "../catalog/bindings.ts";
import type { GateCall, GateCatalog, GateEnvelope, GateErrorCode, RunOptions } from "./types.ts";
import type { CodeIn } from "../codes.ts";

/**
 * A read tool of the gate.
 *
 * @category Gate
 */
export type ReadTool = { readonly kind: "read"; readonly plan: CallPlan };

/**
 * A write tool of the gate, with the binding identity its approvals record.
 *
 * @category Gate
 */
export type WriteTool = {
  readonly kind: "write";
  readonly plan: CallPlan;
  /** The binding identity an approval records, built once at discovery. */
  readonly binding: ApprovalBinding;
  /** Who decides, as the snapshot records it (absent: the gate's configuration). */
  readonly decidedBy: ApprovalDecider | undefined;
};

/**
 * A tool of the gate.
 *
 * @category Gate
 */
export type GateTool = ReadTool | WriteTool;

/**
 * One admitted call of a batch.
 *
 * @category Gate
 */
export type Admitted = {
  readonly call: GateCall;
  readonly tool: GateTool;
  readonly args: JsonObject;
  /** The canonical text of `args`, from admission. */
  readonly canonical: string;
};

/** Whether a catalog's call plan has the shape discovery gives one (a copy keeps it). */
function isPlan(plan: CallPlan | undefined): plan is CallPlan {
  return typeof plan === "object" && plan !== null && typeof plan.entry?.localName === "string" &&
    typeof plan.session?.request === "function" && typeof plan.validateInput === "function";
}

/**
 * Why the catalogs cannot make a gate's tool map.
 *
 * @category Gate
 */
export type ToolMapProblem = CodeIn<"ToolMapProblem">;

/**
 * The gate's tools by local name, from the call plans discovery produced, or the first problem
 * with the catalogs (a plan not made by discovery, a local name in two catalogs) and the name
 * concerned.
 *
 * @category Gate
 */
export function toolMap(
  catalogs: readonly GateCatalog[],
): Map<string, GateTool> | { problem: ToolMapProblem; name: string } {
  const tools = new Map<string, GateTool>();
  for (const catalog of catalogs) {
    for (const plan of Array.isArray(catalog?.calls) ? catalog.calls : [undefined]) {
      if (!isPlan(plan)) {
        return { problem: "gate_registration_invalid", name: String(plan?.entry?.localName) };
      }
      const name = plan.entry.localName;
      if (tools.has(name)) return { problem: "gate_duplicate_name", name };
      tools.set(
        name,
        plan.approval !== undefined
          ? { kind: "write", plan, ...plan.approval }
          : { kind: "read", plan },
      );
    }
  }
  return tools;
}

function failed(
  id: string,
  errorCode: GateErrorCode,
  isWrite: boolean,
  problems?: readonly ArgumentProblem[],
): GateEnvelope {
  return {
    id,
    text: [],
    structured: null,
    errorCode,
    ...(problems ? { problems } : {}),
    ...(isWrite ? { effect: "not_started" as const } : {}),
  };
}

type Refused = { readonly code: GateErrorCode; readonly problems?: readonly ArgumentProblem[] };

/**
 * Admission for the whole batch; any failure rejects every call.
 *
 * @category Gate
 */
export async function admitBatch(
  tools: ReadonlyMap<string, GateTool>,
  calls: readonly GateCall[],
  options: RunOptions,
): Promise<Admitted[] | { envelopes: GateEnvelope[] }> {
  const seen = new Set<string>();
  const results: (Admitted | Refused)[] = [];
  for (const call of calls) {
    const id = typeof call?.id === "string" ? call.id : "";
    if (id.length === 0 || seen.has(id)) {
      results.push({ code: "gate_invalid_call_id" });
      continue;
    }
    seen.add(id);
    const tool = typeof call.name === "string" ? tools.get(call.name) : undefined;
    if (tool === undefined) {
      results.push({ code: "unknown_tool" });
      continue;
    }
    let admission;
    try {
      admission = await admitCall(tool.plan, call.arguments, options.state, options.signal);
    } catch {
      admission = { ok: false as const, errorCode: "mcp_protocol_error" as const };
    }
    results.push(
      admission.ok ? { call, tool, args: admission.args, canonical: admission.canonical } : {
        code: admission.errorCode,
        ...(admission.problems ? { problems: admission.problems } : {}),
      },
    );
  }
  if (results.every((result) => "call" in result)) return results as Admitted[];
  return {
    envelopes: results.map((result, index) => {
      const id = typeof calls[index]?.id === "string" ? calls[index].id : "";
      if ("call" in result) return failed(id, "batch_rejected", result.tool.kind === "write");
      const isWrite = tools.get(calls[index]?.name)?.kind === "write";
      return failed(id, result.code, isWrite, result.problems);
    }),
  };
}
