/**
 * The token store contract and its in-memory implementation. Records are plain JSON values
 * under keys the OAuth client chooses (`client <issuer>` for the client registered at an
 * issuer, `tokens <resource>` for one MCP server's tokens).
 *
 * @module
 */

/**
 * What the OAuth client keeps: a client registration or a token set, as plain JSON.
 *
 * @category OAuth
 */
export type TokenRecord = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Where the OAuth client keeps client registrations (per issuer) and tokens (per MCP server).
 * Implementations: {@link MemoryTokenStore}, and `LibsqlTokenStore` from `@sluice/mcp/libsql`
 * (durable, encrypted at rest).
 *
 * @example
 * ```ts
 * import { MemoryTokenStore, type TokenStore } from "@sluice/mcp";
 * const store: TokenStore = new MemoryTokenStore();
 * await store.set("tokens https://mcp.example.com/mcp", { access_token: "…" });
 * ```
 *
 * @category OAuth
 */
export interface TokenStore {
  /** The record under `key`, or `undefined`. */
  get(key: string): Promise<TokenRecord | undefined>;
  /** Stores (replaces) the record under `key`. */
  set(key: string, record: TokenRecord): Promise<void>;
  /** Removes the record under `key`; nothing happens when there is none. */
  delete(key: string): Promise<void>;
}

/**
 * A token store in this process's memory: gone when the process ends. For tests, and for
 * hosts that authorize again on every start.
 *
 * @example
 * ```ts
 * import { MemoryTokenStore } from "@sluice/mcp";
 * const store = new MemoryTokenStore();
 * console.log(await store.get("tokens https://mcp.example.com/mcp")); // undefined
 * ```
 *
 * @category OAuth
 */
export class MemoryTokenStore implements TokenStore {
  readonly #records = new Map<string, TokenRecord>();

  /** The record under `key`, or `undefined`. */
  get(key: string): Promise<TokenRecord | undefined> {
    const record = this.#records.get(key);
    return Promise.resolve(record === undefined ? undefined : { ...record });
  }

  /** Stores (replaces) the record under `key`. */
  set(key: string, record: TokenRecord): Promise<void> {
    this.#records.set(key, Object.freeze({ ...record }));
    return Promise.resolve();
  }

  /** Removes the record under `key`. */
  delete(key: string): Promise<void> {
    this.#records.delete(key);
    return Promise.resolve();
  }

  /**
   * Every record, as `[key, record]` copies: to move what a flow stored here into a durable
   * store once it succeeded (`sluice login` does, so a failed sign-in leaves no file).
   */
  entries(): [string, TokenRecord][] {
    return [...this.#records].map(([key, record]) => [key, { ...record }]);
  }
}
