/**
 * Waiting for another connection's lock without blocking the event loop: a step that fails
 * because the database is busy is tried again after an asynchronous, growing, jittered pause,
 * until the store's timeout. (A driver-level busy wait would sleep inside the call and stall
 * every other task of the process for as long as the lock is held.)
 *
 * @module
 */

/** The first pause, in milliseconds. */
const FIRST_PAUSE_MS = 1;
/** The longest pause, in milliseconds. */
const LONGEST_PAUSE_MS = 25;

/**
 * Runs `step` until it succeeds, fails for another reason than `busy`, or `timeoutMs` has passed;
 * the last failure is thrown. The first attempt runs at once; only a busy database costs a timer.
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
    return retryLater(step, busy, performance.now() + timeoutMs);
  }
}

async function retryLater<T>(
  step: () => T,
  busy: (error: unknown) => boolean,
  deadline: number,
): Promise<T> {
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const left = deadline - performance.now();
    // Jitter spreads processes that met the same lock, so they do not retry in lockstep.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Math.min(left, pause * (0.5 + Math.random()))))
    );
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    try {
      return step();
    } catch (error) {
      if (!busy(error) || deadline - performance.now() <= 0) throw error;
    }
  }
}
