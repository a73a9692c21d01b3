/**
 * The options of `OAuthClient`: which flow, which clients, which deviations of the authorization
 * servers, DPoP.
 *
 * @module
 */
import type { AssertionGrant } from "./assertion_grants.ts";
import type { PreRegisteredClient } from "./client_auth.ts";
import type { DPoPSetting } from "./dpop.ts";
import type { ProviderProfile } from "./provider_profile.ts";
import type { TokenStore } from "./token_store.ts";

/**
 * Options of `OAuthClient`. Give `clientCredentials`, or `redirectUri` and `redirect`.
 *
 * @category OAuth
 */
export interface OAuthClientOptions {
  /** Where client registrations and tokens are kept. Default: a `MemoryTokenStore`. */
  readonly store?: TokenStore;
  /**
   * Machine-to-machine: the client credentials grant, as this client registered at the
   * authorization server beforehand (a secret or a private key). An entry of `clients` for the
   * issuer takes its place there.
   */
  readonly clientCredentials?: PreRegisteredClient;
  /**
   * Clients registered out of band (no dynamic registration, no client ID metadata document
   * where one applies), for either flow: the one whose `issuer` is the authorization server's,
   * else one without `issuer`.
   */
  readonly clients?: readonly PreRegisteredClient[];
  /** Authorization code flow: the redirect URI the authorization server sends the person to. */
  readonly redirectUri?: string;
  /** Authorization code flow: shows the authorization URL to the person (opens a browser). */
  readonly redirect?: (url: URL) => void | Promise<void>;
  /**
   * An https URL of this client's client ID metadata document; used as `client_id` where the
   * authorization server supports such documents, else dynamic registration is used.
   */
  readonly clientMetadataUrl?: string;
  /** The `client_name` sent in a dynamic registration. Default `"sluice"`. */
  readonly clientName?: string;
  /** The scope requested. Default: the scopes the protected resource lists, if any. */
  readonly scope?: string;
  /**
   * Known deviations of the authorization servers the host uses (omit `resource`, send
   * `audience`, Entra's `.default` scope), each for the issuer it names (see
   * {@link ProviderProfile}). sluice never picks one by itself: a server no profile names is
   * spoken to the RFC way.
   */
  readonly profiles?: readonly ProviderProfile[];
  /**
   * No person present: tokens from an assertion the host holds, a workload's JWT or (SEP-990)
   * a person's ID token from single sign-on exchanged at the enterprise identity provider
   * (see {@link AssertionGrant}). The client at the MCP server's authorization server is the
   * entry of `clients` for its issuer. Takes the place of the other flows.
   */
  readonly assertionGrant?: AssertionGrant;
  /**
   * DPoP (RFC 9449), sender-constrained tokens: `true` always (a key pair generated for this
   * client, its private key non-extractable), a `CryptoKeyPair` of the host's (always, and its
   * tokens stay usable in later processes), `false` never. Default: where the authorization
   * server advertises ES256 in `dpop_signing_alg_values_supported`. Where the host asks for it,
   * a Bearer token is refused; a DPoP-bound token is never presented as Bearer.
   */
  readonly dpop?: DPoPSetting;
}
