/**
 * The hardened fetches `OAuthClient.fetchFor` sends one MCP server's requests through: one
 * without a token, one for the current access token (replaced when the token changes), and
 * the OAuth requests' own. While held, every instance in use keeps its pinned connections; a
 * replaced one lets go.
 *
 * @module
 */
import {
  type FetchFunction,
  type SecureFetch,
  secureFetch,
  type SecureFetchOptions,
} from "../transport/secure_fetch.ts";

/** How an access token is presented: a Bearer token, or a DPoP-bound one (RFC 9449 §7.1). */
export type TokenScheme = "Bearer" | "DPoP";

/** The fetch instances of one MCP server, and their hold. */
export class TokenFetches {
  readonly #base: SecureFetchOptions;
  readonly #origin: string;
  readonly #oauth: SecureFetch;
  #cached: { token: string; scheme: TokenScheme; fetch: SecureFetch } | undefined;
  #anonymous: SecureFetch | undefined;
  #holding = false;
  readonly #releases = new Map<SecureFetch, () => void>();

  /**
   * @param base the hardened fetch's options, without a token
   * @param origin the MCP server's origin, the only one the access token is sent to
   * @param oauthFetch the fetch of the OAuth requests, held with the others
   */
  constructor(base: SecureFetchOptions, origin: string, oauthFetch: SecureFetch) {
    this.#base = base;
    this.#origin = origin;
    this.#oauth = oauthFetch;
  }

  #keep(instance: SecureFetch): SecureFetch {
    if (this.#holding && !this.#releases.has(instance)) {
      this.#releases.set(instance, instance.hold());
    }
    return instance;
  }

  /**
   * The fetch that sends `token` (none when `undefined`) to the server's origin only, as a
   * Bearer token or (`"DPoP"`) a DPoP-bound one.
   */
  withToken(token: string | undefined, scheme: TokenScheme = "Bearer"): FetchFunction {
    if (token === undefined) return this.#keep(this.#anonymous ??= secureFetch(this.#base));
    const cached = this.#cached;
    if (cached?.token !== token || cached.scheme !== scheme) {
      if (cached !== undefined) this.#releases.get(cached.fetch)?.();
      if (cached !== undefined) this.#releases.delete(cached.fetch);
      this.#cached = {
        token,
        scheme,
        fetch: secureFetch({
          ...this.#base,
          token,
          tokenScheme: scheme,
          tokenOrigin: this.#origin,
        }),
      };
    }
    return this.#keep(this.#cached!.fetch);
  }

  /** Keeps the pinned connections of every instance in use until the returned release. */
  hold(): () => void {
    this.#holding = true;
    for (const instance of [this.#oauth, this.#anonymous, this.#cached?.fetch]) {
      if (instance !== undefined) this.#keep(instance);
    }
    return () => {
      this.#holding = false;
      for (const release of this.#releases.values()) release();
      this.#releases.clear();
    };
  }
}
