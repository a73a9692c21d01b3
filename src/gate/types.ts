/**
 * Types of the gate: the batch it runs, the envelopes it returns, its options and codes.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { CallErrorCode, ToolEnvelope } from "../calls/envelope.ts";
import type { CallPlan } from "../calls/call_plan.ts";
import type { CallHandlers } from "../calls/host_handlers.ts";
import type { WriteEffect } from "../catalog/bindings.ts";
import type { ApprovalRecord, ApprovalStore, ClaimRefusalCode } from "../approvals/types.ts";
import type { CodeOf } from "../codes.ts";
import type { GateTelemetry } from "../telemetry/types.ts";
import type { CallTrace, TracedVerdicts } from "../telemetry/call_trace.ts";
import type { GateErrorCodeThrown } from "./gate.ts";

/**
 * One model tool call: the model's call id, the local tool name and its arguments.
 *
 * @category Gate
 */
export interface GateCall {
  /** The model's tool call id; unique within a batch, stable within a run. */
  readonly id: string;
  /** The local tool name the model called. */
  readonly name: string;
  /** The arguments as the model sent them (validated before anything runs). */
  readonly arguments: unknown;
}

/**
 * Codes only the gate produces (besides the call codes and claim refusals).
 *
 * @category Gate
 */
export type GateOnlyErrorCode = Exclude<CodeOf<"gate">, GateErrorCodeThrown>;

/**
 * Every code a gate envelope can carry.
 *
 * @category Gate
 */
export type GateErrorCode = CallErrorCode | ClaimRefusalCode | GateOnlyErrorCode;

/**
 * The result of one call of a batch: the one {@link ToolEnvelope} with the model's call id.
 * On failure `structured` is `null` and `errorCode` says why. Write calls add `effect` and
 * (once prepared) `approvalId`; a committed write adds its `receipt`.
 *
 * @category Gate
 */
export interface GateEnvelope extends ToolEnvelope<GateErrorCode> {
  /** The model's call id. */
  readonly id: string;
}

/**
 * What an inline approver is shown: exactly the call it approves.
 *
 * @category Gate
 */
export interface InlineApprovalRequest {
  /** The host's id for the server. */
  readonly server: string;
  /** The local tool name. */
  readonly tool: string;
  /** The tool's name on the server. */
  readonly remoteName: string;
  /** A copy of the admitted arguments. */
  readonly arguments: JsonObject;
  /** The declared effect. */
  readonly effect: WriteEffect;
  /**
   * The approval this decision is recorded on. For a call the run has not made before it is
   * recorded with the decision (approved with its claim in one commit), so it is not in the
   * store yet while the approver decides.
   */
  readonly approvalId: string;
}

/**
 * Decides inline. Only a return value of exactly `true` approves; `false`, any other value or a
 * throw denies, and the denial is recorded.
 *
 * @category Gate
 */
export type InlineApprover = (request: InlineApprovalRequest) => unknown;

/**
 * The points of a write where a crash test may stop the process (after each step the store
 * recorded; `prepared`: the pending approval, before any decision).
 *
 * @category Gate
 */
export type PersistencePoint =
  | "prepared"
  | "approved"
  | "claimed"
  | "sent"
  | "replied"
  | "recorded";

/**
 * Catalog input of a gate: anything with call plans (a discovery result, for example). A plan
 * with a write approval is a write tool; any other plan is a read tool.
 *
 * @category Gate
 */
export interface GateCatalog {
  /** The call plans of `discoverTools` or `discoverWriteTools` (a subset runs only those). */
  readonly calls: readonly CallPlan[];
  /**
   * The catalog's server and revision, for telemetry (a discovery result carries its
   * snapshot); without it a read tool's spans name no server and no snapshot digest.
   */
  readonly snapshot?: {
    readonly serverId: string;
    readonly revisionDigest: string;
    /** The screen's and the lock's verdicts on the catalog's tools, when the host knows them. */
    readonly verdicts?: TracedVerdicts;
  };
}

/**
 * Options of the `Gate` constructor.
 *
 * @category Gate
 */
export interface GateOptions {
  /** Catalogs whose tools this gate runs; local names must be unique across all of them. */
  readonly catalogs: readonly GateCatalog[];
  /**
   * What the host answers and hears while a call runs: `elicit` answers the server's
   * elicitation requests (2026-07-28 `input_required` rounds on any session; 2025 requests on
   * a connect()-built one), `onProgress` hears progress (a progress token is sent only then).
   * Each is told which call it is for: server, tool, run and call ids, approval id.
   */
  readonly handlers?: CallHandlers;
  /**
   * The approval store; required when any catalog has write tools, except when every write
   * tool is decided inline (`decidedBy: "inline"`, decisions then kept in memory only for
   * this gate's life) or by nobody (`decidedBy: "none"`).
   */
  readonly store?: ApprovalStore;
  /**
   * Inline decision; without it approvals are deferred (`approval_pending`, then `resume`).
   * With a store, inline decisions are recorded in it (decided by `INLINE_DECIDER`).
   */
  readonly approve?: InlineApprover;
  /** How long an approval stays usable, in milliseconds (default 15 minutes). */
  readonly approvalTtlMs?: number;
  /**
   * Told each time a call ends `approval_pending` (deferred approvals), with a copy of the
   * pending record: notify a person here (`webhookNotifier` from `@sluice/mcp/inbox`). Never
   * awaited; a throw, a rejection or slowness has no effect on the call.
   */
  readonly onPending?: (approval: ApprovalRecord) => void | Promise<void>;
  /** Clock in milliseconds since the Unix epoch (default `Date.now`); injectable for tests. */
  readonly now?: () => number;
  /**
   * OpenTelemetry spans and metrics of every call, in the MCP semantic conventions, through
   * the host's own tracer and meter (docs/telemetry.md); absent, nothing is emitted or loaded.
   */
  readonly telemetry?: GateTelemetry;
  /**
   * Lets a non-durable store (the in-memory one) gate writes. Only for tests: a crash would lose
   * the record of a claimed write.
   */
  readonly allowNonDurableStoreForTests?: boolean;
  /**
   * For crash tests only: called after each durable step of a write (and once the request is
   * handed to the session), so a test host can kill itself exactly there. Production hosts
   * leave it unset. A throw from it is ignored.
   */
  readonly onPersistencePointForTests?: (
    point: PersistencePoint,
    approvalId: string,
  ) => void | Promise<void>;
}

/**
 * Options of one `Gate.run`.
 *
 * @category Gate
 */
export interface RunOptions {
  /** The agent run; with each call id it names the call's approval across restarts. */
  readonly runId: string;
  /**
   * Aborts waiting (`mcp_aborted`); a sent write then ends `unknown`, an inline decision not
   * yet made leaves its approval pending.
   */
  readonly signal?: AbortSignal;
  /** Host state handed to scope validators. */
  readonly state?: unknown;
}

/**
 * Options of `Gate.resume`.
 *
 * @category Gate
 */
export interface ResumeOptions {
  /** Aborts waiting; a sent write then ends `unknown`. */
  readonly signal?: AbortSignal;
  /** Host state handed to the scope validator. */
  readonly state?: unknown;
}

/**
 * Options of `Gate.recover`.
 *
 * @category Gate
 */
export interface RecoverOptions {
  /** Only claims made at or before this time (default: now) are settled. */
  readonly claimedBefore?: number;
}

/**
 * Options of a call on the write path: the caller's, plus the call's trace when the gate has
 * telemetry.
 *
 * @category Gate
 */
export type Traced<Options> = Options & { readonly trace?: CallTrace };

/**
 * What the write path needs from its gate.
 *
 * @category Gate
 */
export interface WritePathContext {
  /** The store approvals are recorded in. */
  readonly store: ApprovalStore;
  /** Whether the store is the gate's own in-memory one (inline decisions only, no check). */
  readonly ephemeral: boolean;
  readonly approve: InlineApprover | undefined;
  readonly ttlMs: number;
  readonly now: () => number;
  readonly allowNonDurable: boolean;
  readonly hook:
    | ((point: PersistencePoint, approvalId: string) => void | Promise<void>)
    | undefined;
  /** Told of each call that ends `approval_pending`; never awaited, failures ignored. */
  readonly onPending?: (approval: ApprovalRecord) => void | Promise<void>;
  /** The host's handlers each dispatched call runs with. */
  readonly handlers?: CallHandlers;
}
