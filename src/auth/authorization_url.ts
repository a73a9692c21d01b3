/**
 * The authorization request a person's browser is sent to: the code flow with PKCE (S256), the
 * issuer's profile parameters, the scope, and DPoP's key thumbprint where tokens will be bound.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";
import { asksOfflineAccess } from "./request_scope.ts";

/** What an authorization URL is made of. */
export interface AuthorizationRequest {
  readonly server: oauth.AuthorizationServer;
  readonly clientId: string;
  readonly redirectUri: string;
  /** The PKCE code verifier; the URL carries its S256 challenge. */
  readonly verifier: string;
  readonly state: string;
  readonly parameters: Readonly<Record<string, string>>;
  readonly scope: string | undefined;
  /** The DPoP key's thumbprint (RFC 9449 §10), when the tokens will be bound to it. */
  readonly dpopJkt: string | undefined;
}

/** Refuses an authorization server that cannot run the code flow with PKCE S256. */
export function checkAuthorizationEndpoint(server: oauth.AuthorizationServer): void {
  if (server.authorization_endpoint === undefined) {
    throw new AuthError(
      "auth_metadata_invalid",
      "The authorization server has no authorization endpoint.",
    );
  }
  if (!server.code_challenge_methods_supported?.includes("S256")) {
    throw new AuthError(
      "auth_metadata_invalid",
      "The authorization server does not list PKCE S256.",
    );
  }
}

/** The URL of the authorization request (`checkAuthorizationEndpoint` passed for `server`). */
export async function authorizationUrl(request: AuthorizationRequest): Promise<URL> {
  const url = new URL(request.server.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(request.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", request.state);
  for (const [name, value] of Object.entries(request.parameters)) {
    url.searchParams.set(name, value);
  }
  if (request.scope !== undefined) url.searchParams.set("scope", request.scope);
  if (request.dpopJkt !== undefined) url.searchParams.set("dpop_jkt", request.dpopJkt);
  // OpenID Connect grants offline access only with the person's explicit consent.
  if (asksOfflineAccess(request.scope)) url.searchParams.set("prompt", "consent");
  return url;
}
