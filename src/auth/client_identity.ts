/**
 * Who `OAuthClient` is at an authorization server: the host's pre-registered client (per
 * issuer, or the machine client), a client ID metadata document, or a dynamic registration
 * (RFC 7591) kept per issuer, and what each authenticates with at the token endpoint.
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
import {
  authentication,
  type ClientAuthMethod,
  type ClientCredentialSet,
  credentialsOf,
  forIssuer,
  type PreRegisteredClient,
} from "./client_auth.ts";
import { AuthError } from "./errors.ts";
import type { TokenRecord, TokenStore } from "./token_store.ts";
import { clientKey, readRecord, str, type TokenClient, writeRecord } from "./token_records.ts";

/** What of `OAuthClientOptions` decides the client. */
export interface ClientSettings {
  /** The machine client of the client credentials flow. */
  readonly clientCredentials?: PreRegisteredClient;
  /** Clients registered out of band, each at its issuer (or at any). */
  readonly clients?: readonly PreRegisteredClient[];
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
  /** What it authenticates with; the method is chosen per request when not registered. */
  readonly credentials: ClientCredentialSet;
  /**
   * True for the host's own (pre-registered) client: its secret and key stay in the host's
   * options and are never written to the store.
   */
  readonly preRegistered: boolean;
}

/** What sluice keeps of a dynamic registration. */
interface Registered {
  readonly client_id: string;
  /** Only when the server registered the client with a secret method. */
  readonly client_secret?: string;
  readonly token_endpoint_auth_method?: ClientAuthMethod;
}

/** The secret methods a registration can come back with. */
const SECRET_METHODS: ReadonlySet<string> = new Set(["client_secret_basic", "client_secret_post"]);

/**
 * Reads a dynamic registration answer (RFC 7591: 201 and a JSON object). sluice asks for a
 * public client (`none`); a server may register it otherwise (RFC 7591 §3.2.1), and the client
 * then authenticates as registered: `client_secret_basic` or `client_secret_post` with the
 * issued secret. Any other method (sluice has no key the server knows) stays a public client,
 * which such a server refuses at the token endpoint. Fields sluice never reads are not checked
 * (the conformance suite's server issues secrets without the `client_secret_expires_at` RFC
 * 7591 asks for).
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
  const method = body?.token_endpoint_auth_method;
  return typeof method === "string" && SECRET_METHODS.has(method) && typeof secret === "string"
    ? {
      client_id: clientId,
      client_secret: secret,
      token_endpoint_auth_method: method as ClientAuthMethod,
    }
    : { client_id: clientId };
}

/**
 * The client as registered: public, or with the secret and its method (a record stored before
 * the method was kept had only `client_secret_post`).
 */
export function registeredClient(
  clientId: string,
  secret: string | undefined,
  method: string | undefined,
): ClientIdentity {
  const registered: ClientAuthMethod = secret === undefined
    ? "none"
    : method === "client_secret_basic"
    ? method
    : "client_secret_post";
  return {
    client: { client_id: clientId, token_endpoint_auth_method: registered },
    credentials: { method: registered, ...(secret !== undefined ? { secret } : {}) },
    preRegistered: false,
  };
}

/** The host's pre-registered client; its method is chosen at the server unless given. */
export function preRegisteredClient(client: PreRegisteredClient): ClientIdentity {
  return {
    client: { client_id: client.clientId },
    credentials: credentialsOf(client),
    preRegistered: true,
  };
}

/**
 * The pre-registered client for `issuer`: one registered at that issuer, else one registered
 * at any; for the client credentials flow, `clientCredentials` is one more candidate.
 */
export function preRegisteredAt(
  settings: ClientSettings,
  issuer: string,
): PreRegisteredClient | undefined {
  const candidates = [
    ...(settings.clients ?? []),
    ...(settings.clientCredentials !== undefined ? [settings.clientCredentials] : []),
  ];
  return forIssuer(candidates, issuer);
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
  const own = preRegisteredAt(settings, str(stored, "issuer") ?? "");
  if (own?.clientId === clientId) return preRegisteredClient(own);
  return registeredClient(
    clientId,
    str(stored, "client_secret"),
    str(stored, "token_endpoint_auth_method"),
  );
}

/** A token request's client, its authentication, and the options that send it. */
export interface Authenticated {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  readonly options: ReturnType<typeof oauthRequestOptions> & { DPoP?: oauth.DPoPHandle };
}

/**
 * How `identity` authenticates one token request at `discovered`'s token endpoint: the method
 * (registered, or chosen), and for `client_secret_basic` the endpoint fetch that alone carries
 * the credential. With `dpop`, the request carries a proof (RFC 9449 §5).
 */
export async function authenticated(
  identity: ClientIdentity,
  discovered: Discovered,
  context: DiscoveryContext,
  dpop?: oauth.DPoPHandle,
): Promise<Authenticated> {
  const chosen = await authentication(
    identity.client.client_id,
    identity.credentials,
    discovered.server,
  );
  let sending = context;
  if (chosen.basic !== undefined) {
    if (context.credentialed === undefined) {
      throw new AuthError("auth_config_invalid", "This fetch cannot send client credentials.");
    }
    const endpoint = new URL(discovered.server.token_endpoint!);
    sending = { ...context, fetch: context.credentialed(endpoint, chosen.basic) };
  }
  return {
    client: { ...identity.client, token_endpoint_auth_method: chosen.method },
    auth: chosen.auth,
    options: { ...oauthRequestOptions(sending), ...(dpop !== undefined ? { DPoP: dpop } : {}) },
  };
}

/**
 * Sends one token request and processes its answer; an OAuth error (or any answer that does
 * not process) becomes `auth_token_failed`, the transport's own failures keep their codes. A
 * DPoP `use_dpop_nonce` answer (RFC 9449 §8) is retried once: the handle kept the nonce.
 */
export async function requestTokens(
  send: () => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
): Promise<oauth.TokenEndpointResponse> {
  try {
    try {
      return await process(await send());
    } catch (error) {
      if (!oauth.isDPoPNonceError(error)) throw error;
      return await process(await send());
    }
  } catch (error) {
    // The body of an OAuth error (it may echo a grant) is never copied.
    if (transportFailure(error)) throw transportFailure(error);
    if (error instanceof AuthError) throw error;
    throw new AuthError("auth_token_failed", "The token endpoint refused the grant.");
  }
}

/**
 * What is stored with a token set of `identity`: its id, and for a dynamic registration its
 * secret and method (a pre-registered client's stay in the host's options).
 */
export function storedClient(identity: ClientIdentity): TokenClient {
  if (identity.preRegistered) return { client: identity.client };
  const { secret, method } = identity.credentials;
  return {
    client: identity.client,
    ...(secret !== undefined ? { secret } : {}),
    ...(method !== undefined ? { method } : {}),
  };
}

/** The client at this issuer: a client ID metadata document, a stored one, or a new registration. */
export async function clientAtIssuer(
  settings: ClientSettings,
  store: TokenStore,
  discovered: Discovered,
  context: DiscoveryContext,
): Promise<ClientIdentity> {
  const own = preRegisteredAt(settings, discovered.issuer);
  if (own !== undefined) return preRegisteredClient(own);
  const { server } = discovered;
  const metadataUrl = settings.clientMetadataUrl;
  if (
    metadataUrl !== undefined &&
    (server as { client_id_metadata_document_supported?: unknown })
        .client_id_metadata_document_supported === true
  ) {
    return {
      client: { client_id: metadataUrl, token_endpoint_auth_method: "none" },
      credentials: { method: "none" },
      preRegistered: false,
    };
  }
  const stored = await readRecord(store, clientKey(discovered.issuer));
  const storedId = str(stored, "client_id");
  if (storedId !== undefined && str(stored, "redirect_uri") === settings.redirectUri) {
    return registeredClient(
      storedId,
      str(stored, "client_secret"),
      str(stored, "token_endpoint_auth_method"),
    );
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
    ...(registered.token_endpoint_auth_method !== undefined
      ? { token_endpoint_auth_method: registered.token_endpoint_auth_method }
      : {}),
  });
  return registeredClient(
    registered.client_id,
    registered.client_secret,
    registered.token_endpoint_auth_method,
  );
}
