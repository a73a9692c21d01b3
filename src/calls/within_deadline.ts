/**
 * Waiting on the host's own code (a scope validator, an approval callback) only as long as the
 * caller wants: such code may ignore its signal, and must not keep a call waiting. Built on
 * sluice's one deadline primitive (`src/deadline.ts`), which the transport shares.
 *
 * @module
 */
import { type Deadline, type DeadlineQueue, within } from "../deadline.ts";
import { SluiceError } from "../errors.ts";
import type { CodeIn } from "../codes.ts";

/**
 * Why {@link withinDeadline} stopped waiting.
 *
 * @category Discovery and calls
 */
export type DeadlineStop = CodeIn<"DeadlineStop">;

/**
 * The rejection of {@link withinDeadline} when it stops waiting.
 *
 * @category Discovery and calls
 */
export class DeadlineStopped extends SluiceError<DeadlineStop> {
  /**
   * Creates the rejection.
   *
   * @param code `mcp_aborted` (the caller's signal) or `mcp_timeout` (the deadline)
   */
  constructor(code: DeadlineStop) {
    super(code, code === "mcp_aborted" ? "the caller aborted" : "the deadline passed");
    this.name = "DeadlineStopped";
  }
}

/**
 * Runs `work` and waits for it only until the caller's signal aborts or, when `deadlines` is
 * given, one of its deadlines started now passes; then rejects with {@link DeadlineStopped}.
 * `work` gets a signal that fires at either. A throw or rejection of `work` rejects with that
 * error.
 *
 * @param work the host's code
 * @param signal the caller's signal
 * @param deadlines the queue the deadline is started on (its duration is the deadline)
 *
 * @category Discovery and calls
 */
export function withinDeadline<T>(
  work: (stop: AbortSignal) => T | Promise<T>,
  signal: AbortSignal | undefined,
  deadlines?: DeadlineQueue,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(new DeadlineStopped("mcp_aborted"));
  // Runs on every call with a scope validator (twice for a write): a deadline on the tool's one
  // shared timer (see src/deadline.ts); without one, only the caller's signal bounds the wait.
  const deadline = deadlines?.start(signal) ?? callerOnly(signal);
  // The stop rejects with its own reason the moment it fires, before any late outcome of `work`.
  return within(work, deadline).catch((error: unknown) => {
    const stop = deadline.signal;
    if (!stop.aborted || error !== stop.reason) throw error;
    throw new DeadlineStopped(deadline.expired ? "mcp_timeout" : "mcp_aborted");
  });
}

/** The caller's signal alone as a deadline that never passes by itself. */
function callerOnly(signal: AbortSignal | undefined): Deadline {
  return {
    signal: signal ?? new AbortController().signal,
    expired: false,
    remainingMs: () => Infinity,
    stop: () => {},
  };
}
