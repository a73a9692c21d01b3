/**
 * When connect() lists a server again. A change heard (a `list_changed`, a re-opened change
 * stream, a `ttlMs` hint coming due) only asks for a listing: asks that arrive while one is
 * waiting or in flight are coalesced into one more listing, and two listings connect() begins
 * by itself start at least a minimum interval apart. So however a server sends notices, the
 * listings it can cause in any window of T ms are at most `floor(T / interval) + 1`, and the last
 * notice is always followed by a listing that begins after it (which is what finds the tools
 * unchanged and makes them current again).
 *
 * @module
 */

/**
 * The default minimum interval between two listings connect() begins by itself, in ms.
 *
 * @category Agent developers: connect()
 */
export const DEFAULT_RELIST_INTERVAL_MS = 1_000;

/**
 * The smallest minimum interval a host may set (`minRelistIntervalMs`), in ms.
 *
 * @category Agent developers: connect()
 */
export const MIN_RELIST_INTERVAL_MS = 100;

/**
 * The largest minimum interval a host may set (`minRelistIntervalMs`): one hour, in ms.
 *
 * @category Agent developers: connect()
 */
export const MAX_RELIST_INTERVAL_MS = 3_600_000;

/**
 * Schedules the listings of one server: at most one in flight, asks coalesced, listings begun
 * by itself at least `intervalMs` apart; a host's listing ({@link now}) is not delayed. Work
 * that must not overlap a listing (accepting a revision) runs in the same slot
 * ({@link exclusive}), ahead of any listing.
 */
export class Relister<T> {
  readonly #list: () => Promise<T>;
  readonly #intervalMs: number;
  readonly #onSettled: () => void;
  /** The listing or exclusive job running now. */
  #inFlight: Promise<void> | undefined;
  /** Exclusive jobs waiting for the slot, in order. */
  readonly #jobs: (() => Promise<void>)[] = [];
  /** When the latest listing began (`performance.now()`). */
  #lastStart = Number.NEGATIVE_INFINITY;
  /** A change was heard that no listing begun since has covered. */
  #pending = false;
  /** Hosts waiting for a listing that begins after they asked. */
  #waiters: { resolve(value: T | undefined): void; reject(error: unknown): void }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * @param list lists the server once
   * @param intervalMs the minimum interval between two listings begun by {@link request}
   * @param onSettled called after each listing, whatever its outcome
   */
  constructor(list: () => Promise<T>, intervalMs: number, onSettled: () => void = () => {}) {
    this.#list = list;
    this.#intervalMs = intervalMs;
    this.#onSettled = onSettled;
  }

  /** Records a listing made elsewhere (connect()'s discovery) as begun now. */
  began(): void {
    this.#lastStart = performance.now();
  }

  /**
   * A change was heard: list again as soon as no listing is in flight and the interval since
   * the latest one began has passed. Asks meanwhile add nothing.
   */
  request(): void {
    if (this.#closed) return;
    this.#pending = true;
    this.#pump();
  }

  /**
   * The host's listing: begins at once, or as soon as the one in flight ends (that one may
   * predate what the host wants found). Resolves with its result (`undefined` once closed).
   */
  now(): Promise<T | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const promise = new Promise<T | undefined>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
    });
    this.#pump();
    return promise;
  }

  /**
   * Runs `job` when no listing or other job is in flight, before any listing still waiting;
   * no listing begins until it settles. Jobs still run after {@link close}.
   *
   * @param job the work, started synchronously once the slot is free
   */
  exclusive<R>(job: () => Promise<R>): Promise<R> {
    // No Promise.withResolvers: the core runs on Node 20, which lacks it.
    const promise = new Promise<R>((resolve, reject) => {
      this.#jobs.push(() => job().then(resolve, reject));
    });
    this.#pump();
    return promise;
  }

  /** Settles when no listing or job is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
  }

  /** Stops every later listing; hosts still waiting get `undefined`. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(undefined);
  }

  #pump(): void {
    if (this.#inFlight !== undefined) return;
    const job = this.#jobs.shift();
    if (job !== undefined) {
      this.#inFlight = job().finally(() => {
        this.#inFlight = undefined;
        this.#pump();
      });
      return;
    }
    if (this.#closed) return;
    if (this.#waiters.length === 0) {
      if (!this.#pending || this.#timer !== undefined) return;
      const wait = this.#lastStart + this.#intervalMs - performance.now();
      if (wait > 0) {
        // A timer may fire a little early: #pump measures again then.
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#pump();
        }, Math.ceil(wait));
        return;
      }
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = false;
    this.#lastStart = performance.now();
    const waiters = this.#waiters.splice(0);
    this.#inFlight = this.#list().then(
      (value) => waiters.forEach((waiter) => waiter.resolve(value)),
      (error) => waiters.forEach((waiter) => waiter.reject(error)),
    ).finally(() => {
      this.#inFlight = undefined;
      this.#onSettled();
      this.#pump();
    });
  }
}
