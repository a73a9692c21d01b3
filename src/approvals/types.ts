/**
 * Records and the store interface for durable, single-use write approvals.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { CodeIn } from "../codes.ts";
import type {
  ApprovalGrant,
  GrantEvent,
  GrantFilter,
  GrantInput,
  GrantRefusalCode,
  RevokeGrantInput,
} from "./grant_types.ts";

export type * from "./grant_types.ts";

/**
 * What a write does: `write` changes data, `destructive` may remove or overwrite it.
 *
 * @category Approvals
 */
export type ApprovalEffect = "write" | "destructive";

/**
 * The life of an approval. `pending → approved | denied | expired | superseded`;
 * `approved → claimed | expired`; `claimed → committed | not_started | unknown`;
 * `unknown → reconciled`. `denied`, `expired`, `superseded`, `committed`, `not_started` and
 * `reconciled` are terminal. `superseded`: a person approved the call with edited arguments, and
 * a new approval bound to those arguments replaced this one (`supersededBy`).
 *
 * @category Approvals
 */
export type ApprovalState =
  | "pending"
  | "approved"
  | "denied"
  | "expired"
  | "superseded"
  | "claimed"
  | "committed"
  | "not_started"
  | "unknown"
  | "reconciled";

/**
 * The binding identity an approval is bound to: which tool of which server, under which
 * write catalog and scope. The gate compares the current registration's identity with the
 * approved one at claim time.
 *
 * @category Approvals
 */
export interface ApprovalBinding {
  /** The host's id for the remote server. */
  readonly serverId: string;
  /** The local tool name the model called. */
  readonly toolName: string;
  /** The tool's name on the remote server. */
  readonly remoteToolName: string;
  /** The complete write-catalog digest (the registration's binding revision). */
  readonly catalogDigest: string;
  /** The host's binding id. */
  readonly bindingId: string;
  /** The host's scope id. */
  readonly scopeId: string;
  /** The host's scope revision; a different revision at claim time means the scope was revoked. */
  readonly scopeRevision: string;
  /** The declared effect of the tool. */
  readonly effect: ApprovalEffect;
}

/**
 * What the gate prepares: one model tool call waiting for a person's decision.
 *
 * @category Approvals
 */
export interface ApprovalRequest extends ApprovalBinding {
  /** `digest(arguments)`; checked against `arguments` when the request is prepared. */
  readonly argumentsDigest: string;
  /** The call's arguments, kept so people can see what they approve. */
  readonly arguments: JsonObject;
  /** Expiry, milliseconds since the Unix epoch; after it the approval can no longer be used. */
  readonly expiresAt: number;
  /** The agent run the call belongs to; with `callId` it makes `prepare` idempotent. */
  readonly runId?: string;
  /** The model's tool call id within the run. */
  readonly callId?: string;
  /**
   * The approval's id, when the caller names it before it is recorded (a UUID, as
   * `crypto.randomUUID()` makes one): the gate tells an inline approver the id its decision is
   * recorded under. Omitted, the store makes one. An id another approval has throws
   * `approval_conflict`.
   */
  readonly id?: string;
  /**
   * The span that prepared the approval, in W3C `traceparent` form
   * (`00-<trace id>-<span id>-<flags>`), kept so the span of a resume, perhaps in another
   * process, links to it (telemetry). Not part of what the approval binds.
   */
  readonly traceLink?: string;
}

/**
 * What a caller expects at claim time: the current binding identity and arguments digest.
 *
 * @category Approvals
 */
export interface ClaimExpectation extends ApprovalBinding {
  /** Digest of the arguments about to be sent. */
  readonly argumentsDigest: string;
}

/**
 * A person's decision on a pending approval. On a `superseded` approval it is the person's
 * approval of the edited call that replaced it; on one approved by a standing grant, `by` is
 * `grant:<id>`.
 *
 * @category Approvals
 */
export interface ApprovalDecision {
  /** `approved` or `denied`. */
  readonly decision: "approved" | "denied";
  /** Who decided. */
  readonly by: string;
  /** Optional note from the person. */
  readonly note?: string;
  /** When, milliseconds since the Unix epoch. */
  readonly at: number;
}

/**
 * Proof that a dispatched write completed with a validated result.
 *
 * @category Approvals
 */
export interface ApprovalReceipt {
  /** Digest of the validated result. */
  readonly resultDigest: string;
  /** When the result was validated, milliseconds since the Unix epoch. */
  readonly at: number;
}

/**
 * A person's reconciliation of an `unknown` outcome.
 *
 * @category Approvals
 */
export interface ApprovalReconciliation {
  /** What the person established actually happened. */
  readonly outcome: "committed" | "not_started";
  /** The independent evidence they relied on. */
  readonly evidence: string;
  /** Who reconciled. */
  readonly by: string;
  /** When, milliseconds since the Unix epoch. */
  readonly at: number;
}

/**
 * Codes a claim can be refused with.
 *
 * @category Approvals
 */
export type ClaimRefusalCode = CodeIn<"ClaimRefusalCode">;

/**
 * A claim refused against an approved record, recorded on it (the record ends `not_started`).
 *
 * @category Approvals
 */
export interface ApprovalRefusal {
  /** Why the claim was refused. */
  readonly code: ClaimRefusalCode;
  /** When, milliseconds since the Unix epoch. */
  readonly at: number;
}

/**
 * One approval as stored. Plain data; a new object is returned on every read.
 *
 * @category Approvals
 */
export interface ApprovalRecord extends ApprovalRequest {
  /** Store-assigned id. */
  readonly id: string;
  /** Current state. */
  readonly state: ApprovalState;
  /** When it was prepared, milliseconds since the Unix epoch. */
  readonly createdAt: number;
  /** The person's decision, once made. */
  readonly decision?: ApprovalDecision;
  /** When it was claimed, once claimed. */
  readonly claimedAt?: number;
  /** Set when a claim was refused because the binding, scope or arguments no longer matched. */
  readonly refusal?: ApprovalRefusal;
  /** Set when the outcome is `committed`. */
  readonly receipt?: ApprovalReceipt;
  /** Why the outcome is `not_started` or `unknown` (sluice's own code or text). */
  readonly outcomeReason?: string;
  /** When the outcome was recorded. */
  readonly outcomeAt?: number;
  /** Set once a person reconciled an `unknown` outcome. */
  readonly reconciliation?: ApprovalReconciliation;
  /** On an `expired` approval: when it was recorded expired. */
  readonly expiredAt?: number;
  /** On a `superseded` approval: the approval of the edited call that replaced it. */
  readonly supersededBy?: string;
  /** On a `superseded` approval: when the edit replaced it. */
  readonly supersededAt?: number;
  /** On an approval made by editing another: the approval it replaced. */
  readonly supersedes?: string;
  /** On an approval approved by a standing grant: the grant's id. */
  readonly grantId?: string;
}

/**
 * One appended line of an approval's history.
 *
 * @category Approvals
 */
export interface ApprovalEvent {
  /** Position in the approval's history, from 1. */
  readonly seq: number;
  /** The approval it belongs to. */
  readonly approvalId: string;
  /** State before; `null` for the creation. */
  readonly from: ApprovalState | null;
  /** State after. */
  readonly to: ApprovalState;
  /** When, milliseconds since the Unix epoch. */
  readonly at: number;
  /** Who acted, when a person did. */
  readonly by?: string;
  /** Short detail written by sluice (a refusal code, an outcome reason, evidence). */
  readonly detail?: string;
}

/**
 * The outcome of a claim: the claimed record, or a refusal with its code.
 *
 * @category Approvals
 */
export type ClaimResult =
  | { readonly ok: true; readonly approval: ApprovalRecord }
  | {
    readonly ok: false;
    readonly code: ClaimRefusalCode;
    /** The record after the refusal was recorded; absent for `approval_not_found`. */
    readonly approval?: ApprovalRecord;
  };

/**
 * What {@link ApprovalStore.prepareClaimed} did: recorded the new approval approved and claimed,
 * or found that the request's run and call already have an approval of the same content and
 * wrote nothing.
 *
 * @category Approvals
 */
export type PreparedClaim =
  | { readonly ok: true; readonly approval: ApprovalRecord }
  | { readonly ok: false; readonly existing: ApprovalRecord };

/**
 * The outcome recorded after a claim.
 *
 * @category Approvals
 */
export type ApprovalOutcome =
  | { readonly outcome: "committed"; readonly receipt: ApprovalReceipt }
  | { readonly outcome: "not_started"; readonly reason: string }
  | { readonly outcome: "unknown"; readonly reason: string };

/**
 * A person's decision input.
 *
 * @category Approvals
 */
export interface DecisionInput {
  /** Who decides; non-empty. */
  readonly by: string;
  /** Optional note. */
  readonly note?: string;
}

/**
 * A person's approval with edited arguments (see {@link ApprovalStore.approveWithEdits}).
 *
 * @category Approvals
 */
export interface EditDecisionInput extends DecisionInput {
  /** The arguments the person approves instead; a JSON object. */
  readonly arguments: JsonObject;
}

/**
 * The result of an approval with edits: the original, now `superseded`, and the new approval of
 * the edited call, already `approved` by the same person.
 *
 * @category Approvals
 */
export interface EditedApproval {
  /** The original approval, `superseded`, with `supersededBy`. */
  readonly original: ApprovalRecord;
  /** The new approval, `approved`, with `supersedes`. */
  readonly approval: ApprovalRecord;
}

/**
 * The outcome of {@link ApprovalStore.approveByGrant}: the approved record, or why not.
 *
 * @category Approvals
 */
export type GrantApprovalResult =
  | { readonly ok: true; readonly approval: ApprovalRecord; readonly grant: ApprovalGrant }
  | { readonly ok: false; readonly code: GrantRefusalCode | CodeIn<"GrantApprovalResult"> };

/**
 * A person's reconciliation input.
 *
 * @category Approvals
 */
export interface ReconcileInput {
  /** What actually happened. */
  readonly outcome: "committed" | "not_started";
  /** Independent evidence; non-empty. */
  readonly evidence: string;
  /** Who reconciled; non-empty. */
  readonly by: string;
}

/**
 * Filter for {@link ApprovalStore.list}.
 *
 * @category Approvals
 */
export interface ListFilter {
  /** Only approvals in this state. */
  readonly state?: ApprovalState;
}

/**
 * Options shared by store constructors.
 *
 * @category Approvals
 */
export interface ApprovalStoreOptions {
  /** Clock in milliseconds since the Unix epoch; `Date.now` by default. Injectable for tests. */
  readonly now?: () => number;
}

/**
 * When a store call's commit waits for the disk.
 *
 * @category Approvals
 */
export interface CommitOptions {
  /**
   * `"now"` (the default): the call returns once its commit is durable on disk (synced).
   *
   * `"with_next"`: the commit may ride on the next synced commit of the same database. Its record
   * survives a crash of this process as soon as the call returns, and a crash of the machine (or
   * of the PostgreSQL server) once a later synced commit to the same database (any call made
   * without this option, by any process) has returned: the database's log is sequential, so
   * that commit makes every earlier one durable too. Before then a machine crash may lose it.
   * The gate asks it only for the `approve` of an inline decision on an approval that was
   * already pending, whose claim commits next, synced, before anything is dispatched
   * (invariant 3); a new inline-decided call is recorded with its claim in one commit
   * (`prepareClaimed`).
   *
   * The embedded libSQL file runs that transaction with `PRAGMA synchronous = NORMAL` (WAL mode:
   * no fsync of its own); PostgreSQL on a connection whose session has `synchronous_commit = off`.
   * D1, a libSQL server and the memory store accept it and ignore it: their commits are as
   * durable as always (the memory store's never are).
   */
  readonly sync?: "now" | "with_next";
}

/**
 * A store of approvals. Every transition is checked; an illegal one throws an
 * `ApprovalError` with code `approval_invalid_transition`.
 *
 * @category Approvals
 */
export interface ApprovalStore {
  /** Whether records survive a process crash. Only durable stores may gate real writes. */
  readonly durable: boolean;
  /**
   * Records a new pending approval. With `runId` and `callId`, a second prepare of the same
   * call returns the existing approval; the same ids with different content throw
   * `approval_conflict`. `options.sync` says when the commit waits for the disk
   * ({@link CommitOptions}; by default before it returns).
   */
  prepare(request: ApprovalRequest, options?: CommitOptions): Promise<ApprovalRecord>;
  /**
   * Records a new approval already decided by `decision` and claims it, in one commit that is
   * durable when the call returns: inserted `pending`, moved to `approved` and to `claimed`, with
   * the three events `prepare`, `approve` and `claim` would record one by one, all at `now`
   * (default: the store's clock). What the gate does for a call its inline approver allowed: the
   * claim must be durable before anything is dispatched, and one commit costs less than three.
   * When the run and call already have an approval, nothing is written: the same content returns
   * it (`ok: false`), other content throws `approval_conflict`, as `prepare` does. A request
   * already past its `expiresAt` at `now` is recorded `expired` and `approval_expired` thrown.
   */
  prepareClaimed(
    request: ApprovalRequest,
    decision: DecisionInput,
    now?: number,
  ): Promise<PreparedClaim>;
  /** One approval, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** The approval prepared for `callId` of run `runId`, or `undefined`. */
  findCall(runId: string, callId: string): Promise<ApprovalRecord | undefined>;
  /** Approvals, oldest first. */
  list(filter?: ListFilter): Promise<ApprovalRecord[]>;
  /**
   * A person approves a pending approval. `options.sync` says when the commit waits for the disk
   * ({@link CommitOptions}; by default before it returns); a pending approval found past its
   * expiry is recorded `expired` with a synced commit whatever `options` says.
   */
  approve(id: string, input: DecisionInput, options?: CommitOptions): Promise<ApprovalRecord>;
  /** A person denies a pending approval. */
  deny(id: string, input: DecisionInput): Promise<ApprovalRecord>;
  /**
   * A person approves a pending approval with edited arguments, in one atomic step: the original
   * becomes `superseded` and a new approval of the same call bound to the edited arguments'
   * digest is created `approved` by that person, the two linked (`supersededBy`, `supersedes`).
   * Past the original's expiry it is recorded `expired` and `approval_expired` thrown.
   */
  approveWithEdits(id: string, input: EditDecisionInput): Promise<EditedApproval>;
  /** Records a standing grant (its schema already checked by the caller; see `createGrant`). */
  createGrant(input: GrantInput): Promise<ApprovalGrant>;
  /** One grant, or `undefined`. */
  getGrant(id: string): Promise<ApprovalGrant | undefined>;
  /** Grants, oldest first. */
  listGrants(filter?: GrantFilter): Promise<ApprovalGrant[]>;
  /** A person revokes a grant; it approves nothing afterwards. */
  revokeGrant(id: string, input: RevokeGrantInput): Promise<ApprovalGrant>;
  /**
   * Approves a pending approval by a grant, atomically consuming one of its uses: only when the
   * grant is not revoked, expired (at `now`) or exhausted and covers the approval's server, tool,
   * binding, catalog digest and run, and its arguments schema (if any) admits the approval's
   * arguments (`approval_grant_mismatch` otherwise). The approval records `grant:<id>` as decider
   * and `grantId`.
   */
  approveByGrant(approvalId: string, grantId: string, now?: number): Promise<GrantApprovalResult>;
  /** The grant's history, oldest first. */
  grantEvents(id: string): Promise<GrantEvent[]>;
  /**
   * Consumes an approved approval, at most once, after re-checking the binding identity and
   * arguments digest. Refusals are recorded so nothing can claim the approval afterwards.
   * `now` is the instant expiry is judged at; it defaults to the store's clock.
   */
  claim(id: string, expected: ClaimExpectation, now?: number): Promise<ClaimResult>;
  /** Records what happened after a claim: `committed`, `not_started` or `unknown`. */
  recordOutcome(id: string, outcome: ApprovalOutcome): Promise<ApprovalRecord>;
  /** A person reconciles an `unknown` outcome with evidence. */
  reconcile(id: string, input: ReconcileInput): Promise<ApprovalRecord>;
  /** The approval's history, oldest first. */
  events(id: string): Promise<ApprovalEvent[]>;
  /** Releases the store's resources. */
  close(): Promise<void>;
}
