/**
 * Waiting for another connection's lock without blocking the event loop: a step that fails
 * because the database is busy is tried again after an asynchronous, growing, jittered pause,
 * until the store's timeout. (A driver-level busy wait would sleep inside the call and stall
 * every other task of the process for as long as the lock is held.)
 *
 * @module
 */
import { type Deadline, startDeadline } from "../../deadline.ts";

/** The first pause, in milliseconds. */
const FIRST_PAUSE_MS = 1;
/** The longest pause, in milliseconds. */
const LONGEST_PAUSE_MS = 25;

/**
 * Runs `step` until it succeeds, fails for another reason than `busy`, or `timeoutMs` has passed;
 * the last failure is thrown. The first attempt runs at once; only a busy database costs a
 * timer, and a deadline (sluice's one deadline primitive) bounds the retries.
 *
 * @category Approvals
 */
export function retryWhileBusy<T>(
  step: () => T,
  busy: (error: unknown) => boolean,
  timeoutMs: number,
): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    if (!busy(error)) return Promise.reject(error);
    const deadline = startDeadline(undefined, timeoutMs);
    return retryLater(step, busy, deadline).finally(() => deadline.stop());
  }
}

async function retryLater<T>(
  step: () => T,
  busy: (error: unknown) => boolean,
  deadline: Deadline,
): Promise<T> {
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    // Jitter spreads processes that met the same lock, so they do not retry in lockstep.
    const wait = Math.min(deadline.remainingMs(), pause * (0.5 + Math.random()));
    await new Promise((resolve) => setTimeout(resolve, wait));
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    try {
      return step();
    } catch (error) {
      if (!busy(error) || deadline.remainingMs() <= 0) throw error;
    }
  }
}
