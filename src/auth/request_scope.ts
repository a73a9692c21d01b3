/**
 * What every authorization and token request carries besides the grant: the issuer's profile
 * parameters and the scope, with `offline_access` added where the server issues refresh tokens
 * only for it.
 *
 * @module
 */
import type { BearerChallenge } from "./challenge.ts";
import type { Discovered } from "./discovery.ts";
import type { OAuthClientOptions } from "./oauth_options.ts";
import { profileAt, profileParameters, profileScope } from "./provider_profile.ts";

/** The scope that asks for a refresh token: OIDC's `offline_access` (SEP-2207). */
const OFFLINE_ACCESS = "offline_access";

type ScopeOptions = Pick<OAuthClientOptions, "scope" | "profiles">;

/** The parameters every authorization and token request to `discovered` carries. */
export function requestParameters(
  options: ScopeOptions,
  discovered: Discovered,
): Record<string, string> {
  return profileParameters(profileAt(options.profiles, discovered.issuer), discovered);
}

/**
 * The scope to request: the host's, else the challenge's, else what the resource lists, in the
 * form the issuer's profile asks for.
 */
export function requestScope(
  options: ScopeOptions,
  discovered: Discovered,
  challenge: BearerChallenge,
): string | undefined {
  if (options.scope !== undefined) return options.scope;
  const computed = challenge.scopes.length > 0
    ? challenge.scopes.join(" ")
    : discovered.scopesSupported.length > 0
    ? discovered.scopesSupported.join(" ")
    : undefined;
  return profileScope(profileAt(options.profiles, discovered.issuer), discovered, computed);
}

/**
 * The scope of an authorization request: {@link requestScope}, plus `offline_access` when the
 * authorization server lists it in `scopes_supported`. Such servers (OpenID Connect ones,
 * oidc-provider by default) issue a refresh token only for it; without one every expiry would
 * need a person again.
 */
export function authorizationScope(
  options: ScopeOptions,
  discovered: Discovered,
  challenge: BearerChallenge,
): string | undefined {
  const scope = requestScope(options, discovered, challenge);
  if (discovered.server.scopes_supported?.includes(OFFLINE_ACCESS) !== true) return scope;
  const words = scope?.split(" ").filter((word) => word !== "") ?? [];
  return words.includes(OFFLINE_ACCESS) ? scope : [...words, OFFLINE_ACCESS].join(" ");
}

/** Whether `scope` asks for offline access (which OpenID Connect grants only with consent). */
export function asksOfflineAccess(scope: string | undefined): boolean {
  return scope?.split(" ").includes(OFFLINE_ACCESS) === true;
}
