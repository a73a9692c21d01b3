/**
 * Provider profiles: the few known ways real authorization servers deviate from the RFCs the
 * OAuth client follows (RFC 8707 `resource`, Auth0's `audience`, Entra's `.default` scope),
 * each switched on by the host for an issuer it names. sluice never infers a profile from a
 * host name: a server that is not named gets the RFC behaviour.
 *
 * @module
 */
import { forIssuer } from "./client_auth.ts";
import type { Discovered } from "./discovery.ts";
import { AuthError } from "./errors.ts";

/**
 * The deviations of one authorization server, as its administrator documents them.
 *
 * @example Microsoft Entra ID (v2 endpoints)
 * ```ts
 * import type { ProviderProfile } from "@sluice/mcp";
 * const entra: ProviderProfile = {
 *   issuer: "https://login.microsoftonline.com/<tenant-id>/v2.0",
 *   resourceIndicator: "omit",
 *   scopeForm: "resourceDefault",
 *   scopeResource: "api://<application-id>",
 * };
 * ```
 *
 * @example Auth0
 * ```ts
 * import type { ProviderProfile } from "@sluice/mcp";
 * const auth0: ProviderProfile = {
 *   issuer: "https://example.eu.auth0.com/",
 *   audience: "https://mcp.example.com/mcp",
 * };
 * ```
 *
 * @category OAuth
 */
export interface ProviderProfile {
  /**
   * The issuer this profile applies to, exactly as its metadata's `issuer`. Omitted, it applies
   * at every authorization server no other profile names.
   */
  readonly issuer?: string;
  /**
   * The RFC 8707 `resource` parameter on the authorization and token requests: `"send"` (the
   * default, as the MCP authorization rules require) or `"omit"` for servers that refuse it
   * (Entra: `AADSTS9010010`). Without it, the server alone decides the token's audience.
   */
  readonly resourceIndicator?: "send" | "omit";
  /**
   * An `audience` parameter sent on the authorization and token requests (Auth0: the API
   * identifier; without it Auth0 issues no access token for the API).
   */
  readonly audience?: string;
  /**
   * `"resourceDefault"`: ask for the one scope `<scopeResource>/.default` (Entra's form: every
   * permission the application was granted for that resource) in place of the scopes the MCP
   * server lists or names. `"listed"` (the default): those scopes. An explicit `scope` option
   * of the client always wins.
   */
  readonly scopeForm?: "listed" | "resourceDefault";
  /**
   * The resource of `"resourceDefault"` (Entra: the application ID URI, `api://<app-id>`).
   * Default: the resource identifier the MCP server's metadata names.
   */
  readonly scopeResource?: string;
}

/**
 * Checks the host's profiles (before any request).
 *
 * @throws {AuthError} `auth_config_invalid`
 */
export function checkProfiles(profiles: unknown): void {
  if (profiles === undefined) return;
  if (!Array.isArray(profiles)) {
    throw new AuthError("auth_config_invalid", "profiles must be an array.");
  }
  for (const [index, profile] of profiles.entries()) {
    const invalid = (why: string) =>
      new AuthError("auth_config_invalid", `profiles[${index}]: ${why}`);
    const given = profile as ProviderProfile | null;
    if (typeof given !== "object" || given === null) throw invalid("must be an object.");
    if (given.issuer !== undefined && !URL.canParse(given.issuer)) {
      throw invalid("issuer must be a URL.");
    }
    if (![undefined, "send", "omit"].includes(given.resourceIndicator)) {
      throw invalid('resourceIndicator must be "send" or "omit".');
    }
    if (given.audience !== undefined && (typeof given.audience !== "string" || !given.audience)) {
      throw invalid("audience must be a non-empty string.");
    }
    if (![undefined, "listed", "resourceDefault"].includes(given.scopeForm)) {
      throw invalid('scopeForm must be "listed" or "resourceDefault".');
    }
    if (
      given.scopeResource !== undefined &&
      (typeof given.scopeResource !== "string" || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(
        given.scopeResource,
      ))
    ) {
      throw invalid("scopeResource must be a string of scope characters.");
    }
  }
}

/** The profile of `issuer`: the one naming it, else one naming none, else the RFC behaviour. */
export function profileAt(
  profiles: readonly ProviderProfile[] | undefined,
  issuer: string,
): ProviderProfile {
  return forIssuer(profiles ?? [], issuer) ?? {};
}

/**
 * The parameters a profile puts on every authorization and token request to `discovered`:
 * `resource` unless omitted, and `audience` where given.
 */
export function profileParameters(
  profile: ProviderProfile,
  discovered: Discovered,
): Record<string, string> {
  return {
    ...(profile.resourceIndicator !== "omit" ? { resource: discovered.resource } : {}),
    ...(profile.audience !== undefined ? { audience: profile.audience } : {}),
  };
}

/** The scope to ask for under `profile`, given the one computed the RFC way. */
export function profileScope(
  profile: ProviderProfile,
  discovered: Discovered,
  computed: string | undefined,
): string | undefined {
  if (profile.scopeForm !== "resourceDefault") return computed;
  return `${(profile.scopeResource ?? discovered.resource).replace(/\/+$/, "")}/.default`;
}
