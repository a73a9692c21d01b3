/**
 * OAuth 2.1 for the MCP servers `connect()` reaches: the client and its token stores.
 *
 * @module
 */
export { type AssertionGrant, type AssertionSource } from "./assertion_grants.ts";
export {
  CLIENT_AUTH_PREFERENCE,
  type ClientAuthMethod,
  type PreRegisteredClient,
} from "./client_auth.ts";
export { AuthError, type AuthErrorCode, authErrorCode } from "./errors.ts";
export { OAUTH_MAX_RESPONSE_BYTES, OAuthClient } from "./oauth_client.ts";
export type { OAuthClientOptions } from "./oauth_options.ts";
export { type DPoPSetting } from "./dpop.ts";
export { type ProviderProfile } from "./provider_profile.ts";
export { MemoryTokenStore, type TokenRecord, type TokenStore } from "./token_store.ts";
