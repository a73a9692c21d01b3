/**
 * The `auth` stage of the code catalog (OAuth); `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `auth` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const AUTH_CODES = {
  auth_config_invalid: {
    stage: "auth",
    meaning: "The `auth` options are inconsistent (no flow, a redirect URI without `redirect`).",
  },
  auth_metadata_refused: {
    stage: "auth",
    meaning:
      "A metadata document or challenge names a URL the transport refuses; refused before any request to it.",
  },
  auth_metadata_invalid: {
    stage: "auth",
    meaning: "A metadata document is not JSON, lacks a required field, or names another resource.",
  },
  auth_issuer_mismatch: {
    stage: "auth",
    meaning: "The authorization server metadata names another `issuer` than the one discovered.",
  },
  auth_registration_failed: {
    stage: "auth",
    meaning:
      "No client: no client ID metadata document support and no (working) dynamic registration.",
  },
  auth_authorization_required: {
    stage: "auth",
    meaning:
      "A person must authorize: `redirect(url)` got the URL; call `auth.finish(callbackUrl)`, connect again.",
  },
  auth_callback_invalid: {
    stage: "auth",
    meaning: "The callback is unknown, forged (state, `iss`), or carries an authorization error.",
  },
  auth_token_failed: {
    stage: "auth",
    meaning:
      "The token endpoint refused the grant (code, refresh, client credentials, token exchange, JWT bearer).",
  },
  auth_client_auth_unsupported: {
    stage: "auth",
    meaning:
      "The authorization server advertises no token endpoint authentication method the client has credentials for.",
  },
  auth_credential_refused: {
    stage: "auth",
    meaning:
      "Client credentials were about to go to a URL other than the checked endpoint they are for; nothing was sent.",
  },
  auth_unauthorized: {
    stage: "auth",
    meaning: "The server still answered 401 after one new token; sluice does not loop.",
  },
  auth_insufficient_scope: {
    stage: "auth",
    meaning: "The server answered 403 `insufficient_scope`; the message names the scopes.",
  },
  auth_store_failed: {
    stage: "auth",
    meaning: "The token store failed, or a stored record does not decrypt with the key.",
  },
} as const satisfies StageCodes<"auth">;
