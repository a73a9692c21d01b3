/**
 * The grants that present an assertion instead of a person: the JWT bearer grant (RFC 7523
 * §2.1) with a workload's identity token, and enterprise-managed authorization (SEP-990): the
 * person's ID token from single sign-on exchanged at the enterprise identity provider (token
 * exchange, RFC 8693) for an identity assertion authorization grant (ID-JAG), presented to the
 * MCP server's authorization server by the JWT bearer grant. Each token goes to one token
 * endpoint only, taken from metadata that passed the same checks as every other OAuth URL.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { checkPreRegistered, type PreRegisteredClient } from "./client_auth.ts";
import {
  authenticated,
  type ClientIdentity,
  preRegisteredClient,
  requestTokens,
} from "./client_identity.ts";
import { type Discovered, discoverIssuer, type DiscoveryContext } from "./discovery.ts";
import { AuthError } from "./errors.ts";

/**
 * An assertion the host holds: the token itself, or a function that returns a current one
 * (called for each grant, so a short-lived token can be fetched fresh).
 *
 * @category OAuth
 */
export type AssertionSource = string | (() => string | Promise<string>);

/**
 * How the client obtains access tokens from an assertion, with no person present. The client
 * at the MCP server's authorization server is the host's pre-registered one for that issuer
 * (`clients`), authenticated as registered.
 *
 * @category OAuth
 */
export type AssertionGrant =
  | {
    /**
     * Workload identity federation (SEP-1933): the platform's JWT (a Kubernetes service account
     * token, a cloud workload identity token) presented with the JWT bearer grant. A refusal
     * (`invalid_grant`, `invalid_scope`, `unauthorized_client`) ends the request: no retry,
     * no other grant.
     */
    readonly kind: "jwtBearer";
    /** The JWT, its audience the MCP server's authorization server. */
    readonly assertion: AssertionSource;
  }
  | {
    /**
     * Enterprise-managed authorization (SEP-990, cross-app access): the person's ID token is
     * exchanged at the identity provider for an ID-JAG naming the MCP server's authorization
     * server and the MCP server, which is then presented with the JWT bearer grant.
     */
    readonly kind: "enterpriseManaged";
    /**
     * The identity provider's issuer. Its metadata (RFC 8414, then OpenID discovery) is fetched
     * and checked, issuer and every endpoint, like the authorization server's; the ID token
     * goes to its checked `token_endpoint` only.
     */
    readonly identityProvider: string;
    /** This application's client at the identity provider (`authMethod: "none"` if public). */
    readonly identityProviderClient: PreRegisteredClient;
    /** The person's ID token from single sign-on at the identity provider. */
    readonly idToken: AssertionSource;
  };

/** RFC 7523 §2.1. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
/** SEP-990's identity assertion authorization grant. */
const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";

/**
 * Checks the host's assertion grant (before any request).
 *
 * @throws {AuthError} `auth_config_invalid`
 */
export function checkAssertionGrant(grant: AssertionGrant): void {
  const invalid = (why: string) => new AuthError("auth_config_invalid", `assertionGrant: ${why}`);
  const source = (value: unknown, name: string) => {
    if (!(typeof value === "string" && value !== "") && typeof value !== "function") {
      throw invalid(`${name} must be a non-empty string or a function.`);
    }
  };
  if (grant?.kind === "jwtBearer") return source(grant.assertion, "assertion");
  if (grant?.kind !== "enterpriseManaged") {
    throw invalid('kind must be "jwtBearer" or "enterpriseManaged".');
  }
  if (typeof grant.identityProvider !== "string" || !URL.canParse(grant.identityProvider)) {
    throw invalid("identityProvider must be the identity provider's issuer URL.");
  }
  checkPreRegistered(grant.identityProviderClient, "assertionGrant.identityProviderClient");
  source(grant.idToken, "idToken");
}

async function current(source: AssertionSource): Promise<string> {
  const value = typeof source === "function" ? await source() : source;
  if (typeof value !== "string" || value === "") {
    throw new AuthError("auth_config_invalid", "assertionGrant: the assertion is empty.");
  }
  return value;
}

/**
 * The ID-JAG for `discovered` (its issuer the audience, its resource the resource): the ID token
 * exchanged at the identity provider's checked token endpoint.
 */
async function identityAssertion(
  grant: Extract<AssertionGrant, { kind: "enterpriseManaged" }>,
  discovered: Discovered,
  scope: string | undefined,
  context: DiscoveryContext,
): Promise<string> {
  const provider = await discoverIssuer(grant.identityProvider, "identityProvider", context);
  const idp: Discovered = {
    resource: discovered.resource,
    issuer: provider.issuer,
    server: provider,
    scopesSupported: [],
  };
  const sent = await authenticated(
    preRegisteredClient(grant.identityProviderClient),
    idp,
    context,
  );
  const subject = await current(grant.idToken);
  const answer = await requestTokens(
    () =>
      oauth.genericTokenEndpointRequest(provider, sent.client, sent.auth, TOKEN_EXCHANGE_GRANT, {
        requested_token_type: ID_JAG_TYPE,
        audience: discovered.issuer,
        resource: discovered.resource,
        ...(scope !== undefined ? { scope } : {}),
        subject_token: subject,
        subject_token_type: ID_TOKEN_TYPE,
      }, sent.options),
    (response) =>
      oauth.processGenericTokenEndpointResponse(provider, sent.client, response, {
        // RFC 8693 §2.2.1: an issued token that is not an access token has type N_A.
        recognizedTokenTypes: { n_a: () => {} },
      }),
  );
  if ((answer as { issued_token_type?: unknown }).issued_token_type !== ID_JAG_TYPE) {
    throw new AuthError(
      "auth_token_failed",
      "The identity provider's token exchange did not issue an ID-JAG.",
    );
  }
  return answer.access_token;
}

/**
 * Access tokens for `discovered` by `grant`: the JWT bearer grant at the authorization
 * server's checked token endpoint, with the workload's JWT or the ID-JAG the identity provider
 * issued, `client` authenticated as registered.
 *
 * @param parameters what every token request to this issuer carries (`resource`, a profile's)
 * @param scope the scope to ask for, if any
 * @param dpop the DPoP handle whose proof the request carries, where DPoP applies
 */
export async function assertionGrantTokens(
  grant: AssertionGrant,
  client: ClientIdentity,
  discovered: Discovered,
  parameters: Record<string, string>,
  scope: string | undefined,
  context: DiscoveryContext,
  dpop?: oauth.DPoPHandle,
): Promise<oauth.TokenEndpointResponse> {
  const assertion = grant.kind === "jwtBearer"
    ? await current(grant.assertion)
    : await identityAssertion(grant, discovered, scope, context);
  const sent = await authenticated(client, discovered, context, dpop);
  return await requestTokens(
    () =>
      oauth.genericTokenEndpointRequest(
        discovered.server,
        sent.client,
        sent.auth,
        JWT_BEARER_GRANT,
        { ...parameters, ...(scope !== undefined ? { scope } : {}), assertion },
        sent.options,
      ),
    (response) =>
      oauth.processGenericTokenEndpointResponse(discovered.server, sent.client, response),
  );
}
