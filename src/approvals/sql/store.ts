/**
 * The approval store written once in SQL, for every database sluice supports (libSQL, PostgreSQL,
 * D1). Each state change is one conditional `UPDATE ... RETURNING` guarded by the state it leaves,
 * so the database decides every race: a row changes only if it is still where the caller saw it,
 * and the affected row is the answer. Only a refused claim writes two statements, as one atomic
 * batch. Triggers of each database's schema enforce the same state machine, so no statement,
 * sluice's or a person's, moves an approval backwards; an approval's history is read from its
 * write-once columns (`history.ts`), which those triggers keep from changing.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import { validateGrant, validateRevoke } from "../grants.ts";
import { approvalHistory } from "../history.ts";
import {
  assertTransition,
  editedRequest,
  validateDecision,
  validateEdits,
  validateExpectation,
  validateInstant,
  validateOutcome,
  validateReconcile,
  validateRequest,
} from "../machine.ts";
import type {
  ApprovalEvent,
  ApprovalGrant,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  ApprovalStore,
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
} from "../types.ts";
import { applied, ApprovalRows, ATTEMPTS, NO_FACTS } from "./approval_rows.ts";
import { claimApproval } from "./claim.ts";
import { approveByGrantAt } from "./grant_approval.ts";
import type { SqlConnection } from "./connection.ts";
import { storeFailure } from "./failure.ts";
import { GrantRows } from "./grant_rows.ts";
import { requestFields, type SqlValue } from "./rows.ts";

/**
 * Options of the {@link SqlApprovalStore} constructor.
 *
 * @category Approvals
 */
export interface SqlApprovalStoreParts {
  /** The database. */
  readonly connection: SqlConnection;
  /** Whether records survive a crash of this process. */
  readonly durable: boolean;
  /** Clock in milliseconds since the Unix epoch. */
  readonly now: () => number;
}

/**
 * An {@link ApprovalStore} on an SQL database. Construct it through a database's `open()`
 * (`LibsqlApprovalStore.open`, `PostgresApprovalStore.open`, `D1ApprovalStore.open`), which
 * migrates and checks the schema first.
 *
 * @category Approvals
 */
export class SqlApprovalStore implements ApprovalStore {
  /** Whether records survive a crash of this process. */
  readonly durable: boolean;
  readonly #db: SqlConnection;
  readonly #now: () => number;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #rows: ApprovalRows;
  readonly #grants: GrantRows;
  #closed = false;

  /**
   * Wraps an opened, migrated and checked database.
   *
   * @param parts the connection, whether it is durable, and the clock
   */
  protected constructor(parts: SqlApprovalStoreParts) {
    this.#db = parts.connection;
    this.durable = parts.durable;
    this.#now = parts.now;
    this.#rows = new ApprovalRows(parts.connection);
    this.#grants = new GrantRows(parts.connection, parts.now);
  }

  /**
   * Records a new pending approval, or returns the existing one for the same run and call.
   * `options.sync` says when the commit waits for the disk ({@link CommitOptions}).
   */
  async prepare(request: ApprovalRequest, options?: CommitOptions): Promise<ApprovalRecord> {
    const argumentsJson = await validateRequest(request);
    return await this.#run(async () => {
      const fields = this.#newFields(request, argumentsJson, this.#now());
      // One statement inserts, or finds that the run and call already have an approval.
      const returning = !this.#db.dialect.exactChanges;
      const [inserted] = await this.#rows.insertBatch(
        request,
        [this.#rows.insert(fields, returning)],
        options,
      );
      // The row is exactly what was inserted (triggers only refuse), so the record is built
      // from the same values instead of being read back.
      if (applied(inserted, returning)) return this.#rows.remember({ ...NO_FACTS, ...fields });
      return await this.#rows.sameCall(request);
    });
  }

  /**
   * Records a new approval approved by `decision` and claimed, at `now`, in one atomic batch
   * (insert, `pending → approved`, `approved → claimed`, each checked by the schema's triggers);
   * or returns the approval the run and call already have (same content), writing
   * nothing: then the insert changed no row and the two updates, which name the new id, none.
   */
  async prepareClaimed(
    request: ApprovalRequest,
    decision: DecisionInput,
    now?: number,
  ): Promise<PreparedClaim> {
    const argumentsJson = await validateRequest(request);
    validateDecision(decision);
    validateInstant(now);
    return await this.#run(async (): Promise<PreparedClaim> => {
      const at = now ?? this.#now();
      const fields = this.#newFields(request, argumentsJson, at);
      const id = String(fields.id);
      const returning = !this.#db.dialect.exactChanges;
      if (request.expiresAt <= at) {
        // Too late to approve: recorded as prepare would, then expired, as approve would.
        const [inserted] = await this.#rows.insertBatch(request, [
          this.#rows.insert(fields, returning),
          this.#rows.update(id, "pending", "expired", { expired_at: at }, undefined, false),
        ]);
        if (!applied(inserted, returning)) {
          return { ok: false, existing: await this.#rows.sameCall(request) };
        }
        throw new ApprovalError("approval_expired", `approval ${id} expired before the decision`);
      }
      const approvedWith = {
        decided_by: decision.by,
        decided_at: at,
        decision_note: decision.note ?? null,
      };
      const [inserted, approved, claimed] = await this.#rows.insertBatch(request, [
        this.#rows.insert(fields, returning),
        this.#rows.update(id, "pending", "approved", approvedWith, undefined, returning),
        this.#rows.update(id, "approved", "claimed", { claimed_at: at }, undefined, returning),
      ]);
      if (!applied(inserted, returning)) {
        return { ok: false, existing: await this.#rows.sameCall(request) };
      }
      if (!applied(approved, returning) || !applied(claimed, returning)) {
        throw new ApprovalError("approval_invalid_transition", `approval ${id} was not claimed`);
      }
      return {
        ok: true,
        approval: this.#rows.remember({
          ...NO_FACTS,
          ...fields,
          ...approvedWith,
          state: "claimed",
          claimed_at: at,
        }),
      };
    });
  }

  /** A new approval's row: the request's id, or a new one. */
  #newFields(request: ApprovalRequest, argumentsJson: string, at: number) {
    return requestFields(request, argumentsJson, request.id ?? crypto.randomUUID(), at);
  }

  /** One approval, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => this.#rows.read(id));
  }

  /** The approval prepared for `callId` of run `runId`, or `undefined`. */
  findCall(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => this.#rows.findCall(runId, callId));
  }

  /** Approvals, oldest first. */
  list(filter: ListFilter = {}): Promise<ApprovalRecord[]> {
    return this.#run(() => this.#rows.list(filter));
  }

  /**
   * A person approves a pending approval; past its expiry it is recorded `expired` instead (that
   * commit synced whatever `options` says). `options.sync` says when the approval's commit waits
   * for the disk ({@link CommitOptions}).
   */
  approve(id: string, input: DecisionInput, options?: CommitOptions): Promise<ApprovalRecord> {
    return this.#decide(id, input, "approved", options);
  }

  /** A person denies a pending approval. */
  deny(id: string, input: DecisionInput): Promise<ApprovalRecord> {
    return this.#decide(id, input, "denied");
  }

  /**
   * A person approves with edited arguments, in one atomic batch: the original moves
   * `pending → superseded` (guarded by its state and expiry), the new approval is inserted linked
   * to it (the schema refuses the link unless the original is superseded by it, so a lost race
   * rolls the whole batch back) and moves `pending → approved`.
   */
  async approveWithEdits(id: string, input: EditDecisionInput): Promise<EditedApproval> {
    const canonical = validateEdits(input);
    return await this.#run(async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const original = await this.#rows.read(id);
        if (original === undefined) {
          throw new ApprovalError("approval_not_found", `no approval ${id}`);
        }
        assertTransition(id, original.state, "superseded");
        const at = this.#now();
        if (original.expiresAt <= at) {
          if (await this.#rows.move(id, "pending", "expired", { expired_at: at }) !== undefined) {
            throw new ApprovalError(
              "approval_expired",
              `approval ${id} expired before the decision`,
            );
          }
          continue;
        }
        const request = await editedRequest(original, canonical);
        const newId = crypto.randomUUID();
        const fields: Readonly<Record<string, SqlValue>> = {
          ...requestFields(request, canonical, newId, at),
          supersedes: id,
        };
        const decision = {
          decided_by: input.by,
          decided_at: at,
          decision_note: input.note ?? null,
        };
        let results;
        try {
          results = await this.#db.batch([
            this.#rows.update(
              id,
              "pending",
              "superseded",
              {
                ...decision,
                superseded_by: newId,
                superseded_at: at,
              },
              { sql: "expires_at > ?", args: [at] },
              true,
            ),
            this.#rows.insertEdited(fields),
            this.#rows.update(newId, "pending", "approved", decision, undefined, true),
          ]);
        } catch (error) {
          // The schema refused the link: the original moved meanwhile. Look again.
          const now = await this.#rows.read(id);
          if (now !== undefined && now.state !== "pending") continue;
          throw error;
        }
        const [superseded, , approved] = results;
        if (!applied(superseded, true) || !applied(approved, true)) continue;
        this.#rows.forget(id);
        return {
          original: this.#rows.remember(this.#rows.fields(superseded.rows[0])),
          approval: this.#rows.remember(this.#rows.fields(approved.rows[0])),
        };
      }
      throw new ApprovalError("approval_invalid_transition", `approval ${id} kept changing`);
    });
  }

  /**
   * Records a standing grant, or returns the one its caller-chosen id names (same terms): the
   * insertion does nothing when the id is taken, so of concurrent replays one inserts.
   */
  async createGrant(input: GrantInput): Promise<ApprovalGrant> {
    const schema = validateGrant(input);
    return await this.#run(() => this.#grants.create(input, schema));
  }

  /** One grant, or `undefined`. */
  getGrant(id: string): Promise<ApprovalGrant | undefined> {
    return this.#run(() => this.#grants.read(id));
  }

  /** Grants, oldest first. */
  listGrants(filter: GrantFilter = {}): Promise<ApprovalGrant[]> {
    return this.#run(() => this.#grants.list(filter));
  }

  /** A person revokes a grant. */
  async revokeGrant(id: string, input: RevokeGrantInput): Promise<ApprovalGrant> {
    validateRevoke(id, input?.by);
    return await this.#run(() => this.#grants.revoke(id, input));
  }

  /**
   * Approves a pending approval by a grant: one batch uses the grant (a guarded `UPDATE` of its
   * row) and moves the approval `pending → approved` only if that use was recorded for it. A grant
   * with an arguments schema is read first and its schema checked against the approval's
   * arguments (both written once, so the check cannot go stale before the batch).
   */
  async approveByGrant(
    approvalId: string,
    grantId: string,
    now?: number,
  ): Promise<GrantApprovalResult> {
    validateInstant(now);
    return await this.#run(async (): Promise<GrantApprovalResult> => {
      const at = now ?? this.#now();
      return await approveByGrantAt(this.#db, this.#rows, this.#grants, approvalId, grantId, at);
    });
  }

  /** The grant's history, oldest first. */
  grantEvents(id: string): Promise<GrantEvent[]> {
    return this.#run(() => this.#grants.events(id));
  }

  /**
   * Consumes an approved approval at most once. The claim is one conditional `UPDATE` that
   * checks state, expiry and the whole expectation; when it changes no row, the record is read
   * and the reason recorded with another guarded statement.
   */
  async claim(id: string, expected: ClaimExpectation, now?: number): Promise<ClaimResult> {
    validateExpectation(expected);
    validateInstant(now);
    return await this.#run(async (): Promise<ClaimResult> => {
      const at = now ?? this.#now();
      return await claimApproval(this.#db, this.#rows, id, expected, at);
    });
  }

  /** Records the outcome of a claimed approval. */
  async recordOutcome(id: string, outcome: ApprovalOutcome): Promise<ApprovalRecord> {
    validateOutcome(outcome);
    return await this.#run(() => {
      const at = this.#now();
      return this.#settle(
        id,
        "claimed",
        outcome.outcome,
        outcome.outcome === "committed"
          ? {
            result_digest: outcome.receipt.resultDigest,
            receipt_at: outcome.receipt.at,
            outcome_at: at,
          }
          : { outcome_reason: outcome.reason, outcome_at: at },
      );
    });
  }

  /** A person reconciles an `unknown` outcome with evidence. */
  async reconcile(id: string, input: ReconcileInput): Promise<ApprovalRecord> {
    validateReconcile(input);
    return await this.#run(() =>
      this.#settle(id, "unknown", "reconciled", {
        reconciled_outcome: input.outcome,
        reconciled_evidence: input.evidence,
        reconciled_by: input.by,
        reconciled_at: this.#now(),
      })
    );
  }

  /**
   * A transition with no guard beyond the state it leaves: applied, or refused with the reason.
   * A row still in `from` after the `UPDATE` changed nothing is tried again, never returned as if
   * the transition were done.
   */
  async #settle(
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, SqlValue>>,
  ): Promise<ApprovalRecord> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const moved = await this.#rows.move(id, from, to, changes);
      if (moved !== undefined) return moved;
      // Throws unless the row is still in `from`.
      await this.#rows.refuse(id, to);
      this.#rows.forget(id);
    }
    throw new ApprovalError("approval_invalid_transition", `approval ${id} was not moved to ${to}`);
  }

  /** The approval's history, oldest first, read from its record ([] for an unknown id). */
  events(id: string): Promise<ApprovalEvent[]> {
    return this.#run(async () => {
      const record = await this.#rows.read(id);
      return record === undefined ? [] : approvalHistory(record);
    });
  }

  /** Closes the database after calls in flight finish; later calls throw `approval_store_closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    await this.#db.close();
  }

  async #decide(
    id: string,
    input: DecisionInput,
    to: "approved" | "denied",
    options?: CommitOptions,
  ): Promise<ApprovalRecord> {
    validateDecision(input);
    return await this.#run(async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const at = this.#now();
        const moved = await this.#rows.move(
          id,
          "pending",
          to,
          {
            decided_by: input.by,
            decided_at: at,
            decision_note: input.note ?? null,
          },
          { sql: "expires_at > ?", args: [at] },
          options,
        );
        if (moved !== undefined) return moved;
        const record = await this.#rows.refuse(id, to);
        if (record.expiresAt > at) continue;
        // Legal but not applied: the approval is pending and past its expiry. Record that.
        if (await this.#rows.move(id, "pending", "expired", { expired_at: at }) !== undefined) {
          throw new ApprovalError("approval_expired", `approval ${id} expired before the decision`);
        }
      }
      throw new ApprovalError("approval_invalid_transition", `approval ${id} kept changing`);
    });
  }

  /** Runs one store call: refused once closed, tracked until it settles, failures in sluice's words. */
  #run<T>(step: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new ApprovalError("approval_store_closed", "the store is closed"));
    }
    const run = step().catch((error: unknown) => {
      throw storeFailure(error, this.#db.describe(error), "reading or writing an approval");
    });
    this.#inFlight.add(run);
    const forget = () => this.#inFlight.delete(run);
    run.then(forget, forget);
    return run;
  }
}
