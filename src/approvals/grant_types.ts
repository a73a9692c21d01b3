/**
 * Standing grants: what a person lets one tool do without asking again (terms, uses, expiry),
 * how a grant is recorded, revoked and listed.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { CodeIn } from "../codes.ts";

/**
 * What a grant covers and for how long: one tool of one server under one catalog binding, for one
 * run or until a time (or both), at most a number of calls, optionally only for arguments
 * matching a JSON Schema.
 *
 * @category Approvals
 */
export interface GrantTerms {
  /** The host's id for the remote server. */
  readonly serverId: string;
  /** The local tool name. */
  readonly toolName: string;
  /** The host's binding id. */
  readonly bindingId: string;
  /** The write-catalog digest the grant is bound to; a changed catalog voids it. */
  readonly catalogDigest: string;
  /** Only calls of this agent run. */
  readonly runId?: string;
  /** Until this instant, milliseconds since the Unix epoch. One of `runId`, `expiresAt` is required. */
  readonly expiresAt?: number;
  /** At most this many calls; a positive integer. */
  readonly maxUses: number;
  /** Only calls whose arguments match this JSON Schema (sluice's schema profile). */
  readonly argumentsSchema?: JsonObject;
  /** The granter's note. */
  readonly note?: string;
}

/**
 * What a person grants. The schema is checked against sluice's schema profile by `createGrant`
 * (from the gate) before any store sees it.
 *
 * @category Approvals
 */
export interface GrantInput extends GrantTerms {
  /** Who grants; non-empty. */
  readonly by: string;
  /**
   * The grant's id, when the caller names it (a UUID), so that a retried or replayed request
   * makes one grant: `createGrant` with an id already stored returns that grant when everything
   * else is the same, and throws `approval_conflict` when anything differs. Omitted, the store
   * makes one.
   */
  readonly id?: string;
}

/**
 * A standing grant as stored.
 *
 * @category Approvals
 */
export interface ApprovalGrant extends GrantTerms {
  /** Its id: the caller's ({@link GrantInput.id}), else one the store made. */
  readonly id: string;
  /** How many calls it approved so far. */
  readonly uses: number;
  /** Who granted. */
  readonly grantedBy: string;
  /** When it was granted. */
  readonly createdAt: number;
  /** Who revoked it, once revoked. */
  readonly revokedBy?: string;
  /** When it was revoked. */
  readonly revokedAt?: number;
}

/**
 * One appended line of a grant's history: created, used for an approval, revoked.
 *
 * @category Approvals
 */
export interface GrantEvent {
  /** Position in the grant's history, from 1. */
  readonly seq: number;
  /** The grant it belongs to. */
  readonly grantId: string;
  /** What happened. */
  readonly kind: "created" | "used" | "revoked";
  /** When, milliseconds since the Unix epoch. */
  readonly at: number;
  /** Who acted (granted or revoked), when a person did. */
  readonly by?: string;
  /** For `used`: the approval the grant approved. */
  readonly approvalId?: string;
}

/**
 * Why a grant approved nothing.
 *
 * @category Approvals
 */
export type GrantRefusalCode = CodeIn<"GrantRefusalCode">;

/**
 * A person's revocation of a grant.
 *
 * @category Approvals
 */
export interface RevokeGrantInput {
  /** Who revokes; non-empty. */
  readonly by: string;
}

/**
 * Filter for {@link ApprovalStore.listGrants}.
 *
 * @category Approvals
 */
export interface GrantFilter {
  /** Only grants for this server. */
  readonly serverId?: string;
  /** Only grants for this local tool name. */
  readonly toolName?: string;
}
