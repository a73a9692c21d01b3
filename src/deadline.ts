/**
 * sluice's one deadline primitive: a {@link Deadline} is the caller's signal and a time limit as
 * one signal whose reason tells which fired, with the time left and a `stop()`. Deadlines are
 * kept by a {@link DeadlineQueue} on one shared timer (for work started many times a second:
 * the requests of one hardened fetch, the calls of one session, a tool's scope checks), or
 * started alone with {@link startDeadline} (a handshake, a retry loop). {@link within} waits
 * on work only until its deadline fires. The transport (at the edge), the sessions, the call
 * layers, the gate and the SQL stores all build on it, so it sits below them all.
 *
 * @module
 */

/**
 * One running deadline: fires when the caller's signal aborts (with the caller's reason) or
 * when its time passes (a `TimeoutError` `DOMException`); `signal.reason === caller.reason`
 * tells the caller's abort from the deadline, and so does {@link Deadline.expired}.
 *
 * @category Discovery and calls
 */
export interface Deadline {
  /** Fires when the caller's signal aborts or the deadline passes. */
  readonly signal: AbortSignal;
  /** Whether the time passed (not the caller's abort) before the deadline stopped. */
  readonly expired: boolean;
  /** Milliseconds left before the deadline passes; 0 once it has passed or fired. */
  remainingMs(): number;
  /** Stops the deadline; call it once the work is done, however it ended. Idempotent. */
  stop(): void;
}

/**
 * The longest a timer can wait: 2^31 - 1 ms, about 24.8 days (setTimeout fires at once for
 * longer delays). The most a deadline may last, and the timeout given to work whose own timer
 * must never decide: the MCP SDK's timer for each request, under a sluice deadline.
 *
 * @category Discovery and calls
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

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

/** The reason a deadline's signal aborts with when its time passes. */
function timeoutReason(): DOMException {
  return new DOMException("The deadline passed.", "TimeoutError");
}

/**
 * One deadline of a {@link DeadlineQueue}: one object and one `AbortController` per deadline
 * (it is its own listener on the caller's signal), since two start on every call.
 */
class QueuedDeadline implements Deadline {
  readonly signal: AbortSignal;
  /** When it passes, on `performance.now()`'s clock. */
  readonly at: number;
  readonly #controller: AbortController;
  readonly #caller: AbortSignal | undefined;
  /** The lane it runs in, until it stops. */
  #lane: Set<QueuedDeadline> | undefined;
  readonly #stopped: () => void;
  #expired = false;

  constructor(
    controller: AbortController,
    at: number,
    caller: AbortSignal | undefined,
    lane: Set<QueuedDeadline>,
    stopped: () => void,
  ) {
    this.#controller = controller;
    this.signal = controller.signal;
    this.at = at;
    this.#caller = caller;
    this.#lane = lane;
    this.#stopped = stopped;
    lane.add(this);
    caller?.addEventListener("abort", this);
  }

  get expired(): boolean {
    return this.#expired;
  }

  remainingMs(): number {
    return this.signal.aborted ? 0 : Math.max(0, this.at - performance.now());
  }

  stop(): void {
    const lane = this.#lane;
    if (lane === undefined) return;
    this.#lane = undefined;
    lane.delete(this);
    this.#caller?.removeEventListener("abort", this);
    this.#stopped();
  }

  /** The time passed: aborts with the deadline's reason. */
  expire(): void {
    this.#expired = true;
    this.stop();
    this.#controller.abort(timeoutReason());
  }

  /** The caller's signal aborted: aborts with the caller's reason. */
  handleEvent(): void {
    this.stop();
    this.#controller.abort(this.#caller!.reason);
  }
}

/**
 * Deadlines on one shared timer instead of one timer each, for work started many times a
 * second. Deadlines of one duration pass in the order they started, so they are kept in one
 * lane per duration (a queue has one or two) and the timer only ever waits for the oldest
 * deadline of the lane that passes first. Each {@link DeadlineQueue.start} follows the
 * caller's signal with one listener, removed when the deadline stops, instead of
 * `AbortSignal.any`. Measured: about 1.5 µs per deadline started and stopped against 12-16 µs
 * for a timer and `AbortSignal.any` each (docs/benchmarks.md). The timer keeps the process
 * alive only while a deadline runs, as a pending request does: between them it is unref'd (on
 * a runtime whose timers cannot be, Workers, it is cleared instead).
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
  readonly #timeoutMs: number | undefined;
  /** The running deadlines by duration, each lane in the order they started and pass in. */
  readonly #lanes = new Map<number, Set<QueuedDeadline>>();
  #running = 0;
  #timer: Timer | undefined;
  /** When the armed timer fires, on `performance.now()`'s clock. */
  #armedAt = Infinity;

  /**
   * Creates a queue.
   *
   * @param timeoutMs the duration of a deadline started without one
   */
  constructor(timeoutMs?: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Starts a deadline now.
   *
   * @param signal the caller's signal
   * @param timeoutMs the deadline in milliseconds (default: the queue's)
   * @returns the running deadline
   */
  start(
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined = this.#timeoutMs,
  ): Deadline {
    if (timeoutMs === undefined) throw new TypeError("A deadline needs a duration.");
    const controller = new AbortController();
    if (signal?.aborted) {
      controller.abort(signal.reason);
      return { signal: controller.signal, expired: false, remainingMs: () => 0, stop: () => {} };
    }
    let lane = this.#lanes.get(timeoutMs);
    if (lane === undefined) {
      lane = new Set();
      this.#lanes.set(timeoutMs, lane);
    }
    const at = performance.now() + timeoutMs;
    const deadline = new QueuedDeadline(controller, at, signal, lane, this.#stopped);
    this.#running++;
    this.#busy(at);
    return deadline;
  }

  /** A deadline stopped (or passed, or its caller aborted). */
  readonly #stopped = (): void => {
    if (--this.#running === 0) this.#idle();
  };

  /** A deadline passing at `at` runs: the timer holds on, armed early enough for it. */
  #busy(at: number): void {
    if (this.#timer === undefined || at < this.#armedAt) {
      this.#arm(at);
    } else if (this.#running === 1 && isRefTimer(this.#timer)) {
      this.#timer.ref();
    }
  }

  /** No deadline runs: the timer no longer keeps the process alive. */
  #idle(): void {
    // Every lane is empty now: keep the usual one, drop those of other durations.
    if (this.#lanes.size > 1) this.#lanes.clear();
    if (this.#timer === undefined) return;
    if (isRefTimer(this.#timer)) {
      this.#timer.unref();
    } else {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedAt = Infinity;
    }
  }

  /** Arms the one timer for `at`; one armed already is replaced. */
  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(this.#fire, Math.max(0, at - performance.now()));
  }

  /** Ends every deadline that has passed, then waits for the first one left. */
  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    const passed: QueuedDeadline[] = [];
    for (const lane of this.#lanes.values()) {
      for (const deadline of lane) {
        if (deadline.at > now) {
          next = Math.min(next, deadline.at);
          break;
        }
        passed.push(deadline);
      }
    }
    // A late firing (a busy host) can find several lanes passed: they end in the order they passed.
    if (passed.length > 1) passed.sort((a, b) => a.at - b.at);
    for (const deadline of passed) deadline.expire();
    if (next !== Infinity) this.#arm(next);
  };
}

/**
 * Starts one deadline on a timer of its own: for work done once (a handshake, a retry loop),
 * where no queue is shared. Stop it when the work is done.
 *
 * @example
 * ```ts
 * import { startDeadline } from "./deadline.ts";
 * const caller = new AbortController();
 * const deadline = startDeadline(caller.signal, 5_000);
 * caller.abort();
 * console.log(deadline.signal.aborted, deadline.expired); // true false
 * deadline.stop();
 * ```
 *
 * @param signal the caller's signal
 * @param timeoutMs the deadline in milliseconds
 * @returns the running deadline
 *
 * @category Discovery and calls
 */
export function startDeadline(signal: AbortSignal | undefined, timeoutMs: number): Deadline {
  return new DeadlineQueue().start(signal, timeoutMs);
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

/**
 * Runs `work` with the deadline's signal and waits for it only until that signal fires (then
 * rejects with its reason: the caller's, or the deadline's `TimeoutError`); the deadline is
 * stopped once the wait ends either way. A synchronous throw of `work` rejects with it.
 *
 * @example
 * ```ts
 * import { startDeadline, within } from "./deadline.ts";
 * const slow = (signal: AbortSignal) =>
 *   new Promise((resolve) => setTimeout(resolve, 1_000, signal.aborted));
 * await within(slow, startDeadline(undefined, 10)).catch((reason) => console.log(reason.name));
 * ```
 *
 * @param work the work, given the deadline's signal
 * @param deadline the running deadline that bounds the wait
 * @returns the work's result
 *
 * @category Discovery and calls
 */
export function within<T>(
  work: (signal: AbortSignal) => T | Promise<T>,
  deadline: Deadline,
): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = Promise.resolve(work(deadline.signal));
  } catch (error) {
    pending = Promise.reject(error);
  }
  return untilAborted(pending, deadline.signal).then((value) => {
    deadline.stop();
    return value;
  }, (error: unknown) => {
    deadline.stop();
    throw error;
  });
}
