/**
 * Which handshake a server answered: the 2026-07-28 discovery or the 2025 `initialize`.
 *
 * @category Agent developers: connect()
 */
export type Era = "2026-07-28" | "legacy";

/**
 * What an {@link EraCache} keeps per URL. `discover` is the server's opaque discover result.
 *
 * @category Agent developers: connect()
 */
export type EraVerdict =
  | { readonly era: "2026-07-28"; readonly discover: unknown }
  | { readonly era: "legacy" };

/**
 * Remembers which era each server URL speaks, so a later `connect()` skips the probe: a
 * 2026-07-28 server is adopted with zero round trips, a legacy server goes straight to
 * `initialize`. Pass the same object to several connects explicitly; nothing is global.
 * Reuse it only within one owner and authorization context.
 *
 * @example
 * ```ts
 * import { EraCache } from "@sluice/mcp";
 * const eras = new EraCache();
 * // connect(url, { eraCache: eras, ... }) twice: the second connect does not probe.
 * console.log(eras.eraOf("https://mcp.example.com/mcp")); // undefined until a connect
 * ```
 *
 * @category Agent developers: connect()
 */
export class EraCache {
  readonly #verdicts = new Map<string, EraVerdict>();

  /** Creates an empty cache. */
  constructor() {}

  /**
   * The era remembered for `url`, if any.
   *
   * @param url the server endpoint
   */
  eraOf(url: string | URL): Era | undefined {
    return this.get(url)?.era;
  }

  /**
   * The verdict remembered for `url`, if any.
   *
   * @param url the server endpoint
   */
  get(url: string | URL): EraVerdict | undefined {
    return this.#verdicts.get(new URL(url).href);
  }

  /**
   * Records the verdict for `url`.
   *
   * @param url the server endpoint
   * @param verdict what the handshake found
   */
  set(url: string | URL, verdict: EraVerdict): void {
    this.#verdicts.set(new URL(url).href, verdict);
  }

  /**
   * Forgets `url` (the next connect probes again).
   *
   * @param url the server endpoint
   */
  delete(url: string | URL): void {
    this.#verdicts.delete(new URL(url).href);
  }
}
