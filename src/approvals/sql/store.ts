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
import {
  grantDecider,
  GrantSchemas,
  requireSameGrant,
  validateGrant,
  validateRevoke,
} from "../grants.ts";
import { approvalHistory } from "../history.ts";
import {
  assertTransition,
  editedRequest,
  planClaim,
  requireSameCall,
  TERMINAL_STATES,
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
import { INSERT_COLUMNS, WRITE_ONCE_COLUMNS } from "./columns.ts";
import { GRANT_COLUMNS, GRANT_EVENT_COLUMNS } from "./grant_columns.ts";
import type { SqlConnection, SqlResult, SqlStatement } from "./connection.ts";
import { storeFailure } from "./failure.ts";
import {
  type Fields,
  grantFields,
  requestFields,
  type SqlValue,
  toGrant,
  toGrantEvent,
  toRecord,
} from "./rows.ts";

/** How often a transition is tried again when the row moved between a miss and its reason. */
const ATTEMPTS = 4;

/** How many rows a store remembers for its next transition (see `#move`). */
const SEEN_LIMIT = 1024;

/** The insertion of a new approval; a second one for the same run and call inserts nothing. */
const INSERT_SQL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (run_id, call_id) WHERE run_id IS NOT NULL DO NOTHING`;

/** The insertion of an edited call's approval (the schema refuses it unless its original is superseded by it). */
const INSERT_EDITED_SQL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})`;

const GRANT_SELECT = `SELECT ${GRANT_COLUMNS.join(", ")} FROM approval_grants`;

/**
 * One use of a grant for one approval: only while the grant is unrevoked, unexpired and not
 * exhausted, and covers the approval, which is still pending and unexpired. The database decides
 * the race: of concurrent uses, only those that still find a use left change the row.
 */
const USE_GRANT_SQL = `UPDATE approval_grants
  SET uses = uses + 1, last_approval_id = ?, last_used_at = ?
  WHERE id = ? AND revoked_at IS NULL AND uses < max_uses
    AND (expires_at IS NULL OR expires_at > ?)
    AND EXISTS (SELECT 1 FROM approvals AS a WHERE a.id = ? AND a.state = 'pending'
      AND a.expires_at > ? AND a.server_id = approval_grants.server_id
      AND a.tool_name = approval_grants.tool_name AND a.binding_id = approval_grants.binding_id
      AND a.catalog_digest = approval_grants.catalog_digest
      AND (approval_grants.run_id IS NULL OR a.run_id = approval_grants.run_id))
  RETURNING ${GRANT_COLUMNS.join(", ")}`;

/** Every recorded-fact column, empty: what a freshly inserted row holds beside its identity. */
const NO_FACTS: Readonly<Record<string, null>> = Object.fromEntries(
  WRITE_ONCE_COLUMNS.map((column) => [column, null]),
);

/**
 * Whether a statement changed exactly one row: counted by its returned rows when it has
 * `RETURNING` (exact on every database), else by the driver's count.
 */
const applied = (result: SqlResult, returning: boolean) =>
  returning ? result.rows.length === 1 : result.changes === 1;

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

/** The parts of a guarded `UPDATE` beyond the id and the state it leaves. */
interface Guard {
  readonly sql: string;
  readonly args: readonly SqlValue[];
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
  readonly #record: string;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The text of each kind of guarded `UPDATE`, by its columns, guard and `RETURNING`. */
  readonly #updates = new Map<string, string>();
  /** Rows this store last wrote, by id; see {@link #move}. */
  readonly #seen = new Map<string, Fields>();
  readonly #grantSchemas = new GrantSchemas();
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
    this.#record = parts.connection.dialect.record;
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
      const [inserted] = await this.#insertBatch(
        request,
        [this.#insert(fields, returning)],
        options,
      );
      // The row is exactly what was inserted (triggers only refuse), so the record is built
      // from the same values instead of being read back.
      if (applied(inserted, returning)) return this.#remember({ ...NO_FACTS, ...fields });
      return await this.#sameCall(request);
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
        const [inserted] = await this.#insertBatch(request, [
          this.#insert(fields, returning),
          this.#update(id, "pending", "expired", { expired_at: at }, undefined, false),
        ]);
        if (!applied(inserted, returning)) {
          return { ok: false, existing: await this.#sameCall(request) };
        }
        throw new ApprovalError("approval_expired", `approval ${id} expired before the decision`);
      }
      const approvedWith = {
        decided_by: decision.by,
        decided_at: at,
        decision_note: decision.note ?? null,
      };
      const [inserted, approved, claimed] = await this.#insertBatch(request, [
        this.#insert(fields, returning),
        this.#update(id, "pending", "approved", approvedWith, undefined, returning),
        this.#update(id, "approved", "claimed", { claimed_at: at }, undefined, returning),
      ]);
      if (!applied(inserted, returning)) {
        return { ok: false, existing: await this.#sameCall(request) };
      }
      if (!applied(approved, returning) || !applied(claimed, returning)) {
        throw new ApprovalError("approval_invalid_transition", `approval ${id} was not claimed`);
      }
      return {
        ok: true,
        approval: this.#remember({
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

  /** The insertion of a new approval's row (`RETURNING id` when changes must be counted so). */
  #insert(fields: Readonly<Record<string, SqlValue>>, returning: boolean): SqlStatement {
    return {
      sql: returning ? `${INSERT_SQL} RETURNING id` : INSERT_SQL,
      args: INSERT_COLUMNS.map((column) => fields[column]),
    };
  }

  /**
   * Runs a batch that inserts the request's approval; when it fails and the request named its
   * id, an approval that has that id already is `approval_conflict`.
   */
  async #insertBatch(
    request: ApprovalRequest,
    statements: readonly SqlStatement[],
    options?: CommitOptions,
  ): Promise<SqlResult[]> {
    try {
      return await this.#db.batch(statements, options);
    } catch (error) {
      if (request.id !== undefined && await this.#read(request.id) !== undefined) {
        throw new ApprovalError("approval_conflict", `approval ${request.id} exists already`);
      }
      throw error;
    }
  }

  /**
   * The approval the request's run and call have (its insert changed nothing), when its content
   * is the same; `approval_conflict` when it is not.
   */
  async #sameCall(request: ApprovalRequest): Promise<ApprovalRecord> {
    const existing = await this.#findCall(request.runId ?? null, request.callId ?? null);
    if (existing === undefined) {
      throw new ApprovalError("approval_invalid_transition", "the approval was not inserted");
    }
    return requireSameCall(existing, request);
  }

  /** One approval, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => this.#read(id));
  }

  /** The approval prepared for `callId` of run `runId`, or `undefined`. */
  findCall(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    return this.#run(() => this.#findCall(runId, callId));
  }

  /** Approvals, oldest first. */
  list(filter: ListFilter = {}): Promise<ApprovalRecord[]> {
    return this.#run(async () => {
      const order = this.#db.dialect.insertionOrder;
      const rows = await this.#db.query(
        filter.state === undefined
          ? { sql: `SELECT ${this.#record} FROM approvals ORDER BY ${order}`, args: [] }
          : {
            sql: `SELECT ${this.#record} FROM approvals WHERE state = ? ORDER BY ${order}`,
            args: [filter.state],
          },
      );
      return rows.map((row) => this.#decode(row));
    });
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
        const original = await this.#read(id);
        if (original === undefined) {
          throw new ApprovalError("approval_not_found", `no approval ${id}`);
        }
        assertTransition(id, original.state, "superseded");
        const at = this.#now();
        if (original.expiresAt <= at) {
          if (await this.#move(id, "pending", "expired", { expired_at: at }) !== undefined) {
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
            this.#update(
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
            { sql: INSERT_EDITED_SQL, args: INSERT_COLUMNS.map((column) => fields[column]) },
            this.#update(newId, "pending", "approved", decision, undefined, true),
          ]);
        } catch (error) {
          // The schema refused the link: the original moved meanwhile. Look again.
          const now = await this.#read(id);
          if (now !== undefined && now.state !== "pending") continue;
          throw error;
        }
        const [superseded, , approved] = results;
        if (!applied(superseded, true) || !applied(approved, true)) continue;
        this.#seen.delete(id);
        return {
          original: this.#remember(this.#fields(superseded.rows[0])),
          approval: this.#remember(this.#fields(approved.rows[0])),
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
    return await this.#run(async () => {
      const fields = grantFields(input, schema, input.id ?? crypto.randomUUID(), this.#now());
      const returning = !this.#db.dialect.exactChanges;
      const [inserted] = await this.#db.batch([{
        sql: `INSERT INTO approval_grants (${GRANT_COLUMNS.join(", ")})
          VALUES (${GRANT_COLUMNS.map(() => "?").join(", ")})
          ON CONFLICT (id) DO NOTHING${returning ? " RETURNING id" : ""}`,
        args: GRANT_COLUMNS.map((column) => fields[column]),
      }]);
      if (applied(inserted, returning)) return toGrant(fields);
      const stored = await this.#readGrant(String(fields.id));
      if (stored === undefined) {
        throw new ApprovalError("approval_store_error", "the grant was not inserted");
      }
      return requireSameGrant(stored, input, schema);
    });
  }

  /** One grant, or `undefined`. */
  getGrant(id: string): Promise<ApprovalGrant | undefined> {
    return this.#run(() => this.#readGrant(id));
  }

  /** Grants, oldest first. */
  listGrants(filter: GrantFilter = {}): Promise<ApprovalGrant[]> {
    return this.#run(async () => {
      const where: string[] = [];
      const args: SqlValue[] = [];
      if (filter.serverId !== undefined) where.push("server_id = ?"), args.push(filter.serverId);
      if (filter.toolName !== undefined) where.push("tool_name = ?"), args.push(filter.toolName);
      const rows = await this.#db.query({
        sql: `${GRANT_SELECT}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}
          ORDER BY created_at, id`,
        args,
      });
      return rows.map(toGrant);
    });
  }

  /** A person revokes a grant. */
  async revokeGrant(id: string, input: RevokeGrantInput): Promise<ApprovalGrant> {
    validateRevoke(id, input?.by);
    return await this.#run(async () => {
      const [result] = await this.#db.batch([{
        sql: `UPDATE approval_grants SET revoked_by = ?, revoked_at = ?
          WHERE id = ? AND revoked_at IS NULL RETURNING ${GRANT_COLUMNS.join(", ")}`,
        args: [input.by, this.#now(), id],
      }]);
      if (result.rows.length === 1) return toGrant(result.rows[0]);
      const grant = await this.#readGrant(id);
      if (grant === undefined) {
        throw new ApprovalError("approval_grant_not_found", `no grant ${id}`);
      }
      throw new ApprovalError("approval_grant_revoked", `grant ${id} is already revoked`);
    });
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
      const refused = await this.#grantSchemaRefusal(approvalId, grantId, at);
      if (refused !== undefined) return { ok: false, code: refused };
      const by = grantDecider(grantId);
      // Where writers run side by side, the approval's row is locked first: two grants racing for
      // one approval then never both spend a use on it.
      const lock = this.#db.dialect.rowLock;
      const locking = lock === undefined
        ? []
        : [{ sql: `SELECT id FROM approvals WHERE id = ?${lock}`, args: [approvalId] }];
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const [used, approved] = (await this.#db.batch([
          ...locking,
          { sql: USE_GRANT_SQL, args: [approvalId, at, grantId, at, approvalId, at] },
          this.#update(approvalId, "pending", "approved", {
            decided_by: by,
            decided_at: at,
            decision_note: null,
            grant_id: grantId,
          }, {
            sql: "EXISTS (SELECT 1 FROM approval_grants WHERE id = ? AND last_approval_id = ?)",
            args: [grantId, approvalId],
          }, true),
        ])).slice(locking.length);
        if (applied(used, true) && applied(approved, true)) {
          this.#seen.delete(approvalId);
          return {
            ok: true,
            approval: this.#remember(this.#fields(approved.rows[0])),
            grant: toGrant(used.rows[0]),
          };
        }
        const record = await this.#read(approvalId);
        if (record === undefined) return { ok: false, code: "approval_not_found" };
        const grant = await this.#readGrant(grantId);
        if (grant === undefined) return { ok: false, code: "approval_grant_not_found" };
        const code = this.#grantSchemas.refusal(grant, record, at);
        if (code !== undefined) return { ok: false, code };
      }
      throw new ApprovalError(
        "approval_invalid_transition",
        `approval ${approvalId} kept changing`,
      );
    });
  }

  /**
   * Why the grant may not approve the approval when its arguments schema decides it (the grant
   * or the approval missing, or the schema refusing the arguments); `undefined` otherwise, and for
   * a grant without a schema, whose use the batch alone decides.
   */
  async #grantSchemaRefusal(
    approvalId: string,
    grantId: string,
    at: number,
  ): Promise<Extract<GrantApprovalResult, { ok: false }>["code"] | undefined> {
    const grant = await this.#readGrant(grantId);
    if (grant === undefined) return "approval_grant_not_found";
    if (grant.argumentsSchema === undefined) return undefined;
    const record = await this.#read(approvalId);
    if (record === undefined) return "approval_not_found";
    return this.#grantSchemas.refusal(grant, record, at);
  }

  /** The grant's history, oldest first. */
  grantEvents(id: string): Promise<GrantEvent[]> {
    return this.#run(async () => {
      const rows = await this.#db.query({
        sql: `SELECT ${GRANT_EVENT_COLUMNS.join(", ")} FROM approval_grant_events
          WHERE grant_id = ? ORDER BY seq`,
        args: [id],
      });
      return rows.map(toGrantEvent);
    });
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
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const claimed = await this.#move(id, "approved", "claimed", { claimed_at: at }, {
          sql: `expires_at > ? AND server_id = ? AND tool_name = ? AND remote_tool_name = ?
            AND catalog_digest = ? AND binding_id = ? AND scope_id = ? AND scope_revision = ?
            AND effect = ? AND arguments_digest = ?`,
          args: [
            at,
            expected.serverId,
            expected.toolName,
            expected.remoteToolName,
            expected.catalogDigest,
            expected.bindingId,
            expected.scopeId,
            expected.scopeRevision,
            expected.effect,
            expected.argumentsDigest,
          ],
        });
        if (claimed !== undefined) return { ok: true, approval: claimed };
        const record = await this.#read(id);
        if (record === undefined) return { ok: false, code: "approval_not_found" };
        const plan = planClaim(record, expected, at);
        switch (plan.kind) {
          case "claim":
            // It was claimable a moment after the UPDATE missed it: it moved; look again.
            continue;
          case "refuse":
            return { ok: false, code: plan.code, approval: record };
          case "expire": {
            const expired = await this.#move(id, record.state, "expired", { expired_at: at });
            if (expired !== undefined) {
              return { ok: false, code: "approval_expired", approval: expired };
            }
            continue;
          }
          case "consume": {
            // The refusal is recorded with the claim, so the claim's event names it too; both
            // statements in one batch, so nobody sees the refused claim half done.
            const code = plan.code;
            const [, consumed] = await this.#db.batch([
              this.#update(
                id,
                "approved",
                "claimed",
                {
                  claimed_at: at,
                  refusal_code: code,
                  refused_at: at,
                },
                { sql: "expires_at > ?", args: [at] },
                false,
              ),
              this.#update(
                id,
                "claimed",
                "not_started",
                {
                  outcome_reason: code,
                  outcome_at: at,
                },
                { sql: "refusal_code = ?", args: [code] },
                true,
              ),
            ]);
            if (applied(consumed, true)) {
              return { ok: false, code, approval: this.#remember(this.#fields(consumed.rows[0])) };
            }
            continue;
          }
        }
      }
      throw new ApprovalError("approval_invalid_transition", `approval ${id} kept changing`);
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
      const moved = await this.#move(id, from, to, changes);
      if (moved !== undefined) return moved;
      // Throws unless the row is still in `from`.
      await this.#refuse(id, to);
      this.#seen.delete(id);
    }
    throw new ApprovalError("approval_invalid_transition", `approval ${id} was not moved to ${to}`);
  }

  /** The approval's history, oldest first, read from its record ([] for an unknown id). */
  events(id: string): Promise<ApprovalEvent[]> {
    return this.#run(async () => {
      const record = await this.#read(id);
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
        const moved = await this.#move(
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
        const record = await this.#refuse(id, to);
        if (record.expiresAt > at) continue;
        // Legal but not applied: the approval is pending and past its expiry. Record that.
        if (await this.#move(id, "pending", "expired", { expired_at: at }) !== undefined) {
          throw new ApprovalError("approval_expired", `approval ${id} expired before the decision`);
        }
      }
      throw new ApprovalError("approval_invalid_transition", `approval ${id} kept changing`);
    });
  }

  /** The guarded `UPDATE` of one transition, returning the new row when `returning`. */
  #update(
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, SqlValue>>,
    guard: Guard | undefined,
    returning: boolean,
  ): SqlStatement {
    assertTransition(id, from, to);
    const columns = Object.keys(changes);
    // The few distinct texts are built once: a driver that prepares statements finds them again.
    const key = `${columns.join(",")}|${guard?.sql ?? ""}|${returning}`;
    let sql = this.#updates.get(key);
    if (sql === undefined) {
      sql = `UPDATE approvals SET state = ?${columns.map((column) => `, ${column} = ?`).join("")}
        WHERE id = ? AND state = ?${guard === undefined ? "" : ` AND ${guard.sql}`}` +
        (returning ? ` RETURNING ${this.#record}` : "");
      this.#updates.set(key, sql);
    }
    return { sql, args: [to, ...Object.values(changes), id, from, ...(guard?.args ?? [])] };
  }

  /**
   * One checked transition: the pair is checked in code, then one `UPDATE` guarded by the state
   * it leaves (and `guard`); the schema's trigger appends the event. Returns the new record, or
   * `undefined` when the row was not in `from` (or `guard` did not hold) and nothing changed.
   *
   * The new record is the remembered one plus `changes` when this store last saw the row in
   * `from`; otherwise the `UPDATE` returns the row. That is exact, not a guess: the triggers
   * (checked intact at open) make every applied `UPDATE` move the state forward to a state never
   * held before and forbid changing identity columns or recorded facts, so a row still in `from`
   * (which the `UPDATE` just checked) is unchanged since it was seen in `from`.
   */
  async #move(
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, SqlValue>>,
    guard?: Guard,
    options?: CommitOptions,
  ): Promise<ApprovalRecord | undefined> {
    const seen = this.#seen.get(id);
    const known = seen !== undefined && seen.state === from;
    const returning = !known || !this.#db.dialect.exactChanges;
    const [result] = await this.#db.batch([
      this.#update(id, from, to, changes, guard, returning),
    ], options);
    if (!applied(result, returning)) return undefined;
    return this.#remember(
      known ? { ...seen, ...changes, state: to } : this.#fields(result.rows[0]),
    );
  }

  /**
   * Keeps the fields of a row this store wrote, for the next transition of the same approval
   * (see {@link #move}); forgets terminal rows and, past a bound, the oldest entries.
   */
  #remember(fields: Fields): ApprovalRecord {
    const id = String(fields.id);
    this.#seen.delete(id);
    if (!TERMINAL_STATES.includes(fields.state as ApprovalState)) {
      this.#seen.set(id, fields);
      if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.keys().next().value!);
    }
    return toRecord(fields);
  }

  /**
   * Explains why a guarded move did not apply: `approval_not_found`, or
   * `approval_invalid_transition` from the current state. Returns the record when the move would
   * have been legal (the caller then knows a guard failed).
   */
  async #refuse(id: string, to: ApprovalState): Promise<ApprovalRecord> {
    const record = await this.#read(id);
    if (record === undefined) throw new ApprovalError("approval_not_found", `no approval ${id}`);
    assertTransition(id, record.state, to);
    return record;
  }

  async #read(id: string): Promise<ApprovalRecord | undefined> {
    const [row] = await this.#db.query({
      sql: `SELECT ${this.#record} FROM approvals WHERE id = ?`,
      args: [id],
    });
    return row === undefined ? undefined : this.#decode(row);
  }

  async #readGrant(id: string): Promise<ApprovalGrant | undefined> {
    const [row] = await this.#db.query({ sql: `${GRANT_SELECT} WHERE id = ?`, args: [id] });
    return row === undefined ? undefined : toGrant(row);
  }

  async #findCall(runId: string | null, callId: string | null) {
    const [row] = await this.#db.query({
      sql: `SELECT ${this.#record} FROM approvals WHERE run_id = ? AND call_id = ?`,
      args: [runId, callId],
    });
    return row === undefined ? undefined : this.#decode(row);
  }

  #fields(row: Fields | undefined): Fields {
    if (row === undefined) {
      throw new ApprovalError("approval_invalid_transition", "no row returned");
    }
    return this.#db.dialect.decode(row);
  }

  #decode(row: Fields): ApprovalRecord {
    return toRecord(this.#db.dialect.decode(row));
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
