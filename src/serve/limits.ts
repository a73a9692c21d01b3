/**
 * The limits of `sluice serve` as a public server: how large a request body may be, how many
 * calls one client may have in flight, how many requests it may send per minute, and how long a
 * shutdown waits for calls in flight.
 *
 * @module
 */
import { ServeError } from "./errors.ts";

/**
 * The limits of one served endpoint.
 *
 * @category sluice serve
 */
export interface ServeLimits {
  /** Largest request body, in bytes; a larger one is answered 413 before it is parsed. */
  readonly maxBodyBytes: number;
  /** Most tool calls one client may have in flight; one more answers `serve_client_busy`. */
  readonly maxConcurrentCalls: number;
  /**
   * How long `close()` lets calls in flight finish before it aborts them (each still ends with
   * its recorded outcome: a write already sent is `unknown`).
   */
  readonly shutdownTimeoutMs: number;
  /** A task's suggested `pollInterval`, and how often a waiting task reads the store again. */
  readonly taskPollMs: number;
  /** Longest (and default) lifetime of a task, from its creation; then it is forgotten. */
  readonly taskTtlMs: number;
  /** Most tasks one client may hold at once; one more answers `serve_client_busy`. */
  readonly maxTasksPerClient: number;
  /**
   * Each client's sustained rate of MCP requests over HTTP (a token bucket refilled at this
   * rate); one over it is answered 429 `serve_rate_limited` with `Retry-After`. Absent: no rate
   * limit (only `maxConcurrentCalls`).
   */
  readonly requestsPerMinute?: number;
  /** The bucket's size, how many requests a client may send at once; default `requestsPerMinute`'s sixth. */
  readonly burstRequests?: number;
}

/**
 * The default limits: 1 MiB bodies, 8 calls in flight per client, 30 s to finish on shutdown;
 * tasks polled every second, kept a day, 100 per client; no rate limit.
 *
 * @category sluice serve
 */
export const DEFAULT_SERVE_LIMITS: ServeLimits = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxConcurrentCalls: 8,
  shutdownTimeoutMs: 30_000,
  taskPollMs: 1_000,
  taskTtlMs: 24 * 60 * 60 * 1000,
  maxTasksPerClient: 100,
});

/**
 * The limits with the defaults filled in; throws `serve_config_invalid` for a value that is
 * not a positive integer.
 *
 * @param limits the host's limits
 *
 * @category sluice serve
 */
export function serveLimits(limits: Partial<ServeLimits> = {}): ServeLimits {
  const resolved: Record<string, number | undefined> = { ...DEFAULT_SERVE_LIMITS, ...limits };
  const rate = resolved.requestsPerMinute;
  if (rate === undefined) delete resolved.requestsPerMinute;
  if (resolved.burstRequests === undefined) {
    delete resolved.burstRequests;
    if (typeof rate === "number") resolved.burstRequests = Math.max(1, Math.ceil(rate / 6));
  } else if (rate === undefined) {
    throw new ServeError(
      "serve_config_invalid",
      "sluice serve: limits.burstRequests needs limits.requestsPerMinute",
    );
  }
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value! <= 0) {
      throw new ServeError(
        "serve_config_invalid",
        `sluice serve: limits.${name} must be a positive integer`,
      );
    }
  }
  return Object.freeze(resolved) as unknown as ServeLimits;
}

/**
 * Counts each client's calls in flight against `maxConcurrentCalls`.
 *
 * @category sluice serve
 */
export class CallSlots {
  readonly #max: number;
  readonly #used = new Map<string, number>();

  /**
   * @param max most calls in flight per client
   */
  constructor(max: number) {
    this.#max = max;
  }

  /**
   * Takes a slot for `client`; returns the function that gives it back, or `undefined` when
   * the client already has `max` calls in flight.
   *
   * @param client the client's name
   */
  take(client: string): (() => void) | undefined {
    const used = this.#used.get(client) ?? 0;
    if (used >= this.#max) return undefined;
    this.#used.set(client, used + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.#used.get(client) ?? 1) - 1;
      if (now === 0) this.#used.delete(client);
      else this.#used.set(client, now);
    };
  }
}
