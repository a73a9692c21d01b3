/**
 * Who is calling `sluice serve`: a request's bearer token is a configured client's static
 * token, or (as an OAuth protected resource) a JWT access token of a configured OAuth client.
 * Anything else is refused before MCP sees the request, with the challenge that says how to
 * authenticate.
 *
 * @module
 */
import { type ServeClient, ServeClients } from "./clients.ts";
import type { ServeErrorCode } from "./errors.ts";
import { OAuthResource, type ServeOAuth } from "./oauth.ts";

/** A refusal of authentication: its code, HTTP status and `WWW-Authenticate` value. */
export interface AuthRefusal {
  readonly code: ServeErrorCode;
  readonly status: 401 | 403;
  readonly challenge: string;
}

/** What authenticating a request found. */
export type Authenticated =
  | { readonly client: ServeClient; readonly refusal?: undefined }
  | { readonly client?: undefined; readonly refusal: AuthRefusal };

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The endpoint's authentication: static bearer-token clients, OAuth clients, or both.
 *
 * @category sluice serve
 */
export class Authenticator {
  readonly #tokens: ServeClients | undefined;
  readonly #oauth: OAuthResource | undefined;
  /** Every client, bearer-token ones first. */
  readonly clients: readonly ServeClient[];

  private constructor(tokens: ServeClients | undefined, oauth: OAuthResource | undefined) {
    this.#tokens = tokens;
    this.#oauth = oauth;
    this.clients = [...tokens?.list ?? [], ...oauth?.clients ?? []];
  }

  /**
   * Checks the clients (`serve_config_invalid`) and, with `oauth`, finds the issuer's keys.
   * Without `oauth` at least one bearer-token client is needed.
   *
   * @param clients the bearer-token clients
   * @param oauth the protected-resource settings
   */
  static async of(
    clients: readonly ServeClient[] | undefined,
    oauth: ServeOAuth | undefined,
  ): Promise<Authenticator> {
    const tokens = oauth === undefined || (clients !== undefined && clients.length > 0)
      ? await ServeClients.of(clients ?? [])
      : undefined;
    const names = new Set(tokens?.list.map((client) => client.name));
    const resource = oauth === undefined ? undefined : await OAuthResource.of(oauth, names);
    return new Authenticator(tokens, resource);
  }

  /**
   * The protected resource metadata when `request` asks for it (OAuth only), else `undefined`.
   *
   * @param request any request
   */
  metadata(request: Request): Response | undefined {
    return this.#oauth?.metadata(request);
  }

  /**
   * The client `request` authenticates as, or the refusal.
   *
   * @param request the request
   */
  async identify(request: Request): Promise<Authenticated> {
    const authorization = request.headers.get("authorization");
    const match = authorization === null ? null : /^Bearer ([^\s]+)$/i.exec(authorization);
    const oauth = this.#oauth;
    if (match !== null && oauth !== undefined && JWT.test(match[1])) {
      const verdict = await oauth.verify(match[1]);
      if (verdict.kind === "client") return { client: verdict.client };
      if (verdict.kind === "forbidden") {
        return {
          refusal: {
            code: "serve_forbidden",
            status: 403,
            challenge: oauth.challenge("insufficient_scope", verdict.scope),
          },
        };
      }
    } else {
      const client = await this.#tokens?.identify(authorization);
      if (client !== undefined) return { client };
    }
    const error = authorization === null ? undefined : "invalid_token";
    const challenge = oauth?.challenge(error) ??
      `Bearer realm="sluice"${error === undefined ? "" : `, error="${error}"`}`;
    return { refusal: { code: "serve_unauthorized", status: 401, challenge } };
  }
}
