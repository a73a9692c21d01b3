/**
 * Per-client rate limits of `sluice serve`: one token bucket per client, refilled continuously
 * at `requestsPerMinute` up to `burstRequests`. Every MCP request of a client over HTTP takes
 * one token; a client with none left is refused (HTTP 429, `serve_rate_limited`) before the
 * request is read, and told when the next token comes.
 *
 * @module
 */

/**
 * A token bucket per client.
 *
 * @category sluice serve
 */
export class RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * @param requestsPerMinute the refill rate
   * @param burstRequests the bucket's size: how many requests may come at once
   * @param now the clock in milliseconds (tests pass their own)
   */
  constructor(requestsPerMinute: number, burstRequests: number, now = () => performance.now()) {
    this.#perMs = requestsPerMinute / 60_000;
    this.#burst = burstRequests;
    this.#now = now;
  }

  /**
   * Takes one token of `client`'s bucket. Returns 0 when it had one, else the milliseconds
   * until the next token (nothing is taken).
   *
   * @param client the client's name
   */
  take(client: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(client) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    this.#buckets.set(client, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.#perMs);
  }
}
