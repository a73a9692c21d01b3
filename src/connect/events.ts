/**
 * The approval decision recorded on a call event.
 *
 * @category Agent developers: connect()
 */
export type ConnectApprovalDecision = "not_required" | "approved" | "denied" | "pending";

import type { RevisionSummary } from "./revision.ts";

/**
 * One audit event: one per server discovery, one per call, one per staged revision, one per
 * elicitation. It carries names the owner
 * configured, fixed codes, a duration and the catalog digest, and never arguments, results,
 * tokens or any text a server sent.
 *
 * @category Agent developers: connect()
 */
export interface ConnectEvent {
  /** What happened. */
  readonly kind: "discovery" | "call" | "revision" | "elicitation";
  /** The owner's server id (`""` for a call to a name the toolkit does not have). */
  readonly server: string;
  /** The remote tool name as allowlisted (calls only; absent for an unknown name). */
  readonly tool?: string;
  /** Whether it succeeded. */
  readonly ok: boolean;
  /** The fixed code of the failure. */
  readonly errorCode?: string;
  /** The approval decision (calls that reached the approval step). */
  readonly approval?: ConnectApprovalDecision;
  /** Wall-clock milliseconds, rounded. */
  readonly durationMs: number;
  /** `revisionDigest` of the server's catalog, or `null` when none was built. */
  readonly catalogDigest: string | null;
  /** For `"revision"`: the staged revision's digests and changed field names. */
  readonly revision?: RevisionSummary;
  /**
   * For `"elicitation"`: the mode asked for and the action sent to the server (`errorCode`
   * says why when sluice, not the person, decided it).
   */
  readonly elicitation?: {
    readonly mode: "form" | "url" | "unknown";
    readonly action: "accept" | "decline" | "cancel";
  };
}

/**
 * Delivers an event; a handler that throws or rejects never affects the caller.
 *
 * @category Agent developers: connect()
 */
export function emitEvent(
  handler: ((event: ConnectEvent) => void) | undefined,
  event: ConnectEvent,
): void {
  if (handler === undefined) return;
  try {
    const returned: unknown = handler(Object.freeze({ ...event }));
    if (returned instanceof Promise) returned.catch(() => {});
  } catch {
    // Audit sinks are the owner's; their failures must not break a call.
  }
}

/**
 * Milliseconds since `start` (from `performance.now()`), rounded.
 *
 * @category Agent developers: connect()
 */
export function elapsed(start: number): number {
  return Math.round(performance.now() - start);
}
