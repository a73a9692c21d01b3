/**
 * Who may call `sluice serve`: the configured clients, each with its own bearer token and
 * allowlist, and the check of a request's `Authorization` header against them.
 *
 * @module
 */
import { digestText } from "../identity/mod.ts";
import { checkedAllow, checkedName } from "./client_checks.ts";
import { ServeError } from "./errors.ts";

/**
 * One client that may call the served tools.
 *
 * @category sluice serve
 */
export interface ServeClient {
  /**
   * The client's name, 1 to 64 characters of `[A-Za-z0-9_.-]`: named in every serve event and
   * in the run id of its approvals (`serve:<name>:<run>`).
   */
  readonly name: string;
  /** Its bearer token: at least 32 characters, unique among the clients. */
  readonly token: string;
  /**
   * The served tools (local names, `<server>__<tool>`) this client may see and call; absent:
   * every served tool. A tool outside it is never listed to the client and answers
   * `unknown_tool`.
   */
  readonly allow?: readonly string[];
}

/**
 * The shortest bearer token a client may have.
 *
 * @category sluice serve
 */
export const MIN_TOKEN_LENGTH = 32;

/** A configured client with the digest its token is compared by. */
interface KnownClient {
  readonly client: ServeClient;
  readonly digest: string;
}

/**
 * The configured clients, checked once; `identify` finds the client a request's bearer token
 * belongs to.
 *
 * @category sluice serve
 */
export class ServeClients {
  readonly #known: readonly KnownClient[];

  private constructor(known: readonly KnownClient[]) {
    this.#known = known;
  }

  /**
   * Checks the clients and keeps their tokens' digests; throws `serve_config_invalid` for no
   * clients, a bad or repeated name, a short or repeated token, or a malformed allowlist.
   *
   * @param clients the configured clients
   */
  static async of(clients: readonly ServeClient[]): Promise<ServeClients> {
    if (!Array.isArray(clients) || clients.length === 0) {
      throw invalid("give at least one client (name and token): nobody could call otherwise");
    }
    const names = new Set<string>();
    const tokens = new Set<string>();
    const known: KnownClient[] = [];
    for (const [index, client] of clients.entries()) {
      const where = `clients[${index}]`;
      checkedName(client?.name, where);
      if (names.has(client.name)) throw invalid(`${where}.name "${client.name}" is repeated`);
      names.add(client.name);
      if (typeof client.token !== "string" || client.token.length < MIN_TOKEN_LENGTH) {
        throw invalid(`${where}.token must be at least ${MIN_TOKEN_LENGTH} characters`);
      }
      if (/\s/.test(client.token)) throw invalid(`${where}.token must not contain whitespace`);
      if (tokens.has(client.token)) throw invalid(`${where}.token is another client's token`);
      tokens.add(client.token);
      const allow = checkedAllow(client.allow, where);
      const frozen: ServeClient = Object.freeze({
        name: client.name,
        token: client.token,
        ...(allow === undefined ? {} : { allow }),
      });
      known.push({ client: frozen, digest: await tokenDigest(client.token) });
    }
    return new ServeClients(known);
  }

  /** The clients, in configuration order. */
  get list(): readonly ServeClient[] {
    return this.#known.map((known) => known.client);
  }

  /**
   * The client whose token the request carries (`Authorization: Bearer <token>`), or
   * `undefined`. Every configured token is compared, in constant time over digests, so the
   * time taken says nothing about which client or how much of a token matched.
   *
   * @param authorization the request's `Authorization` header
   */
  async identify(authorization: string | null): Promise<ServeClient | undefined> {
    const match = authorization === null ? null : /^Bearer ([^\s]+)$/i.exec(authorization);
    if (match === null) return undefined;
    const presented = await tokenDigest(match[1]);
    let found: ServeClient | undefined;
    for (const known of this.#known) {
      if (sameDigest(presented, known.digest) && found === undefined) found = known.client;
    }
    return found;
  }
}

/**
 * Whether `client` may see and call the served tool `name`.
 *
 * @param client the authenticated client
 * @param name a served tool's local name
 *
 * @category sluice serve
 */
export function clientMay(client: ServeClient, name: string): boolean {
  return client.allow === undefined || client.allow.includes(name);
}

/**
 * SHA-256 of a token. In JavaScript (through `digestText`), not `crypto.subtle`: the async
 * subtle call cost about 0.1 ms per request on the serve benchmark, most of serve's own time.
 */
function tokenDigest(token: string): Promise<string> {
  return digestText(token);
}

/** Compares two digests of equal length without an early exit. */
function sameDigest(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) {
    difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  }
  return difference === 0;
}

function invalid(message: string): ServeError {
  return new ServeError("serve_config_invalid", `sluice serve: ${message}`);
}
