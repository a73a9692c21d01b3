/**
 * The call plan: what discovery produced for one tool's calls, as plain values.
 *
 * @module
 */
import type { ResultScreen } from "./result.ts";
import type { SchemaValidator } from "../schema/types.ts";
import type { ApprovalDecider, ScopeValidator } from "../catalog/bindings.ts";
import type { ApprovalBinding } from "../approvals/types.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import type { CatalogMonitor, CatalogStatus } from "../catalog/monitor.ts";
import type { SnapshotEntryBase } from "../catalog/snapshot.ts";
import type { McpSession } from "../session/session.ts";
import type { JsonObject } from "../identity/mod.ts";
import { DeadlineQueue } from "../deadline.ts";
import { withinDeadline } from "./within_deadline.ts";
import type { CallErrorCode } from "./envelope.ts";
import type { ParamHeaderDeclaration } from "./param_headers.ts";

/**
 * What a write tool's approvals are bound to, and who decides them.
 *
 * @category Discovery and calls
 */
export interface WriteApproval {
  /** The binding identity every approval of this tool records. */
  readonly binding: ApprovalBinding;
  /** Who decides, as the snapshot records it (absent: the gate's configuration). */
  readonly decidedBy: ApprovalDecider | undefined;
}

/**
 * The host's scope validator as a call runs it: given the host state, the admitted arguments
 * and the caller's signal, it resolves with the validator's verdict (`undefined` allows) and
 * rejects with a `DeadlineStopped` when the caller aborts or the tool's timeout passes first.
 *
 * @category Discovery and calls
 */
export type ScopeCheck = (
  state: unknown,
  args: JsonObject,
  signal: AbortSignal | undefined,
) => Promise<unknown>;

/**
 * Binds a scope validator to a tool's timeout. Its deadlines all last that timeout: one shared
 * timer serves them.
 *
 * @param scope the host's validator, or `null`
 * @param timeoutMs the tool's timeout
 *
 * @category Discovery and calls
 */
export function scopeCheckOf(scope: ScopeValidator | null, timeoutMs: number): ScopeCheck | null {
  if (scope === null) return null;
  const deadlines = new DeadlineQueue(timeoutMs);
  return (state, args, signal) =>
    withinDeadline((stop) => scope(state, args, stop), signal, deadlines);
}

/**
 * What discovery produced for the calls of one tool, as plain values the gate runs them with:
 * the admission rules (limits, scope validator), the compiled validators and what dispatch
 * sends through (session, monitor, headers). A write tool adds the identity its approvals are
 * bound to. `admitCall` and `dispatchCall` read nothing else.
 *
 * @category Discovery and calls
 */
export interface CallPlan {
  /** The frozen snapshot entry. */
  readonly entry: SnapshotEntryBase;
  /** The host's id of the tool's server (as its snapshot records it). */
  readonly serverId?: string;
  /** The session calls go through. */
  readonly session: McpSession;
  /** The session's monitor, asked before every send. */
  readonly monitor: CatalogMonitor;
  /** The monitor's generation when discovery started. */
  readonly generation: number;
  /** The catalog's limits. */
  readonly limits: ToolLimits;
  /** The host's scope validator bound to the tool's timeout, or `null` for none. */
  readonly scope: ScopeCheck | null;
  /** The input schema's validator, compiled at discovery. */
  readonly validateInput: SchemaValidator;
  /** The output schema's validator, or `null` when the tool has none. */
  readonly validateOutput: SchemaValidator | null;
  /**
   * The entry digest of the tool's definition as listed (absent for an owner spec): after a
   * change is heard, a re-listing that finds this digest again keeps the tool current.
   */
  readonly definitionDigest?: string;
  /** The input schema's `x-mcp-header` declarations (mirrored on 2026-07-28 only). */
  readonly paramHeaders?: readonly ParamHeaderDeclaration[];
  /** Send once more when the reply stream broke (2026-07-28 reads the host opted in). */
  readonly resendOnBrokenStream?: boolean;
  /** What hidden text in a result does (opt-in per server; absent: results are not screened). */
  readonly resultScreen?: ResultScreen;
  /** A write tool: what its approvals are bound to and who decides. Absent for a read. */
  readonly approval?: WriteApproval;
}

/**
 * Where one tool stands now: current, stale (a change not yet re-listed) or closed. Per tool,
 * so a change elsewhere leaves it current.
 *
 * @param plan the tool's call plan
 *
 * @category Discovery and calls
 */
export function toolStatus(plan: CallPlan): CatalogStatus {
  return plan.monitor.toolStatus(
    plan.generation,
    plan.entry.remoteName,
    plan.definitionDigest,
  );
}

/**
 * The code a call of this tool fails with before anything is sent, when its catalog is stale
 * or closed.
 *
 * @param plan the tool's call plan
 *
 * @category Discovery and calls
 */
export function catalogProblem(plan: CallPlan): CallErrorCode | undefined {
  switch (toolStatus(plan)) {
    case "stale":
      return "mcp_catalog_stale";
    case "closed":
      return "mcp_connection_closed";
  }
  return undefined;
}
