/**
 * Who `OAuthClient` is at an authorization server: the host's machine client, a client ID
 * metadata document, or a dynamic registration (RFC 7591) kept per issuer, and how each
 * authenticates at the token endpoint.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import {
  discard,
  type Discovered,
  type DiscoveryContext,
  oauthRequestOptions,
  transportFailure,
} from "./discovery.ts";
import { AuthError } from "./errors.ts";
import type { TokenRecord, TokenStore } from "./token_store.ts";
import { clientKey, readRecord, str, writeRecord } from "./token_records.ts";

/** What of `OAuthClientOptions` decides the client. */
export interface ClientSettings {
  /** A client registered at the authorization server beforehand. */
  readonly clientCredentials?: { readonly clientId: string; readonly clientSecret: string };
  /** The redirect URI of the authorization code flow. */
  readonly redirectUri?: string;
  /** An https URL of this client's client ID metadata document. */
  readonly clientMetadataUrl?: string;
  /** The `client_name` sent in a dynamic registration. */
  readonly clientName?: string;
}

/** A client as sluice authenticates it at the token endpoint. */
export interface ClientIdentity {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  /** The secret of a `client_secret_post` registration, kept with the tokens it obtains. */
  readonly secret?: string;
}

/** What sluice keeps of a dynamic registration. */
interface Registered {
  readonly client_id: string;
  /** Only when the server registered the client as `client_secret_post`. */
  readonly client_secret?: string;
}

/**
 * Reads a dynamic registration answer (RFC 7591: 201 and a JSON object). sluice asks for a
 * public client (`none`); a server may register it otherwise (RFC 7591 §3.2.1), and the client
 * then authenticates as registered: `client_secret_post` with the issued secret. Any other
 * method (`client_secret_basic` needs an `Authorization` header the hardened fetch never lets
 * a caller set) stays a public client, which such a server refuses at the token endpoint.
 * Fields sluice never reads are not checked (the conformance suite's server issues secrets
 * without the `client_secret_expires_at` RFC 7591 asks for).
 */
async function registrationResponse(response: Response): Promise<Registered> {
  if (response.status !== 201) {
    discard(response);
    throw new Error("registration not created");
  }
  const body = (await response.json()) as Record<string, unknown> | null;
  const clientId = body?.client_id;
  if (typeof clientId !== "string" || clientId === "") throw new Error("no client_id");
  const secret = body?.client_secret;
  return body?.token_endpoint_auth_method === "client_secret_post" && typeof secret === "string"
    ? { client_id: clientId, client_secret: secret }
    : { client_id: clientId };
}

/** The client as registered: public, or `client_secret_post` when it has a secret. */
export function registeredClient(clientId: string, secret: string | undefined): ClientIdentity {
  return secret === undefined
    ? { client: { client_id: clientId, token_endpoint_auth_method: "none" }, auth: oauth.None() }
    : {
      client: { client_id: clientId, token_endpoint_auth_method: "client_secret_post" },
      auth: oauth.ClientSecretPost(secret),
      secret,
    };
}

/** The host's machine client, authenticated with its secret in the token request body. */
export function credentialsClient(
  credentials: NonNullable<ClientSettings["clientCredentials"]>,
): ClientIdentity {
  return {
    client: { client_id: credentials.clientId, token_endpoint_auth_method: "client_secret_post" },
    auth: oauth.ClientSecretPost(credentials.clientSecret),
  };
}

/**
 * The client a stored token set was obtained by (kept with it since tokens carry
 * `client_id`), or `undefined` for a record without one.
 */
export function tokenClient(
  settings: ClientSettings,
  stored: TokenRecord | undefined,
): ClientIdentity | undefined {
  const clientId = str(stored, "client_id");
  if (clientId === undefined) return undefined;
  const credentials = settings.clientCredentials;
  if (credentials?.clientId === clientId) return credentialsClient(credentials);
  return registeredClient(clientId, str(stored, "client_secret"));
}

/** The client at this issuer: a client ID metadata document, a stored one, or a new registration. */
export async function clientAtIssuer(
  settings: ClientSettings,
  store: TokenStore,
  discovered: Discovered,
  context: DiscoveryContext,
): Promise<ClientIdentity> {
  const credentials = settings.clientCredentials;
  if (credentials !== undefined) return credentialsClient(credentials);
  const { server } = discovered;
  const metadataUrl = settings.clientMetadataUrl;
  if (
    metadataUrl !== undefined &&
    (server as { client_id_metadata_document_supported?: unknown })
        .client_id_metadata_document_supported === true
  ) {
    return {
      client: { client_id: metadataUrl, token_endpoint_auth_method: "none" },
      auth: oauth.None(),
    };
  }
  const stored = await readRecord(store, clientKey(discovered.issuer));
  const storedId = str(stored, "client_id");
  if (storedId !== undefined && str(stored, "redirect_uri") === settings.redirectUri) {
    return registeredClient(storedId, str(stored, "client_secret"));
  }
  if (server.registration_endpoint === undefined) {
    throw new AuthError(
      "auth_registration_failed",
      "The authorization server offers neither client ID metadata documents nor registration.",
    );
  }
  const loopback = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:|\/)/.test(
    settings.redirectUri!,
  );
  let registered: Registered;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(server, {
      client_name: settings.clientName ?? "sluice",
      redirect_uris: [settings.redirectUri!],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(loopback ? { application_type: "native" } : {}),
    }, oauthRequestOptions(context));
    registered = await registrationResponse(response);
  } catch (error) {
    if (transportFailure(error)) throw transportFailure(error);
    throw new AuthError("auth_registration_failed", "The dynamic client registration failed.");
  }
  await writeRecord(store, clientKey(discovered.issuer), {
    client_id: registered.client_id,
    redirect_uri: settings.redirectUri!,
    ...(registered.client_secret !== undefined ? { client_secret: registered.client_secret } : {}),
  });
  return registeredClient(registered.client_id, registered.client_secret);
}
