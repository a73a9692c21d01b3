/**
 * How `OAuthClient` keeps what it learns in a {@link TokenStore}: one record per MCP server's
 * token set (with the client registration that obtained it) and one per issuer's client
 * registration. A store's failure is `auth_store_failed`, never the store's own error.
 *
 * @module
 */
import type * as oauth from "oauth4webapi";
import type { Discovered } from "./discovery.ts";
import { AuthError } from "./errors.ts";
import type { TokenRecord, TokenStore } from "./token_store.ts";

/** The key of `resource`'s token set. */
export const tokensKey = (resource: URL): string => `tokens ${resource.href}`;
/** The key of the client registered at `issuer`. */
export const clientKey = (issuer: string): string => `client ${issuer}`;

/** A string field of a record, or `undefined`. */
export function str(record: TokenRecord | undefined, field: string): string | undefined {
  const value = record?.[field];
  return typeof value === "string" ? value : undefined;
}

/** Reads the record under `key`. */
export async function readRecord(
  store: TokenStore,
  key: string,
): Promise<TokenRecord | undefined> {
  try {
    return await store.get(key);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("auth_store_failed", "The token store could not be read.");
  }
}

/** Writes `record` under `key`. */
export async function writeRecord(
  store: TokenStore,
  key: string,
  record: TokenRecord,
): Promise<void> {
  try {
    await store.set(key, record);
  } catch {
    throw new AuthError("auth_store_failed", "The token store could not be written.");
  }
}

/** What of the client that obtained a token set is stored with it. */
export interface TokenClient {
  /** The client, by its `client_id`. */
  readonly client: { readonly client_id: string };
  /** The secret of a dynamic registration that issued one. */
  readonly secret?: string;
  /** The token endpoint authentication method of a dynamic registration. */
  readonly method?: string;
}

/** The registration a token set was obtained under. */
export interface TokenRegistration {
  /** The refresh token a refresh presented, kept when the answer has no new one. */
  readonly previousRefresh?: string;
  /** The redirect URI the client was registered with. */
  readonly redirectUri?: string | undefined;
  /** The thumbprint of the DPoP key the request's proof was made with, when it had one. */
  readonly dpopJkt?: string | undefined;
  /**
   * A Bearer token is refused: the host asked for DPoP, or the refreshed token was bound
   * (a bound token is never silently replaced by a bearer one).
   */
  readonly requireBound?: boolean;
}

/** An access token as stored, and whether it is DPoP-bound. */
export interface IssuedToken {
  readonly token: string;
  readonly bound: boolean;
}

/** Whether a stored token set is DPoP-bound, and to which key. */
export function storedBinding(record: TokenRecord | undefined): string | undefined {
  return str(record, "token_type") === "DPoP" ? str(record, "dpop_jkt") ?? "" : undefined;
}

/**
 * Stores a token set with the client registration that obtained it (client id, its secret
 * when it has one, the redirect URI it was registered with, the issuer): a refresh in any
 * later process presents the refresh token as that client. A DPoP token is kept with its key's
 * thumbprint. Returns the access token.
 */
export async function saveTokens(
  store: TokenStore,
  resource: URL,
  discovered: Discovered,
  tokens: oauth.TokenEndpointResponse,
  client: TokenClient,
  registration: TokenRegistration = {},
): Promise<IssuedToken> {
  const type = tokens.token_type.toLowerCase();
  const bound = type === "dpop" && registration.dpopJkt !== undefined;
  if (!bound && type !== "bearer") {
    throw new AuthError(
      "auth_token_failed",
      "The token endpoint issued a token that is neither Bearer nor DPoP-bound to a proof sent.",
    );
  }
  if (!bound && registration.requireBound === true) {
    throw new AuthError(
      "auth_token_failed",
      "The token endpoint issued a Bearer token where a DPoP-bound one is required.",
    );
  }
  const refresh = tokens.refresh_token ?? registration.previousRefresh;
  await writeRecord(store, tokensKey(resource), {
    issuer: discovered.issuer,
    resource: discovered.resource,
    access_token: tokens.access_token,
    refresh_token: refresh ?? null,
    expires_at: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : null,
    scope: tokens.scope ?? null,
    client_id: client.client.client_id,
    ...(client.secret !== undefined ? { client_secret: client.secret } : {}),
    ...(client.method !== undefined ? { token_endpoint_auth_method: client.method } : {}),
    redirect_uri: registration.redirectUri ?? null,
    token_type: bound ? "DPoP" : "Bearer",
    ...(bound ? { dpop_jkt: registration.dpopJkt! } : {}),
  });
  return { token: tokens.access_token, bound };
}
