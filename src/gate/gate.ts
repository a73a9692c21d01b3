/**
 * The gate: sluice's runner for a batch of model tool calls. Admission for the whole batch
 * first; then reads dispatch and writes go through a durable, single-use approval.
 *
 * @module
 */
import { digest, digestText, type JsonObject } from "../identity/mod.ts";
import { SluiceError } from "../errors.ts";
import { type CallInternals, callInternals, type ToolRegistration } from "../calls/registration.ts";
import type { ToolEnvelope } from "../calls/envelope.ts";
import type { WriteToolRegistration } from "../catalog/discover_write.ts";
import { assertDurableStore } from "../approvals/guard.ts";
import { settledRefusal } from "../approvals/machine.ts";
import type { ApprovalRecord, ApprovalStore, ClaimExpectation } from "../approvals/types.ts";
import type {
  GateCall,
  GateEnvelope,
  GateErrorCode,
  GateOptions,
  InlineApprover,
  PersistencePoint,
  RecoverOptions,
  ResumeOptions,
  RunOptions,
  WriteOutcomeEffect,
} from "./types.ts";

/** Stable codes of {@link GateError}. */
export type GateErrorCodeThrown =
  | "gate_duplicate_name"
  | "gate_registration_invalid"
  | "gate_store_missing"
  | "gate_options_invalid";

/** Thrown by the {@link Gate} constructor and for a malformed batch; codes `gate_*`. */
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

/** Default approval lifetime: 15 minutes. */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60 * 1000;

/** Who the gate records as the decider when the inline callback decides. */
export const INLINE_DECIDER = "inline-callback";

/** Why a recovered claim is `unknown`: the process stopped between claim and record. */
export const RECOVERED_REASON = "interrupted_before_record";

type ReadTool = { readonly kind: "read"; readonly layers: CallInternals };
type WriteTool = {
  readonly kind: "write";
  readonly layers: CallInternals;
  readonly registration: WriteToolRegistration;
  /** The binding identity an approval records, built once (the registration is frozen). */
  readonly binding: ApprovalBindingFields;
};
type Tool = ReadTool | WriteTool;

type Admitted = {
  readonly call: GateCall;
  readonly tool: Tool;
  readonly args: JsonObject;
  /** The canonical text of `args`, from admission. */
  readonly canonical: string;
};

function isWriteRegistration(
  registration: ToolRegistration | WriteToolRegistration,
): registration is WriteToolRegistration {
  return "approvalBinding" in registration;
}

/** The binding identity of a write registration, as an approval records it. */
function bindingOf(registration: WriteToolRegistration) {
  const binding = registration.approvalBinding;
  return {
    serverId: registration.serverId,
    toolName: registration.localName,
    remoteToolName: registration.remoteName,
    catalogDigest: binding.bindingRevision,
    bindingId: binding.bindingId,
    scopeId: binding.scopeId,
    scopeRevision: binding.scopeRevision,
    effect: binding.effect,
  };
}

type ApprovalBindingFields = Readonly<ReturnType<typeof bindingOf>>;

function failed(
  id: string,
  errorCode: GateErrorCode,
  write?: { effect: WriteOutcomeEffect; approvalId?: string },
): GateEnvelope {
  return {
    id,
    text: [],
    structured: null,
    errorCode,
    ...(write === undefined ? {} : write),
  };
}

/** The effect a stored approval stands for, when a call meets it again. */
function recordedEffect(record: ApprovalRecord): WriteOutcomeEffect {
  switch (record.state) {
    case "committed":
      return "committed";
    case "claimed":
    case "unknown":
      return "unknown";
    case "reconciled":
      return record.reconciliation?.outcome ?? "unknown";
    default:
      return "not_started";
  }
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
 * ```ts ignore
 * import { Gate } from "@sluice/mcp";
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
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
 */
export class Gate {
  readonly #tools = new Map<string, Tool>();
  readonly #store: ApprovalStore | undefined;
  readonly #approve: InlineApprover | undefined;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #allowNonDurable: boolean;
  readonly #hook: GateOptions["onPersistencePointForTests"];

  /**
   * Creates a gate over the given catalogs. Throws a {@link GateError}: `gate_duplicate_name`
   * when two catalogs share a local name, `gate_registration_invalid` for a registration not
   * made by discovery, `gate_store_missing` when write tools have no store,
   * `gate_options_invalid` for a bad TTL or callback.
   *
   * @param options catalogs, store, inline approver, TTL, clock and the test-only options
   */
  constructor(options: GateOptions) {
    if (typeof options !== "object" || options === null || !Array.isArray(options.catalogs)) {
      throw new GateError("gate_options_invalid", "options.catalogs must be an array");
    }
    for (const catalog of options.catalogs) {
      for (const registration of catalog.registrations) {
        const layers = callInternals(registration);
        if (layers === undefined) {
          throw new GateError(
            "gate_registration_invalid",
            "a registration was not created by discoverTools or discoverWriteTools",
          );
        }
        if (this.#tools.has(registration.localName)) {
          throw new GateError(
            "gate_duplicate_name",
            `local name "${registration.localName}" appears in two catalogs`,
          );
        }
        this.#tools.set(
          registration.localName,
          isWriteRegistration(registration)
            ? { kind: "write", layers, registration, binding: bindingOf(registration) }
            : { kind: "read", layers },
        );
      }
    }
    const hasWrites = [...this.#tools.values()].some((tool) => tool.kind === "write");
    if (hasWrites && options.store === undefined) {
      throw new GateError("gate_store_missing", "write tools need an approval store");
    }
    const ttl = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
    if (!Number.isSafeInteger(ttl) || ttl < 1) {
      throw new GateError("gate_options_invalid", "approvalTtlMs must be a positive integer");
    }
    if (options.approve !== undefined && typeof options.approve !== "function") {
      throw new GateError("gate_options_invalid", "approve must be a function");
    }
    this.#store = options.store;
    this.#approve = options.approve;
    this.#ttlMs = ttl;
    this.#now = options.now ?? Date.now;
    this.#allowNonDurable = options.allowNonDurableStoreForTests === true;
    this.#hook = options.onPersistencePointForTests;
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
    const admitted = await this.#admitBatch(calls, options);
    if (!Array.isArray(admitted)) return admitted.envelopes;
    const envelopes: GateEnvelope[] = [];
    // One call after another: writes are never concurrency-safe, and order is the model's.
    for (const item of admitted) {
      envelopes.push(
        item.tool.kind === "read"
          ? await this.#runRead(item, options.signal)
          : await this.#runWrite(item, item.tool, options),
      );
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
    try {
      record = await store.get(approvalId);
    } catch {
      return failed("", "approval_store_error", { effect: "not_started", approvalId });
    }
    if (record === undefined) {
      return failed("", "approval_not_found", { effect: "not_started", approvalId });
    }
    const id = record.callId ?? "";
    const tool = this.#tools.get(record.toolName);
    if (tool === undefined || tool.kind !== "write") {
      return failed(id, "gate_unknown_tool", { effect: "not_started", approvalId });
    }
    if (!this.#durableOk(store)) {
      return failed(id, "approval_store_not_durable", { effect: "not_started", approvalId });
    }
    if (record.state === "pending") {
      return failed(id, "approval_pending", { effect: "not_started", approvalId });
    }
    return await this.#settle(
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
      if (tool?.kind !== "write" || tool.registration.serverId !== record.serverId) continue;
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

  #durableOk(store: ApprovalStore): boolean {
    try {
      assertDurableStore(store, { allowNonDurableStoreForTests: this.#allowNonDurable });
      return true;
    } catch {
      return false;
    }
  }

  async #point(point: PersistencePoint, approvalId: string): Promise<void> {
    if (this.#hook === undefined) return;
    try {
      await this.#hook(point, approvalId);
    } catch {
      // A test hook must not change what the gate records.
    }
  }

  /** Admission for the whole batch; any failure rejects every call. */
  async #admitBatch(
    calls: readonly GateCall[],
    options: RunOptions,
  ): Promise<Admitted[] | { envelopes: GateEnvelope[] }> {
    const seen = new Set<string>();
    const results: (Admitted | GateErrorCode)[] = [];
    for (const call of calls) {
      const id = typeof call?.id === "string" ? call.id : "";
      if (id.length === 0 || seen.has(id)) {
        results.push("gate_invalid_call_id");
        continue;
      }
      seen.add(id);
      const tool = typeof call.name === "string" ? this.#tools.get(call.name) : undefined;
      if (tool === undefined) {
        results.push("gate_unknown_tool");
        continue;
      }
      let admission;
      try {
        admission = await tool.layers.admit(call.arguments, options.state, options.signal);
      } catch {
        admission = { ok: false as const, errorCode: "mcp_protocol_error" as const };
      }
      results.push(
        admission.ok
          ? { call, tool, args: admission.args, canonical: admission.canonical }
          : admission.errorCode,
      );
    }
    if (results.every((result) => typeof result !== "string")) return results as Admitted[];
    return {
      envelopes: results.map((result, index) => {
        const id = typeof calls[index]?.id === "string" ? calls[index].id : "";
        const code = typeof result === "string" ? result : "batch_rejected";
        const isWrite = typeof result !== "string"
          ? result.tool.kind === "write"
          : this.#tools.get(calls[index]?.name)?.kind === "write";
        return failed(id, code, isWrite ? { effect: "not_started" } : undefined);
      }),
    };
  }

  async #runRead(item: Admitted, signal: AbortSignal | undefined): Promise<GateEnvelope> {
    const { envelope } = await item.tool.layers.dispatch(item.args, signal);
    return { id: item.call.id, ...envelope };
  }

  async #runWrite(item: Admitted, tool: WriteTool, options: RunOptions): Promise<GateEnvelope> {
    const id = item.call.id;
    const store = this.#store!;
    if (!this.#durableOk(store)) {
      return failed(id, "approval_store_not_durable", { effect: "not_started" });
    }
    const registration = tool.registration;
    const argumentsDigest = await digestText(item.canonical);
    let record: ApprovalRecord | undefined;
    let sameContent = true;
    try {
      // prepare is idempotent per run and call id: it returns the existing approval when the
      // content is the same, and refuses with approval_conflict when it is not.
      record = await store.prepare({
        ...tool.binding,
        argumentsDigest,
        arguments: item.args,
        expiresAt: this.#now() + this.#ttlMs,
        runId: options.runId,
        callId: id,
      });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "approval_conflict") {
        return failed(id, "approval_store_error", { effect: "not_started" });
      }
      sameContent = false;
      record = await store.findCall(options.runId, id).catch(() => undefined);
      if (record === undefined) {
        return failed(id, "approval_store_error", { effect: "not_started" });
      }
    }
    // An approved call met again with other content is claimed against what is current now,
    // so the store refuses and records the reason (arguments changed, binding mismatch...).
    if (record.state !== "pending") {
      return await this.#settle(id, record, tool, item.args, argumentsDigest, options);
    }
    const approvalId = record.id;
    if (!sameContent) return failed(id, "approval_conflict", { effect: "not_started", approvalId });
    if (this.#approve === undefined) {
      return failed(id, "approval_pending", { effect: "not_started", approvalId });
    }
    let verdict: unknown;
    try {
      verdict = await this.#approve({
        server: registration.serverId,
        tool: registration.localName,
        arguments: structuredClone(item.args),
        effect: registration.approvalBinding.effect,
        approvalId,
      });
    } catch {
      verdict = undefined;
    }
    try {
      if (verdict !== true) {
        await store.deny(approvalId, { by: INLINE_DECIDER });
        return failed(id, "approval_denied", { effect: "not_started", approvalId });
      }
      record = await store.approve(approvalId, { by: INLINE_DECIDER });
    } catch (error) {
      const code = (error as { code?: unknown }).code === "approval_expired"
        ? "approval_expired"
        : "approval_store_error";
      return failed(id, code, { effect: "not_started", approvalId });
    }
    await this.#point("approved", approvalId);
    return await this.#settle(id, record, tool, item.args, argumentsDigest, options);
  }

  /**
   * An approval that is no longer pending: claim it (if approved) against the current binding
   * and `args`, then dispatch once and record the outcome; otherwise report what is recorded.
   */
  async #settle(
    id: string,
    record: ApprovalRecord,
    tool: WriteTool,
    args: JsonObject,
    argumentsDigest: string,
    options: ResumeOptions,
  ): Promise<GateEnvelope> {
    const store = this.#store!;
    const approvalId = record.id;
    if (record.state !== "approved") {
      return failed(id, settledRefusal(record.state), {
        effect: recordedEffect(record),
        approvalId,
      });
    }
    const expected: ClaimExpectation = { ...tool.binding, argumentsDigest };
    let claim;
    try {
      claim = await store.claim(approvalId, expected, this.#now());
    } catch {
      return failed(id, "approval_store_error", { effect: "not_started", approvalId });
    }
    if (!claim.ok) {
      // Every refusal but a claim made before leaves a state whose effect is `not_started`.
      const effect = claim.approval ? recordedEffect(claim.approval) : "not_started";
      return failed(id, claim.code, { effect, approvalId });
    }
    await this.#point("claimed", approvalId);
    // Re-check locally at claim time: the catalog may be stale, the scope may now deny.
    let admission;
    try {
      admission = await tool.layers.admit(args, options.state, options.signal);
    } catch {
      admission = { ok: false as const, errorCode: "mcp_protocol_error" as const };
    }
    if (!admission.ok) {
      return await this.#record(id, approvalId, {
        outcome: "not_started",
        code: admission.errorCode,
      });
    }
    const dispatch = await tool.layers.dispatch(admission.args, options.signal, {
      onSent: () => this.#point("sent", approvalId),
      failIfCatalogChanged: true,
    });
    await this.#point("replied", approvalId);
    const { envelope } = dispatch;
    if (envelope.errorCode !== undefined) {
      return await this.#record(id, approvalId, {
        outcome: dispatch.sent ? "unknown" : "not_started",
        code: envelope.errorCode,
      });
    }
    return await this.#record(id, approvalId, { outcome: "committed", envelope });
  }

  async #record(
    id: string,
    approvalId: string,
    result:
      | { outcome: "committed"; envelope: ToolEnvelope }
      | { outcome: "not_started" | "unknown"; code: GateErrorCode },
  ): Promise<GateEnvelope> {
    const store = this.#store!;
    try {
      if (result.outcome === "committed") {
        const { text, structured } = result.envelope;
        const receipt = {
          resultDigest: await digest({ text: [...text], structured }),
          at: this.#now(),
        };
        await store.recordOutcome(approvalId, { outcome: "committed", receipt });
        await this.#point("recorded", approvalId);
        return { id, text, structured, effect: "committed", approvalId, receipt };
      }
      await store.recordOutcome(approvalId, { outcome: result.outcome, reason: result.code });
      await this.#point("recorded", approvalId);
      return failed(id, result.code, { effect: result.outcome, approvalId });
    } catch {
      // The claim stays recorded (recover() settles it as unknown); the envelope still says
      // what this process saw happen.
      return failed(id, "approval_store_error", { effect: result.outcome, approvalId });
    }
  }
}
