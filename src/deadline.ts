/**
 * sluice's one deadline primitive: the caller's signal and a deadline as one signal whose reason
 * tells which fired (on `AbortSignal.timeout` for a one-off wait, on one shared timer for work
 * repeated many times a second: the requests of one hardened fetch, a tool's scope checks), and
 * waiting on a promise only until a signal aborts. The transport (at the edge) and the call
 * layers both build on it, so it sits below both.
 *
 * @module
 */

/**
 * The signal that fires when `signal` aborts or, when `timeoutMs` is given, the deadline
 * passes; `undefined` when there is neither. Its `reason` is the reason of whichever fired
 * first, so `signal.reason === result.reason` tells the caller's abort from the deadline.
 * Nothing needs disposing: `AbortSignal.timeout`'s timer does not keep the process alive. For
 * a one-off wait (the handshake); work repeated per request uses a {@link DeadlineQueue}.
 *
 * @example
 * ```ts
 * import { deadlineSignal } from "./deadline.ts";
 * const caller = new AbortController();
 * const stop = deadlineSignal(caller.signal, 5_000);
 * caller.abort();
 * console.log(stop.aborted); // true
 * ```
 *
 * @param signal the caller's signal
 * @param timeoutMs the deadline in milliseconds
 * @returns the combined signal
 *
 * @category Discovery and calls
 */
export function deadlineSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal;
export function deadlineSignal(
  signal: AbortSignal | undefined,
  timeoutMs?: number,
): AbortSignal | undefined;
export function deadlineSignal(
  signal: AbortSignal | undefined,
  timeoutMs?: number,
): AbortSignal | undefined {
  if (timeoutMs === undefined) return signal;
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
}

/**
 * A deadline for one request on a hot path ({@link DeadlineQueue.start}): {@link deadlineSignal}'s
 * signal, with a timer that is stopped once the request is done.
 *
 * @category Discovery and calls
 */
export interface StoppableDeadline {
  /** Fires when the caller's signal aborts or the deadline passes. */
  readonly signal: AbortSignal;
  /** Stops the timer; call it once the work is done, however it ended. */
  stop(): void;
}

type Timer = ReturnType<typeof setTimeout>;

/** A timer that can stop keeping the process alive (Deno, Node, Bun); Workers' is a number. */
interface RefTimer {
  ref(): unknown;
  unref(): unknown;
}

function isRefTimer(timer: Timer | undefined): timer is Timer & RefTimer {
  return typeof timer === "object" && timer !== null &&
    typeof (timer as Partial<RefTimer>).unref === "function" &&
    typeof (timer as Partial<RefTimer>).ref === "function";
}

/** One deadline of a {@link DeadlineQueue}, while it runs. */
interface QueuedDeadline {
  /** When it passes, on `performance.now()`'s clock. */
  readonly at: number;
  /** Aborts its signal with the deadline's reason. */
  expire(): void;
}

/**
 * Deadlines that all last the same time, for work started many times a second (each request
 * of one hardened fetch, each scope check of one tool), on one shared timer instead of one
 * timer each: they pass in the order they started, so the timer only ever waits for the oldest
 * one still running. Each
 * {@link DeadlineQueue.start} gives a {@link StoppableDeadline} whose signal fires when the
 * caller's signal aborts (with the caller's reason) or the deadline passes (a `TimeoutError`),
 * as {@link deadlineSignal}'s does; it follows the caller's signal with one listener, removed
 * when the deadline stops, instead of `AbortSignal.any`. Measured: about 1.5 µs per deadline
 * started and stopped against 12-16 µs for a timer and `AbortSignal.any` each
 * (docs/benchmarks.md). The timer keeps the process alive only while a deadline runs, as a
 * pending request does: between requests it is unref'd (on a runtime whose timers cannot be,
 * Workers, it is cleared instead).
 *
 * @example
 * ```ts
 * import { DeadlineQueue } from "./deadline.ts";
 * const deadlines = new DeadlineQueue(5_000);
 * const deadline = deadlines.start(undefined);
 * try {
 *   await fetch("https://example.com/", { signal: deadline.signal });
 * } finally {
 *   deadline.stop();
 * }
 * ```
 *
 * @category Discovery and calls
 */
export class DeadlineQueue {
  readonly #timeoutMs: number;
  /** The running deadlines, in the order they started: the order they pass in. */
  readonly #running = new Set<QueuedDeadline>();
  #timer: Timer | undefined;

  /**
   * Creates a queue whose deadlines each last `timeoutMs`.
   *
   * @param timeoutMs the deadline in milliseconds
   */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Starts a deadline now.
   *
   * @param signal the caller's signal
   * @returns the signal and the function that stops the deadline
   */
  start(signal: AbortSignal | undefined): StoppableDeadline {
    const controller = new AbortController();
    if (signal?.aborted) {
      controller.abort(signal.reason);
      return { signal: controller.signal, stop: () => {} };
    }
    let onAbort: (() => void) | undefined;
    const running = this.#running;
    const stop = (): void => {
      if (!running.delete(deadline)) return;
      if (onAbort !== undefined) signal!.removeEventListener("abort", onAbort);
      if (running.size === 0) this.#idle();
    };
    const deadline: QueuedDeadline = {
      at: performance.now() + this.#timeoutMs,
      expire: () => {
        stop();
        controller.abort(new DOMException("The deadline passed.", "TimeoutError"));
      },
    };
    running.add(deadline);
    if (running.size === 1) this.#busy();
    if (signal !== undefined) {
      onAbort = () => {
        stop();
        controller.abort(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }
    return { signal: controller.signal, stop };
  }

  /** A deadline runs again: the timer (armed for an older one, or not at all) holds on. */
  #busy(): void {
    if (this.#timer === undefined) this.#arm(this.#timeoutMs);
    else if (isRefTimer(this.#timer)) this.#timer.ref();
  }

  /** No deadline runs: the timer no longer keeps the process alive. */
  #idle(): void {
    if (this.#timer === undefined) return;
    if (isRefTimer(this.#timer)) {
      this.#timer.unref();
    } else {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Arms the one timer; one armed already (re-armed from an abort listener) is replaced. */
  #arm(delayMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#fire, delayMs);
  }

  /** Ends every deadline that has passed, then waits for the oldest one left. */
  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const deadline of this.#running) {
      if (deadline.at > now) {
        this.#arm(deadline.at - now);
        return;
      }
      deadline.expire();
    }
  };
}

/**
 * Waits for `promise`, or rejects with `signal.reason` as soon as `signal` aborts, whichever
 * comes first. The listener is removed when `promise` settles, and a later rejection of the
 * loser is expected and ignored. For work that may not honour its signal (host code, an
 * injected `fetch`).
 *
 * @example
 * ```ts
 * import { untilAborted } from "./deadline.ts";
 * const never = new Promise<never>(() => {});
 * await untilAborted(never, AbortSignal.timeout(10)).catch((reason) => console.log(reason.name));
 * ```
 *
 * @param promise the work to bound
 * @param signal the signal that ends the wait
 * @returns the work's result
 *
 * @category Discovery and calls
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    }, (error: unknown) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
  });
}
