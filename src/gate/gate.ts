/**
 * The gate: sluice's one runner for a batch of model tool calls. Admission for the whole batch
 * first; then reads dispatch and writes go through a durable, single-use approval.
 *
 * @module
 */
import { digest } from "../identity/mod.ts";
import { SluiceError } from "../errors.ts";
import { MemoryApprovalStore } from "../approvals/memory.ts";
import type { ApprovalRecord, ApprovalStore } from "../approvals/types.ts";
import { admitBatch, type GateTool, toolMap } from "./admission.ts";
import type {
  GateCall,
  GateEnvelope,
  GateOptions,
  RecoverOptions,
  ResumeOptions,
  RunOptions,
  Traced,
} from "./types.ts";
import { WritePath } from "./write_path.ts";
import { writeFailure } from "./write_envelope.ts";
import { dispatchCall } from "../calls/dispatch.ts";
import type { CallHandlers } from "../calls/host_handlers.ts";
import { handlerHooks } from "./call_hooks.ts";
import type { CodeIn } from "../codes.ts";
import { type CallTrace, GateInstruments, type TracedTool } from "../telemetry/call_trace.ts";
import type { GateTelemetry } from "../telemetry/types.ts";
import { tracedTools } from "./traced_tools.ts";

/**
 * Stable codes of {@link GateError}.
 *
 * @category Gate
 */
export type GateErrorCodeThrown = CodeIn<"GateErrorCodeThrown">;

/**
 * Thrown by the {@link Gate} constructor and for a malformed batch; codes `gate_*`.
 *
 * @category Gate
 */
export class GateError extends SluiceError<GateErrorCodeThrown> {
  /**
   * Creates the error.
   *
   * @param code stable error code
   * @param message explanation written by sluice
   */
  constructor(code: GateErrorCodeThrown, message: string) {
    super(code, message);
    this.name = "GateError";
  }
}

/**
 * Default approval lifetime: 15 minutes.
 *
 * @category Gate
 */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60 * 1000;

/**
 * Why a recovered claim is `unknown`: the process stopped between claim and record.
 *
 * @category Gate
 */
export const RECOVERED_REASON = "interrupted_before_record";

/** The decider each write tool's snapshot records must be one the options can honour. */
function checkDeciders(tools: ReadonlyMap<string, GateTool>, options: GateOptions): void {
  for (const [name, tool] of tools) {
    if (tool.kind !== "write" || tool.decidedBy === undefined) continue;
    const honoured = tool.decidedBy === "inline"
      ? options.approve !== undefined
      : tool.decidedBy === "store"
      ? options.approve === undefined && options.store !== undefined
      : options.approve === undefined;
    if (!honoured) {
      throw new GateError(
        "gate_options_invalid",
        `write tool "${name}" is decided by "${tool.decidedBy}", which these options do not do`,
      );
    }
  }
}

/** Whether `telemetry` is an object whose tracer and meter (when given) have the methods used. */
function telemetryOk(telemetry: GateTelemetry): boolean {
  if (typeof telemetry !== "object" || telemetry === null) return false;
  const { tracer, meter, activeSpan, inject } = telemetry;
  return (tracer === undefined || typeof tracer?.startSpan === "function") &&
    (meter === undefined ||
      (typeof meter?.createHistogram === "function" &&
        typeof meter?.createCounter === "function")) &&
    (activeSpan === undefined || typeof activeSpan === "function") &&
    (inject === undefined || typeof inject === "function");
}

/**
 * Runs batches of model tool calls against read and write catalogs. Admission (known tool,
 * arguments within budget and schema, scope validator) runs for the whole batch before anything
 * is dispatched; one failure rejects the batch. Read tools then dispatch. Write tools get a
 * durable approval bound to the server, tool, arguments digest, write-catalog digest, scope and
 * effect: decided inline by the `approve` callback (exactly `true` approves) or later by a
 * person through the store, after which {@link Gate.resume} dispatches. At claim the current
 * registration's binding identity and the arguments digest are re-checked; refusals are
 * recorded. A call id within a run maps to one approval and is never dispatched twice.
 *
 * Write envelopes carry `effect`: `committed` (validated result, receipt recorded),
 * `not_started` (refused or rejected before sending), `unknown` (sent, outcome unproven; kept
 * as is until a person reconciles it).
 *
 * @example
 * ```ts
 * import { type DiscoveryResult, Gate, type WriteDiscoveryResult } from "@sluice/mcp";
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * declare const reads: DiscoveryResult, writes: WriteDiscoveryResult; // from discovery
 *
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * const gate = new Gate({ catalogs: [reads, writes], store });
 * await gate.recover(); // settle claims a crash left behind
 * const [envelope] = await gate.run(
 *   [{ id: "call_1", name: "save_record", arguments: { key: "a", value: "b" } }],
 *   { runId: "run-42" },
 * );
 * if (envelope.errorCode === "approval_pending") {
 *   // a person approves with `sluice approvals approve <id>`; then:
 *   await gate.resume(envelope.approvalId!);
 * }
 * ```
 *
 * @category Gate
 */
export class Gate {
  readonly #tools: ReadonlyMap<string, GateTool>;
  readonly #store: ApprovalStore | undefined;
  readonly #handlers: CallHandlers | undefined;
  readonly #writes: WritePath | undefined;
  readonly #now: () => number;
  /** Present only when the host passed telemetry: nothing is built or paid otherwise. */
  readonly #instruments: GateInstruments | undefined;
  readonly #traced: ReadonlyMap<string, TracedTool> = new Map();

  /**
   * Creates a gate over the given catalogs. Throws a {@link GateError}: `gate_duplicate_name`
   * when two catalogs share a local name, `gate_registration_invalid` for a call plan not
   * made by discovery, `gate_store_missing` when write tools have no store (and are not all
   * decided inline or by nobody), `gate_options_invalid` for a bad TTL or callback, or a
   * write tool whose recorded decider the options do not honour.
   *
   * @param options catalogs, store, inline approver, TTL, clock and the test-only options
   */
  constructor(options: GateOptions) {
    if (typeof options !== "object" || options === null || !Array.isArray(options.catalogs)) {
      throw new GateError("gate_options_invalid", "options.catalogs must be an array");
    }
    const tools = toolMap(options.catalogs);
    if (!(tools instanceof Map)) {
      throw new GateError(
        tools.problem,
        tools.problem === "gate_duplicate_name"
          ? `local name "${tools.name}" appears in two catalogs`
          : "a call plan was not created by discoverTools or discoverWriteTools",
      );
    }
    this.#tools = tools;
    const ttl = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
    if (!Number.isSafeInteger(ttl) || ttl < 1) {
      throw new GateError("gate_options_invalid", "approvalTtlMs must be a positive integer");
    }
    if (options.approve !== undefined && typeof options.approve !== "function") {
      throw new GateError("gate_options_invalid", "approve must be a function");
    }
    if (options.onPending !== undefined && typeof options.onPending !== "function") {
      throw new GateError("gate_options_invalid", "onPending must be a function");
    }
    checkDeciders(tools, options);
    if (options.telemetry !== undefined) {
      if (!telemetryOk(options.telemetry)) {
        throw new GateError(
          "gate_options_invalid",
          "telemetry needs a tracer with startSpan and a meter with createHistogram and createCounter",
        );
      }
      this.#instruments = new GateInstruments(options.telemetry);
      this.#traced = tracedTools(options.catalogs, tools);
    }
    const writes = [...tools.values()].filter((tool) => tool.kind === "write");
    // Without a store, inline decisions live in memory for this gate's life only, and tools
    // nobody decides need no record at all: both are stated in the snapshot.
    const storeOptional = writes.every((tool) =>
      tool.decidedBy === "none" || (tool.decidedBy === "inline" && options.approve !== undefined)
    );
    if (writes.length > 0 && options.store === undefined && !storeOptional) {
      throw new GateError("gate_store_missing", "write tools need an approval store");
    }
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    const store = options.store ?? (writes.length > 0 ? new MemoryApprovalStore() : undefined);
    this.#writes = store === undefined ? undefined : new WritePath({
      store,
      ephemeral: options.store === undefined,
      approve: options.approve,
      ttlMs: ttl,
      now: this.#now,
      allowNonDurable: options.allowNonDurableStoreForTests === true,
      hook: options.onPersistencePointForTests,
      onPending: options.onPending,
      ...(options.handlers !== undefined ? { handlers: options.handlers } : {}),
    });
    this.#handlers = options.handlers;
  }

  /**
   * Runs one batch and returns one envelope per call, in order. Never throws for a call's
   * failure; throws `gate_options_invalid` only when `calls` is not an array or `runId` is
   * empty.
   *
   * @param calls the model's tool calls
   * @param options the run id (required for idempotent writes), abort signal, scope state
   */
  async run(calls: readonly GateCall[], options: RunOptions): Promise<GateEnvelope[]> {
    if (!Array.isArray(calls)) {
      throw new GateError("gate_options_invalid", "calls must be an array");
    }
    if (typeof options?.runId !== "string" || options.runId.length === 0) {
      throw new GateError("gate_options_invalid", "runId must be a non-empty string");
    }
    const admitted = await admitBatch(this.#tools, calls, options);
    const instruments = this.#instruments;
    if (!Array.isArray(admitted)) {
      if (instruments !== undefined) {
        // Refused before anything ran: one span each, ended at once, arguments never recorded.
        admitted.envelopes.forEach((envelope, index) =>
          instruments.start(this.#traced.get(calls[index]?.name)).end(envelope)
        );
      }
      return admitted.envelopes;
    }
    const envelopes: GateEnvelope[] = [];
    // One call after another: writes are never concurrency-safe, and order is the model's.
    for (const item of admitted) {
      const trace = instruments?.start(this.#traced.get(item.call.name), item.args);
      let envelope: GateEnvelope;
      if (item.tool.kind === "write") {
        envelope = await this.#writes!.run(item, item.tool, tracedOptions(options, trace));
      } else {
        const dispatched = await dispatchCall(
          item.tool.plan,
          item.args,
          options.signal,
          {
            ...handlerHooks(this.#handlers, item.tool.plan, {
              runId: options.runId,
              ...(item.call.id !== undefined ? { callId: item.call.id } : {}),
            }),
            ...(trace === undefined ? {} : { trace }),
          },
        );
        envelope = { id: item.call.id, ...dispatched.envelope };
      }
      trace?.end(envelope);
      envelopes.push(envelope);
    }
    return envelopes;
  }

  /**
   * Dispatches a call whose approval a person decided later. Returns the write envelope; the
   * envelope's `id` is the call id recorded with the approval. A pending approval returns
   * `approval_pending`; an approval already claimed returns its recorded effect with
   * `approval_already_claimed` and is never dispatched again.
   *
   * @param approvalId the id from an `approval_pending` envelope
   * @param options abort signal and scope state
   */
  async resume(approvalId: string, options: ResumeOptions = {}): Promise<GateEnvelope> {
    const store = this.#requireStore();
    let record: ApprovalRecord | undefined;
    let envelope: GateEnvelope;
    try {
      record = await store.get(approvalId);
    } catch {
      envelope = writeFailure("", "approval_store_error", "not_started", approvalId);
    }
    const trace = this.#instruments?.start(
      record === undefined ? undefined : this.#traced.get(record.toolName),
      undefined,
      record?.traceLink,
    );
    envelope ??= record === undefined
      ? writeFailure("", "approval_not_found", "not_started", approvalId)
      : await this.#resume(store, record, tracedOptions(options, trace));
    trace?.end(envelope);
    return envelope;
  }

  async #resume(
    store: ApprovalStore,
    record: ApprovalRecord,
    options: Traced<ResumeOptions>,
  ): Promise<GateEnvelope> {
    const approvalId = record.id;
    // An edit's approval carries no call ids: the call is its original's.
    let call = record;
    if (record.supersedes !== undefined) {
      call = await store.get(record.supersedes).catch(() => undefined) ?? record;
    }
    const id = call.callId ?? "";
    const tool = this.#tools.get(record.toolName);
    if (tool === undefined || tool.kind !== "write") {
      return writeFailure(id, "unknown_tool", "not_started", approvalId);
    }
    if (!this.#writes!.durableOk()) {
      return writeFailure(id, "approval_store_not_durable", "not_started", approvalId);
    }
    if (record.state === "pending") {
      return writeFailure(id, "approval_pending", "not_started", approvalId);
    }
    if (record.state === "superseded") {
      return await this.#writes!.resumeEdited(id, record, tool, options);
    }
    return await this.#writes!.settle(
      id,
      record,
      tool,
      record.arguments,
      await digest(record.arguments),
      options,
    );
  }

  /**
   * Settles what a crash left behind: every approval of this gate's write tools that is still
   * `claimed` (claimed at or before `claimedBefore`, default now) is recorded `unknown`, never
   * dispatched again. Call it at start-up, before this host's calls run; with several processes
   * sharing a store, pass a `claimedBefore` older than any call still in flight. Returns the
   * ids it settled.
   *
   * @param options the claim-time cut-off
   */
  async recover(options: RecoverOptions = {}): Promise<string[]> {
    const store = this.#requireStore();
    const cutoff = options.claimedBefore ?? this.#now();
    const settled: string[] = [];
    for (const record of await store.list({ state: "claimed" })) {
      const tool = this.#tools.get(record.toolName);
      if (tool?.kind !== "write" || tool.binding.serverId !== record.serverId) continue;
      if ((record.claimedAt ?? Infinity) > cutoff) continue;
      await store.recordOutcome(record.id, { outcome: "unknown", reason: RECOVERED_REASON });
      settled.push(record.id);
    }
    return settled;
  }

  #requireStore(): ApprovalStore {
    if (this.#store === undefined) {
      throw new GateError("gate_store_missing", "this gate has no approval store");
    }
    return this.#store;
  }
}

/** The options with the call's trace, or the options themselves when there is none. */
function tracedOptions<Options extends ResumeOptions>(
  options: Options,
  trace: CallTrace | undefined,
): Traced<Options> {
  return trace === undefined ? options : { ...options, trace };
}
