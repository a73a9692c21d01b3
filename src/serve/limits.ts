/**
 * The limits of `sluice serve` as a public server: how large a request body may be, how many
 * calls one client may have in flight, and how long a shutdown waits for calls in flight.
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
}

/**
 * The default limits: 1 MiB bodies, 8 calls in flight per client, 30 s to finish on shutdown.
 *
 * @category sluice serve
 */
export const DEFAULT_SERVE_LIMITS: ServeLimits = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxConcurrentCalls: 8,
  shutdownTimeoutMs: 30_000,
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
  const resolved = { ...DEFAULT_SERVE_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ServeError(
        "serve_config_invalid",
        `sluice serve: limits.${name} must be a positive integer`,
      );
    }
  }
  return Object.freeze(resolved);
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
