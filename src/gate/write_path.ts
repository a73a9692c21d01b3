/**
 * The write path: a durable, single-use approval per call (prepared, decided inline or by a
 * person, claimed against the current binding), exactly one dispatch, and the outcome
 * recorded before the envelope is returned.
 *
 * @module
 */
import { digest, digestText, type JsonObject } from "../identity/mod.ts";
import { codeOf } from "../codes.ts";
import type { ToolEnvelope } from "../calls/envelope.ts";
import { DeadlineStopped, withinDeadline } from "../calls/within_deadline.ts";
import { admitCall } from "../calls/admit.ts";
import { dispatchCall } from "../calls/dispatch.ts";
import { assertDurableStore } from "../approvals/guard.ts";
import { sameCall, settledRefusal } from "../approvals/machine.ts";
import type {
  ApprovalRecord,
  ApprovalRequest,
  ClaimExpectation,
  CommitOptions,
} from "../approvals/types.ts";
import type { Admitted, WriteTool } from "./admission.ts";
import { APPROVAL_TEXT } from "./approval_text.ts";
import { recordedEffect, storeRefusal, writeFailure } from "./write_envelope.ts";
import { GrantUser } from "./grants.ts";
import { handlerHooks } from "./call_hooks.ts";
import type { CallTrace } from "../telemetry/call_trace.ts";
import type {
  GateEnvelope,
  GateErrorCode,
  InlineApprover,
  PersistencePoint,
  ResumeOptions,
  RunOptions,
  Traced,
  WritePathContext,
} from "./types.ts";

/**
 * Who the gate records as the decider when the inline callback decides.
 *
 * @category Gate
 */
export const INLINE_DECIDER = "inline-callback";

/** The commit of an inline approval of a pending approval: it rides on the claim's. */
const WITH_NEXT: CommitOptions = Object.freeze({ sync: "with_next" });

/** Calls `hook` with a copy of `record` without waiting for it; its failures are dropped. */
function tellPending(
  hook: ((approval: ApprovalRecord) => void | Promise<void>) | undefined,
  record: ApprovalRecord,
): void {
  if (hook === undefined) return;
  try {
    Promise.resolve(hook(structuredClone(record))).catch(() => undefined);
  } catch {
    // A notifier must not change the call.
  }
}

/**
 * The write path of one gate.
 *
 * @category Gate
 */
export class WritePath {
  readonly #context: WritePathContext;
  readonly #grants = new GrantUser();

  /**
   * Creates the write path over the gate's store and approver.
   *
   * @param context the store, approver, TTL, clock and test hook
   */
  constructor(context: WritePathContext) {
    this.#context = context;
  }

  /** Whether the store may hold write approvals. */
  durableOk(): boolean {
    if (this.#context.ephemeral) return true;
    try {
      assertDurableStore(this.#context.store, {
        allowNonDurableStoreForTests: this.#context.allowNonDurable,
      });
      return true;
    } catch {
      return false;
    }
  }

  async #point(point: PersistencePoint, approvalId: string): Promise<void> {
    if (this.#context.hook === undefined) return;
    try {
      await this.#context.hook(point, approvalId);
    } catch {
      // A test hook must not change what the gate records.
    }
  }

  /**
   * Runs one admitted write call: with an inline approver, asks it and records the decision
   * (an approval with its claim in one commit); otherwise prepares the approval for a person,
   * or a standing grant. An approval the run and call already have is settled as it stands.
   */
  async run(item: Admitted, tool: WriteTool, options: Traced<RunOptions>): Promise<GateEnvelope> {
    const id = item.call.id;
    if (tool.decidedBy === "none") return writeFailure(id, "approval_unavailable", "not_started");
    if (!this.durableOk()) return writeFailure(id, "approval_store_not_durable", "not_started");
    // The span preparing the approval, for the span of a resume to link to (telemetry).
    const traceLink = options.trace?.link();
    const request: ApprovalRequest = {
      ...tool.binding,
      argumentsDigest: await digestText(item.canonical),
      arguments: item.args,
      expiresAt: this.#context.now() + this.#context.ttlMs,
      runId: options.runId,
      callId: id,
      ...(traceLink === undefined ? {} : { traceLink }),
    };
    const approve = this.#context.approve;
    if (approve !== undefined) return await this.#inline(item, tool, options, request, approve);
    let record: ApprovalRecord;
    try {
      // prepare is idempotent per run and call id: it returns the existing approval when the
      // content is the same, and refuses with approval_conflict when it is not.
      record = await this.#context.store.prepare(request);
    } catch (error) {
      return await this.#met(item, tool, options, request, error);
    }
    if (record.state !== "pending") return await this.#stands(item, tool, options, request, record);
    await this.#point("prepared", record.id);
    options.trace?.approval("pending", record);
    // A standing grant a person made stands in for that person (deferred decisions only: an
    // inline approver never leaves a call waiting).
    const granted = await this.#grants.approve(this.#context.store, record, this.#context.now());
    if (granted !== undefined) {
      await this.#point("approved", record.id);
      return await this.settle(id, granted, tool, item.args, request.argumentsDigest, options);
    }
    tellPending(this.#context.onPending, record);
    return writeFailure(id, "approval_pending", "not_started", record.id);
  }

  /**
   * An inline decision. A call the run has not made before is decided first, under the id its
   * approval will have, and recorded after: approved, with its claim, in one commit that is
   * durable before anything is dispatched (`prepareClaimed`; invariant 3); denied, or left
   * undecided by the caller's signal, as a pending approval then denied or kept pending. A call
   * met again is settled from its approval; one still pending is decided now.
   */
  async #inline(
    item: Admitted,
    tool: WriteTool,
    options: Traced<RunOptions>,
    request: ApprovalRequest,
    approve: InlineApprover,
  ): Promise<GateEnvelope> {
    const id = item.call.id;
    const { store } = this.#context;
    let existing: ApprovalRecord | undefined;
    try {
      existing = await store.findCall(options.runId, id);
    } catch {
      return writeFailure(id, "approval_store_error", "not_started");
    }
    if (existing !== undefined) {
      return await this.#stands(item, tool, options, request, existing, approve);
    }
    const approvalId = crypto.randomUUID();
    const named = { ...request, id: approvalId };
    const verdict = await this.#ask(approve, item, tool, options, approvalId);
    if (verdict === true) {
      let recorded;
      try {
        recorded = await store.prepareClaimed(named, { by: INLINE_DECIDER }, this.#context.now());
      } catch (error) {
        return await this.#met(item, tool, options, request, error, approvalId);
      }
      // Another process of the same run recorded this call meanwhile: settle its approval.
      if (!recorded.ok) {
        return await this.#stands(item, tool, options, request, recorded.existing, approve);
      }
      await this.#point("claimed", approvalId);
      options.trace?.approval("approved", recorded.approval);
      options.trace?.approval("claimed", recorded.approval);
      return await this.#dispatchClaimed(id, approvalId, tool, item.args, options, options.runId);
    }
    // Not approved: the call and the verdict are recorded on a pending approval (synced: a
    // person may decide an undecided one later, and the same run and call id asks again).
    let pending: ApprovalRecord;
    try {
      pending = await store.prepare(named);
    } catch (error) {
      return await this.#met(item, tool, options, request, error, approvalId);
    }
    if (pending.id !== approvalId || pending.state !== "pending") {
      return await this.#stands(item, tool, options, request, pending, approve);
    }
    await this.#point("prepared", approvalId);
    options.trace?.approval("pending", pending);
    if (verdict instanceof DeadlineStopped) {
      return writeFailure(id, verdict.code, "not_started", approvalId);
    }
    return await this.#deny(id, approvalId, options.trace);
  }

  /**
   * Asks the inline approver about one call: `true` approves; a {@link DeadlineStopped} means
   * the caller stopped waiting before a decision; anything else denies.
   */
  async #ask(
    approve: InlineApprover,
    item: Admitted,
    tool: WriteTool,
    options: RunOptions,
    approvalId: string,
  ): Promise<unknown> {
    const { binding } = tool;
    try {
      return await withinDeadline(() =>
        approve({
          server: binding.serverId,
          tool: binding.toolName,
          remoteName: binding.remoteToolName,
          arguments: structuredClone(item.args),
          effect: binding.effect,
          approvalId,
        }), options.signal);
    } catch (error) {
      return error instanceof DeadlineStopped ? error : undefined;
    }
  }

  /** Records the inline approver's denial of a pending approval. */
  async #deny(id: string, approvalId: string, trace?: CallTrace): Promise<GateEnvelope> {
    let denied: ApprovalRecord;
    try {
      denied = await this.#context.store.deny(approvalId, { by: INLINE_DECIDER });
    } catch (error) {
      return writeFailure(id, storeRefusal(error), "not_started", approvalId);
    }
    trace?.approval("denied", denied);
    return writeFailure(id, "approval_denied", "not_started", approvalId);
  }

  /**
   * A store call that recorded nothing for this call threw: the run and call have an approval
   * of other content (`approval_conflict`, settled from that approval) or the store failed.
   */
  async #met(
    item: Admitted,
    tool: WriteTool,
    options: Traced<RunOptions>,
    request: ApprovalRequest,
    error: unknown,
    approvalId?: string,
  ): Promise<GateEnvelope> {
    const id = item.call.id;
    if (codeOf(error) !== "approval_conflict") {
      // Only an expired approval was recorded (as expired) under the id the approver was told.
      const code = storeRefusal(error);
      return writeFailure(
        id,
        code,
        "not_started",
        code === "approval_expired" ? approvalId : undefined,
      );
    }
    const record = await this.#context.store.findCall(options.runId, id).catch(() => undefined);
    if (record === undefined) return writeFailure(id, "approval_store_error", "not_started");
    return await this.#stands(item, tool, options, request, record);
  }

  /**
   * An approval the run and call already have. One made by editing runs with the edited
   * arguments. One that is no longer pending is claimed against what is current now, so the
   * store refuses and records the reason (arguments changed, binding mismatch...). One still
   * pending is `approval_conflict` when its content differs, `approval_pending` without an
   * inline approver, and decided by the inline approver otherwise.
   */
  async #stands(
    item: Admitted,
    tool: WriteTool,
    options: Traced<RunOptions>,
    request: ApprovalRequest,
    record: ApprovalRecord,
    approve?: InlineApprover,
  ): Promise<GateEnvelope> {
    const id = item.call.id;
    const { argumentsDigest } = request;
    if (record.state === "superseded") return await this.resumeEdited(id, record, tool, options);
    if (record.state !== "pending") {
      return await this.settle(id, record, tool, item.args, argumentsDigest, options);
    }
    const approvalId = record.id;
    if (!sameCall(record, request)) {
      return writeFailure(id, "approval_conflict", "not_started", approvalId);
    }
    if (approve === undefined) {
      options.trace?.approval("pending", record);
      tellPending(this.#context.onPending, record);
      return writeFailure(id, "approval_pending", "not_started", approvalId);
    }
    const verdict = await this.#ask(approve, item, tool, options, approvalId);
    // The caller stopped waiting before a decision: nothing is decided, the approval stays
    // pending (the same run and call id asks again) and expires with its TTL.
    if (verdict instanceof DeadlineStopped) {
      return writeFailure(id, verdict.code, "not_started", approvalId);
    }
    if (verdict !== true) return await this.#deny(id, approvalId, options.trace);
    let approved: ApprovalRecord;
    try {
      // The approval need not wait for the disk: the claim commits next, synced, before
      // anything is dispatched, and makes it durable with it (invariant 3).
      approved = await this.#context.store.approve(approvalId, { by: INLINE_DECIDER }, WITH_NEXT);
    } catch (error) {
      return writeFailure(id, storeRefusal(error), "not_started", approvalId);
    }
    await this.#point("approved", approvalId);
    return await this.settle(id, approved, tool, item.args, argumentsDigest, options);
  }

  /**
   * A superseded approval: settles the approval of the edited call that replaced it, with the
   * edited arguments (claimed against their digest; re-admitted against the schema and scope).
   */
  async resumeEdited(
    id: string,
    original: ApprovalRecord,
    tool: WriteTool,
    options: Traced<ResumeOptions>,
  ): Promise<GateEnvelope> {
    let edit: ApprovalRecord | undefined;
    try {
      edit = original.supersededBy === undefined
        ? undefined
        : await this.#context.store.get(original.supersededBy);
    } catch {
      return writeFailure(id, "approval_store_error", "not_started", original.id);
    }
    if (edit === undefined) {
      return writeFailure(id, "approval_not_found", "not_started", original.id);
    }
    // The person who edited decided the original too: the store records it on the edit.
    options.trace?.approval("superseded", {
      id: original.id,
      createdAt: original.createdAt,
      ...(edit.decision !== undefined ? { decision: edit.decision } : {}),
    });
    return await this.settle(id, edit, tool, edit.arguments, await digest(edit.arguments), options);
  }

  /**
   * An approval that is no longer pending: claim it (if approved) against the current binding
   * and `args`, then dispatch once and record the outcome; otherwise report what is recorded. An
   * approval made by editing another tells the model so, in sluice's fixed words.
   */
  async settle(
    id: string,
    record: ApprovalRecord,
    tool: WriteTool,
    args: JsonObject,
    argumentsDigest: string,
    options: Traced<ResumeOptions>,
  ): Promise<GateEnvelope> {
    const envelope = await this.#settle(id, record, tool, args, argumentsDigest, options);
    if (record.supersedes === undefined) return envelope;
    return { ...envelope, text: [APPROVAL_TEXT.edited, ...envelope.text] };
  }

  async #settle(
    id: string,
    record: ApprovalRecord,
    tool: WriteTool,
    args: JsonObject,
    argumentsDigest: string,
    options: Traced<ResumeOptions>,
  ): Promise<GateEnvelope> {
    const { store } = this.#context;
    const approvalId = record.id;
    const { trace } = options;
    if (record.state !== "approved") {
      if (record.state === "denied" || record.state === "expired") {
        trace?.approval(record.state, record);
      }
      return writeFailure(id, settledRefusal(record.state), recordedEffect(record), approvalId);
    }
    trace?.approval("approved", record);
    const expected: ClaimExpectation = { ...tool.binding, argumentsDigest };
    let claim;
    try {
      claim = await store.claim(approvalId, expected, this.#context.now());
    } catch {
      return writeFailure(id, "approval_store_error", "not_started", approvalId);
    }
    if (!claim.ok) {
      // Every refusal but a claim made before leaves a state whose effect is `not_started`.
      const effect = claim.approval ? recordedEffect(claim.approval) : "not_started";
      if (claim.code === "approval_expired") trace?.approval("expired", record);
      else if (effect === "not_started") trace?.approval("not_started", record, claim.code);
      return writeFailure(id, claim.code, effect, approvalId);
    }
    await this.#point("claimed", approvalId);
    trace?.approval("claimed", claim.approval);
    return await this.#dispatchClaimed(id, approvalId, tool, args, options, record.runId);
  }

  /**
   * A claimed approval: re-admits the arguments, dispatches them once and records the outcome.
   */
  async #dispatchClaimed(
    id: string,
    approvalId: string,
    tool: WriteTool,
    args: JsonObject,
    options: Traced<ResumeOptions>,
    runId: string | undefined,
  ): Promise<GateEnvelope> {
    // Re-check locally at claim time: the catalog may be stale, the scope may now deny.
    let admission;
    try {
      admission = await admitCall(tool.plan, args, options.state, options.signal);
    } catch {
      admission = { ok: false as const, errorCode: "mcp_protocol_error" as const };
    }
    if (!admission.ok) {
      return await this.#record(id, approvalId, options.trace, {
        outcome: "not_started",
        code: admission.errorCode,
      });
    }
    const dispatch = await dispatchCall(tool.plan, admission.args, options.signal, {
      onSent: () => this.#point("sent", approvalId),
      failIfCatalogChanged: true,
      ...handlerHooks(this.#context.handlers, tool.plan, {
        server: tool.binding.serverId,
        ...(runId !== undefined ? { runId } : {}),
        callId: id,
        approvalId,
      }),
      ...(options.trace ? { trace: options.trace } : {}),
    });
    await this.#point("replied", approvalId);
    const { envelope } = dispatch;
    if (envelope.errorCode !== undefined) {
      return await this.#record(id, approvalId, options.trace, {
        outcome: dispatch.sent ? "unknown" : "not_started",
        code: envelope.errorCode,
      });
    }
    return await this.#record(id, approvalId, options.trace, { outcome: "committed", envelope });
  }

  async #record(
    id: string,
    approvalId: string,
    trace: CallTrace | undefined,
    result:
      | { outcome: "committed"; envelope: ToolEnvelope }
      | { outcome: "not_started" | "unknown"; code: GateErrorCode },
  ): Promise<GateEnvelope> {
    const { store } = this.#context;
    try {
      if (result.outcome === "committed") {
        const { text, structured } = result.envelope;
        const receipt = {
          resultDigest: await digest({ text: [...text], structured }),
          at: this.#context.now(),
        };
        await store.recordOutcome(approvalId, { outcome: "committed", receipt });
        await this.#point("recorded", approvalId);
        trace?.approval("committed", { id: approvalId });
        return { id, text, structured, effect: "committed", approvalId, receipt };
      }
      await store.recordOutcome(approvalId, { outcome: result.outcome, reason: result.code });
      await this.#point("recorded", approvalId);
      trace?.approval(result.outcome, { id: approvalId }, result.code);
      return writeFailure(id, result.code, result.outcome, approvalId);
    } catch {
      // The claim stays recorded (recover() settles it as unknown); the envelope still says
      // what this process saw happen.
      return writeFailure(id, "approval_store_error", result.outcome, approvalId);
    }
  }
}
