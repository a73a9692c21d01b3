/**
 * Waiting on the host's own code (a scope validator, an approval callback) only as long as the
 * caller wants: such code may ignore its signal, and must not keep a call waiting.
 *
 * @module
 */

/** Rejection of {@link withinDeadline} when the caller aborts or the deadline passes first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Runs `work` and waits for it only until the caller's signal aborts or, when `timeoutMs` is
 * given, the deadline passes; then rejects with {@link ABORTED}. `work` gets a signal that fires
 * at either. A throw or rejection of `work` rejects with that error.
 */
export function withinDeadline<T>(
  work: (stop: AbortSignal) => T | Promise<T>,
  signal: AbortSignal | undefined,
  timeoutMs?: number,
): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      controller.abort();
      reject(ABORTED);
    };
    if (signal?.aborted) return stop();
    const timer = timeoutMs === undefined ? undefined : setTimeout(stop, timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
    Promise.resolve().then(() => work(controller.signal)).then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
    });
  });
}
