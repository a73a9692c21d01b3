/**
 * The per-request deadline sluice used before `DeadlineQueue` (`src/deadline.ts`): a timer of its
 * own and `AbortSignal.any` with the caller's signal, kept here as the "before" of the cost
 * experiments that compare the two. Not part of sluice.
 *
 * @module
 */
import type { StoppableDeadline } from "../../src/deadline.ts";

/** A deadline on a timer of its own, linked to `signal` with `AbortSignal.any`. */
export function timerDeadline(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): StoppableDeadline {
  const timer = new AbortController();
  const handle = setTimeout(
    () => timer.abort(new DOMException("The deadline passed.", "TimeoutError")),
    timeoutMs,
  );
  return {
    signal: signal === undefined ? timer.signal : AbortSignal.any([signal, timer.signal]),
    stop: () => clearTimeout(handle),
  };
}
