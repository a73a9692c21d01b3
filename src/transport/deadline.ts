/**
 * One wall-clock deadline per request: a single timer started before resolution and never
 * reset, plus the caller's signal. Whatever is still running when it fires (resolution,
 * connection, headers or any part of the body) is aborted.
 *
 * @module
 */
import { TransportError } from "./errors.ts";

/**
 * A started deadline; {@link Deadline.dispose} it once the response body is finished.
 *
 * @category Transport
 */
export class Deadline {
  /** Aborted when the deadline passes or the caller aborts; given to the underlying fetch. */
  readonly signal: AbortSignal;
  /** Rejects with {@link Deadline.failure} when the deadline passes or the caller aborts. */
  readonly expired: Promise<never>;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort = (): void =>
    this.#fail(new TransportError("transport_aborted", "The caller aborted the request."));
  #reject: (error: TransportError) => void = () => {};
  #failure: TransportError | undefined;

  /**
   * Starts the deadline now.
   *
   * @param timeoutMs milliseconds until the request is aborted
   * @param callerSignal the caller's own signal, which also aborts the request
   */
  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.signal = this.#controller.signal;
    this.expired = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    // Marks the promise handled; every race that uses it still sees the rejection.
    this.expired.catch(() => {});
    this.#timer = setTimeout(
      () =>
        this.#fail(
          new TransportError("transport_timeout", "The request did not complete in time."),
        ),
      timeoutMs,
    );
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted) this.#onCallerAbort();
    else callerSignal?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** Why the request was aborted, once it has been. */
  get failure(): TransportError | undefined {
    return this.#failure;
  }

  /**
   * Waits for `promise`, or rejects as soon as the deadline passes, whichever comes first.
   *
   * @param promise the work to bound
   * @returns the work's result
   */
  race<T>(promise: Promise<T>): Promise<T> {
    // The loser of the race may still reject later; that rejection is expected and ignored.
    promise.catch(() => {});
    return Promise.race([promise, this.expired]);
  }

  /** Stops the timer and detaches from the caller's signal; the request is complete. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }

  #fail(error: TransportError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.dispose();
    // Reject first so every race reports this error, then abort the underlying work.
    this.#reject(error);
    this.#controller.abort(error);
  }
}
