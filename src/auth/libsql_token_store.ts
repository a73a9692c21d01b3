/**
 * `LibsqlTokenStore`: the durable token store, in a libSQL database (the approval store's file
 * or its own), every record encrypted at rest with AES-GCM under a key the host supplies.
 *
 * @module
 */
import type { Client } from "@libsql/client";
import { loadOptional } from "../optional_packages.ts";
import { resolveStoreUrl } from "../approvals/libsql/url.ts";
import { AuthError } from "./errors.ts";
import type { TokenRecord, TokenStore } from "./token_store.ts";

/**
 * Options of {@link LibsqlTokenStore.open}.
 *
 * @category OAuth
 */
export interface LibsqlTokenStoreOptions {
  /**
   * The encryption key: an AES-GCM `CryptoKey`, or 32 random bytes (AES-256). Keep it outside
   * the database (a secret manager, an environment variable the host reads).
   */
  readonly key: CryptoKey | Uint8Array;
  /** Auth token of a remote libSQL server. */
  readonly authToken?: string;
}

const TABLE = `CREATE TABLE IF NOT EXISTS sluice_oauth_tokens (
  key TEXT PRIMARY KEY,
  iv BLOB NOT NULL,
  sealed BLOB NOT NULL,
  updated_at INTEGER NOT NULL
)`;

const failed = (what: string): AuthError =>
  new AuthError("auth_store_failed", `The token store failed ${what}.`);

/**
 * Tokens and client registrations in libSQL, each record sealed with AES-GCM (a fresh 96-bit IV
 * per write; the record's key is the additional data, so a row moved under another key does not
 * open). The table `sluice_oauth_tokens` sits beside the approval store's tables when both use
 * one database. A wrong key fails with `auth_store_failed`; nothing is ever stored in clear.
 *
 * @example
 * ```ts
 * import { LibsqlTokenStore } from "@sluice/mcp/libsql";
 * import { OAuthClient } from "@sluice/mcp";
 * const key = Uint8Array.from(atob(Deno.env.get("SLUICE_TOKEN_KEY")!), (c) => c.charCodeAt(0));
 * const store = await LibsqlTokenStore.open("./sluice.db", { key });
 * const auth = new OAuthClient({ store, clientCredentials: { clientId: "id", clientSecret: "s" } });
 * ```
 *
 * @category OAuth
 */
export class LibsqlTokenStore implements TokenStore {
  readonly #client: Client;
  readonly #key: CryptoKey;

  private constructor(client: Client, key: CryptoKey) {
    this.#client = client;
    this.#key = key;
  }

  /**
   * Opens (and creates the table of) a token store.
   *
   * @param url a path, `file:` URL, `:memory:`, or a `libsql:` / `https:` server URL
   * @param options the encryption key and an optional server auth token
   * @throws {AuthError} `auth_config_invalid` for a bad key, `auth_store_failed` when the
   *   database cannot be opened
   */
  static async open(url: string, options: LibsqlTokenStoreOptions): Promise<LibsqlTokenStore> {
    const key = await importKey(options?.key);
    const location = resolveStoreUrl(url);
    // An optional npm package: a missing one is `dependency_missing`, not `auth_store_failed`.
    const { createClient } = await loadOptional("@libsql/client", () => import("@libsql/client"));
    let client: Client;
    try {
      client = createClient({
        url: location.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
        intMode: "number",
      });
      await client.execute(TABLE);
    } catch {
      throw failed("opening it");
    }
    return new LibsqlTokenStore(client, key);
  }

  /** The record under `key` (decrypted), or `undefined`. */
  async get(key: string): Promise<TokenRecord | undefined> {
    let row: Record<string, unknown> | undefined;
    try {
      const result = await this.#client.execute({
        sql: "SELECT iv, sealed FROM sluice_oauth_tokens WHERE key = ?",
        args: [key],
      });
      row = result.rows[0] as Record<string, unknown> | undefined;
    } catch {
      throw failed("reading");
    }
    if (row === undefined) return undefined;
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes(row.iv), additionalData: new TextEncoder().encode(key) },
        this.#key,
        bytes(row.sealed),
      );
    } catch {
      throw failed("decrypting a record (wrong key, or a record moved or altered)");
    }
    return JSON.parse(new TextDecoder().decode(plain)) as TokenRecord;
  }

  /** Seals and stores (replaces) the record under `key`. */
  async set(key: string, record: TokenRecord): Promise<void> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(key) },
        this.#key,
        new TextEncoder().encode(JSON.stringify(record)),
      ),
    );
    try {
      await this.#client.execute({
        sql: "INSERT INTO sluice_oauth_tokens (key, iv, sealed, updated_at) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (key) DO UPDATE SET iv = excluded.iv, sealed = excluded.sealed, " +
          "updated_at = excluded.updated_at",
        args: [key, iv, sealed, Date.now()],
      });
    } catch {
      throw failed("writing");
    }
  }

  /** Removes the record under `key`. */
  async delete(key: string): Promise<void> {
    try {
      await this.#client.execute({
        sql: "DELETE FROM sluice_oauth_tokens WHERE key = ?",
        args: [key],
      });
    } catch {
      throw failed("deleting");
    }
  }

  /** Closes the database connection. */
  close(): void {
    this.#client.close();
  }
}

function bytes(value: unknown): Uint8Array<ArrayBuffer> {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(
      value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer,
    );
  }
  throw failed("reading a record that is not binary");
}

async function importKey(key: CryptoKey | Uint8Array | undefined): Promise<CryptoKey> {
  if (key instanceof CryptoKey) {
    if (key.algorithm.name !== "AES-GCM") {
      throw new AuthError("auth_config_invalid", "The token store key must be an AES-GCM key.");
    }
    return key;
  }
  if (!(key instanceof Uint8Array) || key.byteLength !== 32) {
    throw new AuthError(
      "auth_config_invalid",
      "The token store key must be 32 bytes or a CryptoKey.",
    );
  }
  return await crypto.subtle.importKey("raw", new Uint8Array(key), "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
}
