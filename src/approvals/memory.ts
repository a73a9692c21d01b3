/**
 * An approval store held in process memory.
 *
 * @module
 */
import { ApprovalError } from "./errors.ts";
import { approvalHistory } from "./history.ts";
import { grantDecider } from "./grants.ts";
import { MemoryGrants } from "./memory_grants.ts";
import {
  assertTransition,
  editedRequest,
  planClaim,
  requireSameCall,
  validateDecision,
  validateEdits,
  validateExpectation,
  validateInstant,
  validateOutcome,
  validateReconcile,
  validateRequest,
} from "./machine.ts";
import type {
  ApprovalEvent,
  ApprovalGrant,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  ApprovalStore,
  ApprovalStoreOptions,
  ClaimExpectation,
  ClaimResult,
  CommitOptions,
  DecisionInput,
  EditDecisionInput,
  EditedApproval,
  GrantApprovalResult,
  GrantEvent,
  GrantFilter,
  GrantInput,
  ListFilter,
  PreparedClaim,
  ReconcileInput,
  RevokeGrantInput,
} from "./types.ts";

/** The key of a run and call in the index of approvals by call. */
const callKey = (runId: string, callId: string) => JSON.stringify([runId, callId]);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * An approval store that lives in process memory. **It is not durable**: every approval, claim
 * and outcome is lost when the process exits, so a crash can lose the record that a write was
 * claimed. It exists for tests. The gate refuses to dispatch writes with it unless the host
 * passes `allowNonDurableStoreForTests: true` (see `assertDurableStore`).
 *
 * @example
 * ```ts
 * import { digest, MemoryApprovalStore } from "@sluice/mcp";
 * const store = new MemoryApprovalStore();
 * const args = { title: "draft" };
 * const approval = await store.prepare({
 *   serverId: "docs", toolName: "update_doc", remoteToolName: "documents.update",
 *   catalogDigest: "sha256:00", bindingId: "docs-update", scopeId: "sandbox",
 *   scopeRevision: "1", effect: "write", arguments: args,
 *   argumentsDigest: await digest(args), expiresAt: Date.now() + 60_000,
 * });
 * await store.approve(approval.id, { by: "alice" });
 * ```
 *
 * @category Approvals
 */
export class MemoryApprovalStore implements ApprovalStore {
  /** Always `false`: nothing survives the process. */
  readonly durable = false;
  readonly #now: () => number;
  readonly #records = new Map<string, ApprovalRecord>();
  readonly #byCall = new Map<string, string>();
  readonly #grants: MemoryGrants;
  #closed = false;

  /**
   * Creates an empty, non-durable store.
   *
   * @param options `now`: injectable clock for tests
   */
  constructor(options: ApprovalStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#grants = new MemoryGrants(this.#now);
  }

  /**
   * Records a new pending approval, or returns the existing one for the same run and call.
   * `options` is accepted and ignored: nothing in this store reaches a disk.
   */
  async prepare(request: ApprovalRequest, _options?: CommitOptions): Promise<ApprovalRecord> {
    this.#open();
    await validateRequest(request);
    this.#open();
    return structuredClone(this.#sameCall(request) ?? this.#create(request, this.#now()));
  }

  /**
   * Records a new approval approved by `decision` and claimed, at `now`; or returns the approval
   * the run and call already have (same content), writing nothing.
   */
  async prepareClaimed(
    request: ApprovalRequest,
    decision: DecisionInput,
    now?: number,
  ): Promise<PreparedClaim> {
    this.#open();
    await validateRequest(request);
    validateDecision(decision);
    validateInstant(now);
    return this.#run((): PreparedClaim => {
      const existing = this.#sameCall(request);
      if (existing !== undefined) return { ok: false, existing: structuredClone(existing) };
      const at = now ?? this.#now();
      const created = this.#create(request, at);
      this.#refuseExpired(created, at);
      const approved = this.#move(created, "approved", {
        decision: this.#decision("approved", decision, at),
      });
      const claimed = this.#move(approved, "claimed", { claimedAt: at });
      return { ok: true, approval: structuredClone(claimed) };
    });
  }

  /**
   * The approval the request's run and call already have, when its content is the same;
   * `approval_conflict` when it is not.
   */
  #sameCall(request: ApprovalRequest): ApprovalRecord | undefined {
    if (request.runId === undefined) return undefined;
    const existingId = this.#byCall.get(callKey(request.runId, request.callId!));
    if (existingId === undefined) return undefined;
    return requireSameCall(this.#records.get(existingId)!, request);
  }

  /** Inserts the request's new pending record, indexed by its run and call. */
  #create(request: ApprovalRequest, at: number): ApprovalRecord {
    if (request.id !== undefined && this.#records.has(request.id)) {
      throw new ApprovalError("approval_conflict", `approval ${request.id} exists already`);
    }
    const record = this.#insert(request, at);
    if (request.runId !== undefined) {
      this.#byCall.set(callKey(request.runId, request.callId!), record.id);
    }
    return record;
  }

  /** Inserts a new pending record and logs its creation. */
  #insert(request: ApprovalRequest, at: number, supersedes?: string): ApprovalRecord {
    const record: ApprovalRecord = {
      id: request.id ?? crypto.randomUUID(),
      state: "pending",
      createdAt: at,
      serverId: request.serverId,
      toolName: request.toolName,
      remoteToolName: request.remoteToolName,
      catalogDigest: request.catalogDigest,
      bindingId: request.bindingId,
      scopeId: request.scopeId,
      scopeRevision: request.scopeRevision,
      effect: request.effect,
      argumentsDigest: request.argumentsDigest,
      arguments: structuredClone(request.arguments),
      expiresAt: request.expiresAt,
      ...(request.runId === undefined ? {} : { runId: request.runId, callId: request.callId }),
      ...(supersedes === undefined ? {} : { supersedes }),
      ...(request.traceLink === undefined ? {} : { traceLink: request.traceLink }),
    };
    this.#records.set(record.id, record);
    return record;
  }

  /** One approval, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => {
      const record = this.#records.get(id);
      return record === undefined ? undefined : structuredClone(record);
    });
  }

  /** The approval prepared for `callId` of run `runId`, or `undefined`. */
  findCall(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => {
      const id = this.#byCall.get(callKey(runId, callId));
      return id === undefined ? undefined : structuredClone(this.#records.get(id));
    });
  }

  /** Approvals, oldest first. */
  list(filter: ListFilter = {}): Promise<ApprovalRecord[]> {
    return this.#run(() =>
      structuredClone(
        [...this.#records.values()].filter((record) =>
          filter.state === undefined || record.state === filter.state
        ),
      )
    );
  }

  /**
   * A person approves a pending approval; past its expiry it is recorded `expired` instead.
   * `options` is accepted and ignored: nothing in this store reaches a disk.
   */
  approve(id: string, input: DecisionInput, _options?: CommitOptions): Promise<ApprovalRecord> {
    return this.#decide(id, input, "approved");
  }

  /** A person denies a pending approval. */
  deny(id: string, input: DecisionInput): Promise<ApprovalRecord> {
    return this.#decide(id, input, "denied");
  }

  /**
   * A person approves with edited arguments: the original becomes `superseded` and a new
   * approval of the edited call is created `approved` by that person.
   */
  async approveWithEdits(id: string, input: EditDecisionInput): Promise<EditedApproval> {
    this.#open();
    const canonical = validateEdits(input);
    const original = this.#existing(id);
    const request = await editedRequest(original, canonical);
    return await this.#run(() => {
      const record = this.#existing(id);
      const at = this.#now();
      assertTransition(id, record.state, "superseded");
      this.#refuseExpired(record, at);
      const decision = this.#decision("approved", input, at);
      const created = this.#insert(request, at, id);
      const approval = this.#move(created, "approved", { decision });
      const superseded = this.#move(record, "superseded", {
        decision,
        supersededBy: approval.id,
        supersededAt: at,
      });
      return { original: structuredClone(superseded), approval: structuredClone(approval) };
    });
  }

  /** Records a standing grant, or returns the one its caller-chosen id names (same terms). */
  createGrant(input: GrantInput): Promise<ApprovalGrant> {
    return this.#run(() => this.#grants.create(input));
  }

  /** One grant, or `undefined`. */
  getGrant(id: string): Promise<ApprovalGrant | undefined> {
    return this.#run(() => this.#grants.get(id));
  }

  /** Grants, oldest first. */
  listGrants(filter: GrantFilter = {}): Promise<ApprovalGrant[]> {
    return this.#run(() => this.#grants.list(filter));
  }

  /** A person revokes a grant. */
  revokeGrant(id: string, input: RevokeGrantInput): Promise<ApprovalGrant> {
    return this.#run(() => this.#grants.revoke(id, input));
  }

  /** Approves a pending approval by a grant, consuming one use. */
  approveByGrant(approvalId: string, grantId: string, now?: number): Promise<GrantApprovalResult> {
    return this.#run((): GrantApprovalResult => {
      validateInstant(now);
      const record = this.#records.get(approvalId);
      if (record === undefined) return { ok: false, code: "approval_not_found" };
      const use = this.#grants.use(grantId, record, now);
      if (!use.ok) return use;
      const by = grantDecider(grantId);
      const approval = this.#move(record, "approved", {
        decision: { decision: "approved", by, at: use.at },
        grantId,
      });
      return { ok: true, approval: structuredClone(approval), grant: use.grant };
    });
  }

  /** The grant's history, oldest first. */
  grantEvents(id: string): Promise<GrantEvent[]> {
    return this.#run(() => this.#grants.events(id));
  }

  /** Consumes an approved approval at most once; refusals are recorded. */
  claim(id: string, expected: ClaimExpectation, now?: number): Promise<ClaimResult> {
    return this.#run(() => this.#claim(id, expected, now));
  }

  #claim(id: string, expected: ClaimExpectation, now?: number): ClaimResult {
    validateExpectation(expected);
    validateInstant(now);
    const record = this.#records.get(id);
    if (record === undefined) return { ok: false, code: "approval_not_found" };
    const at = now ?? this.#now();
    const plan = planClaim(record, expected, at);
    switch (plan.kind) {
      case "claim":
        return {
          ok: true,
          approval: structuredClone(this.#move(record, "claimed", { claimedAt: at })),
        };
      case "expire":
        return {
          ok: false,
          code: "approval_expired",
          approval: structuredClone(this.#move(record, "expired", { expiredAt: at })),
        };
      case "consume": {
        const claimed = this.#move(record, "claimed", {
          claimedAt: at,
          refusal: { code: plan.code, at },
        });
        const consumed = this.#move(
          claimed,
          "not_started",
          {
            outcomeReason: plan.code,
            outcomeAt: at,
          },
        );
        return { ok: false, code: plan.code, approval: structuredClone(consumed) };
      }
      case "refuse":
        return { ok: false, code: plan.code, approval: structuredClone(record) };
    }
  }

  /** Records the outcome of a claimed approval. */
  recordOutcome(id: string, outcome: ApprovalOutcome): Promise<ApprovalRecord> {
    return this.#run(() => this.#recordOutcome(id, outcome));
  }

  #recordOutcome(id: string, outcome: ApprovalOutcome): ApprovalRecord {
    validateOutcome(outcome);
    const record = this.#existing(id);
    const at = this.#now();
    const moved = outcome.outcome === "committed"
      ? this.#move(
        record,
        "committed",
        {
          receipt: { resultDigest: outcome.receipt.resultDigest, at: outcome.receipt.at },
          outcomeAt: at,
        },
      )
      : this.#move(
        record,
        outcome.outcome,
        {
          outcomeReason: outcome.reason,
          outcomeAt: at,
        },
      );
    return structuredClone(moved);
  }

  /** A person reconciles an `unknown` outcome with evidence. */
  reconcile(id: string, input: ReconcileInput): Promise<ApprovalRecord> {
    return this.#run(() => this.#reconcile(id, input));
  }

  #reconcile(id: string, input: ReconcileInput): ApprovalRecord {
    validateReconcile(input);
    const record = this.#existing(id);
    const at = this.#now();
    const moved = this.#move(record, "reconciled", {
      reconciliation: { outcome: input.outcome, evidence: input.evidence, by: input.by, at },
    });
    return structuredClone(moved);
  }

  /** The approval's history, oldest first, read from its record ([] for an unknown id). */
  events(id: string): Promise<ApprovalEvent[]> {
    return this.#run(() => {
      const record = this.#records.get(id);
      return record === undefined ? [] : approvalHistory(record);
    });
  }

  /** Drops everything; later calls throw `approval_store_closed`. */
  close(): Promise<void> {
    this.#closed = true;
    this.#records.clear();
    this.#byCall.clear();
    this.#grants.clear();
    return Promise.resolve();
  }

  #decide(id: string, input: DecisionInput, to: "approved" | "denied"): Promise<ApprovalRecord> {
    return this.#run(() => this.#decideNow(id, input, to));
  }

  #decideNow(id: string, input: DecisionInput, to: "approved" | "denied"): ApprovalRecord {
    validateDecision(input);
    const record = this.#existing(id);
    const at = this.#now();
    assertTransition(id, record.state, to);
    this.#refuseExpired(record, at);
    const decision = this.#decision(to, input, at);
    return structuredClone(this.#move(record, to, { decision }));
  }

  /** A pending record past its expiry is recorded `expired`, and the decision refused. */
  #refuseExpired(record: ApprovalRecord, at: number): void {
    if (record.expiresAt > at) return;
    this.#move(record, "expired", { expiredAt: at });
    throw new ApprovalError(
      "approval_expired",
      `approval ${record.id} expired before the decision`,
    );
  }

  #decision(to: "approved" | "denied", input: DecisionInput, at: number) {
    return {
      decision: to,
      by: input.by,
      at,
      ...(input.note === undefined ? {} : { note: input.note }),
    };
  }

  #move(
    record: ApprovalRecord,
    to: ApprovalState,
    patch: Partial<Mutable<ApprovalRecord>>,
  ): ApprovalRecord {
    assertTransition(record.id, record.state, to);
    const moved = { ...record, ...patch, state: to };
    this.#records.set(record.id, moved);
    return moved;
  }

  #existing(id: string): ApprovalRecord {
    const record = this.#records.get(id);
    if (record === undefined) {
      throw new ApprovalError("approval_not_found", `no approval ${id}`);
    }
    return record;
  }

  /** Runs a synchronous step so that every failure, even a synchronous one, is a rejection. */
  #run<T>(step: () => T): Promise<T> {
    try {
      this.#open();
      return Promise.resolve(step());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #open(): void {
    if (this.#closed) throw new ApprovalError("approval_store_closed", "the store is closed");
  }
}
