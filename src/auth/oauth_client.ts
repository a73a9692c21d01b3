/**
 * `OAuthClient`: OAuth 2.1 for the MCP servers `connect()` reaches, built on `oauth4webapi`,
 * every request sent through sluice's hardened fetch. Flows: authorization code with PKCE
 * (S256) for a person present (`redirect(url)`, then `finish(callbackUrl)`), and client
 * credentials for machines. Refresh on a 401, once per request; never a loop.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { runtimeResolver } from "../transport/runtime/mod.ts";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchFunction,
  type SecureFetch,
  secureFetch,
  type SecureFetchOptions,
} from "../transport/secure_fetch.ts";
import { type BearerChallenge, parseBearerChallenge } from "./challenge.ts";
import {
  discoverAuthorizationServer,
  type Discovered,
  type DiscoveryContext,
  oauthRequestOptions,
  transportFailure,
} from "./discovery.ts";
import { AuthError } from "./errors.ts";
import { MemoryTokenStore, type TokenRecord, type TokenStore } from "./token_store.ts";

/**
 * Byte cap on every OAuth response (metadata, registration, tokens): 64 KiB at most.
 *
 * @category OAuth
 */
export const OAUTH_MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Options of {@link OAuthClient}. Give `clientCredentials`, or `redirectUri` and `redirect`.
 *
 * @category OAuth
 */
export interface OAuthClientOptions {
  /** Where client registrations and tokens are kept. Default: a {@link MemoryTokenStore}. */
  readonly store?: TokenStore;
  /** Machine-to-machine: a client registered at the authorization server beforehand. */
  readonly clientCredentials?: { readonly clientId: string; readonly clientSecret: string };
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
}

/** A client as sluice authenticates it at the token endpoint. */
interface ClientIdentity {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  /** The secret of a `client_secret_post` registration, kept with the tokens it obtains. */
  readonly secret?: string;
}

/** A person's authorization in progress, kept in this process only. */
interface Pending extends ClientIdentity {
  readonly resource: URL;
  readonly discovered: Discovered;
  readonly verifier: string;
  readonly context: DiscoveryContext;
}

const tokensKey = (resource: URL): string => `tokens ${resource.href}`;
const clientKey = (issuer: string): string => `client ${issuer}`;

const discard = (response: Response): void => {
  response.body?.cancel().catch(() => {});
};

function str(record: TokenRecord | undefined, field: string): string | undefined {
  const value = record?.[field];
  return typeof value === "string" ? value : undefined;
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
function registeredClient(clientId: string, secret: string | undefined): ClientIdentity {
  return secret === undefined
    ? { client: { client_id: clientId, token_endpoint_auth_method: "none" }, auth: oauth.None() }
    : {
      client: { client_id: clientId, token_endpoint_auth_method: "client_secret_post" },
      auth: oauth.ClientSecretPost(secret),
      secret,
    };
}

/** The scope that asks for a refresh token: OIDC's `offline_access` (SEP-2207). */
const OFFLINE_ACCESS = "offline_access";

/**
 * An OAuth client for `connect()`: pass it as a server's `auth`. One instance can serve several
 * servers; client registrations are kept per issuer and tokens per MCP server in its store.
 * The access token is sent only to the MCP server's origin, the refresh token only to the
 * token endpoint, and neither appears in an error, event or report.
 *
 * @example
 * ```ts
 * import { MemoryTokenStore, OAuthClient } from "@sluice/mcp";
 * const auth = new OAuthClient({
 *   store: new MemoryTokenStore(),
 *   redirectUri: "http://127.0.0.1:8976/callback",
 *   redirect: (url) => console.log(`Open ${url.href}`),
 * });
 * // connect(url, { auth, allow: [...] }) fails with auth_authorization_required the first
 * // time; once the callback arrives: await auth.finish(callbackUrl), then connect again.
 * ```
 *
 * @category OAuth
 */
export class OAuthClient {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #pending = new Map<string, Pending>();
  readonly #renewing = new Map<string, Promise<string>>();
  readonly #scopeNeeded = new Map<string, readonly string[]>();

  /**
   * Creates the client.
   *
   * @param options the flow (client credentials, or a redirect URI and `redirect`) and store
   * @throws {AuthError} `auth_config_invalid` when no flow is configured
   */
  constructor(options: OAuthClientOptions) {
    const code = options.redirectUri !== undefined || options.redirect !== undefined;
    if (code && (typeof options.redirect !== "function" || !URL.canParse(options.redirectUri!))) {
      throw new AuthError(
        "auth_config_invalid",
        "The authorization code flow needs both redirectUri (a URL) and redirect (a function).",
      );
    }
    if (!code && options.clientCredentials === undefined) {
      throw new AuthError(
        "auth_config_invalid",
        "Give clientCredentials, or redirectUri and redirect for the authorization code flow.",
      );
    }
    this.#options = options;
    this.#store = options.store ?? new MemoryTokenStore();
  }

  /**
   * The scopes an MCP server last asked for in a 403 `insufficient_scope` answer (the call
   * ended `auth_insufficient_scope` and was not retried), or `undefined`. Each is a valid
   * RFC 6749 scope token; authorize again with `scope` widened to get them.
   *
   * @param resource the MCP server's URL
   */
  scopeNeeded(resource: string | URL): readonly string[] | undefined {
    return this.#scopeNeeded.get(new URL(resource).href);
  }

  /** The store this client keeps registrations and tokens in. */
  get store(): TokenStore {
    return this.#store;
  }

  /**
   * Completes an authorization: checks the callback (state, `iss` per RFC 9207, error),
   * exchanges the code with PKCE and the resource indicator, and stores the tokens.
   *
   * @param callbackUrl the full URL the authorization server redirected the person to
   * @throws {AuthError} `auth_callback_invalid` or `auth_token_failed`
   */
  async finish(callbackUrl: string | URL): Promise<void> {
    let url: URL;
    try {
      url = new URL(callbackUrl);
    } catch {
      throw new AuthError("auth_callback_invalid", "The callback URL does not parse.");
    }
    const state = url.searchParams.get("state") ?? "";
    const pending = this.#pending.get(state);
    const expected = new URL(this.#options.redirectUri ?? "about:blank");
    if (
      pending === undefined || url.origin + url.pathname !== expected.origin + expected.pathname
    ) {
      throw new AuthError(
        "auth_callback_invalid",
        "The callback matches no authorization in progress.",
      );
    }
    this.#pending.delete(state);
    const { server } = pending.discovered;
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(server, pending.client, url, state);
    } catch {
      throw new AuthError(
        "auth_callback_invalid",
        "The authorization response was refused (an error, or a wrong state or issuer).",
      );
    }
    const tokens = await this.#grant(pending.discovered, () =>
      oauth.authorizationCodeGrantRequest(
        server,
        pending.client,
        pending.auth,
        parameters,
        this.#options.redirectUri!,
        pending.verifier,
        {
          ...oauthRequestOptions(pending.context),
          additionalParameters: { resource: pending.discovered.resource },
        },
      ), (response) => oauth.processAuthorizationCodeResponse(server, pending.client, response));
    await this.#save(pending.resource, pending.discovered, tokens, pending, {
      redirectUri: this.#options.redirectUri!,
    });
  }

  /**
   * The fetch `connect()` uses for one MCP server: the hardened fetch with the current access
   * token for the server's origin only, discovery and a new token on a 401 (once per request),
   * and `auth_insufficient_scope` for a 403 that asks for more scope.
   *
   * @param resource the MCP server's URL
   * @param transport the hardened fetch's options (the token fields are ignored)
   * @returns a function with `fetch`'s signature, and `hold()`: while held (by one holder, as
   *   `connect()` holds it for a connection's lifetime), its pinned connections stay open
   */
  fetchFor(
    resource: URL,
    transport: SecureFetchOptions,
  ): FetchFunction & { hold(): () => void } {
    const { token: _token, tokenOrigin: _origin, ...base } = transport;
    const oauthFetch = secureFetch({
      ...base,
      maxResponseBytes: Math.min(
        base.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        OAUTH_MAX_RESPONSE_BYTES,
      ),
    });
    const policy = {
      allowLoopback: base.dangerouslyAllowLoopback === true,
      resolve: base.resolve ?? runtimeResolver()?.resolve,
    };
    let cached: { token: string; fetch: SecureFetch } | undefined;
    let anonymous: SecureFetch | undefined;
    // While held, every instance in use keeps its pinned connections; a replaced one lets go.
    let holding = false;
    const releases = new Map<SecureFetch, () => void>();
    const keep = (instance: SecureFetch): SecureFetch => {
      if (holding && !releases.has(instance)) releases.set(instance, instance.hold());
      return instance;
    };
    const withToken = (token: string | undefined): FetchFunction => {
      if (token === undefined) return keep(anonymous ??= secureFetch(base));
      if (cached?.token !== token) {
        if (cached !== undefined) releases.get(cached.fetch)?.();
        if (cached !== undefined) releases.delete(cached.fetch);
        cached = { token, fetch: secureFetch({ ...base, token, tokenOrigin: resource.origin }) };
      }
      return keep(cached.fetch);
    };
    const hold = (): () => void => {
      holding = true;
      for (const instance of [oauthFetch, anonymous, cached?.fetch]) {
        if (instance !== undefined) keep(instance);
      }
      return () => {
        holding = false;
        for (const release of releases.values()) release();
        releases.clear();
      };
    };
    return Object.assign(async (input: RequestInfo | URL, init?: RequestInit) => {
      const again = input instanceof Request ? input.clone() : input;
      const signal = init?.signal ?? undefined;
      const context: DiscoveryContext = {
        fetch: oauthFetch,
        policy,
        ...(signal ? { signal } : {}),
      };
      const stored = await this.#read(tokensKey(resource));
      const used = str(stored, "access_token");
      let response = await withToken(used)(input, init);
      if (response.status === 401) {
        const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
        discard(response);
        const fresh = await this.#renew(resource, stored, used, challenge, context);
        response = await withToken(fresh)(again, init);
        if (response.status === 401) {
          discard(response);
          throw new AuthError(
            "auth_unauthorized",
            "The server refused the new access token too; sluice does not retry again.",
          );
        }
      }
      if (response.status === 403) {
        const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
        if (challenge.error === "insufficient_scope") {
          discard(response);
          this.#scopeNeeded.set(resource.href, Object.freeze([...challenge.scopes]));
          const named = challenge.scopes.length > 0 ? challenge.scopes.join(" ") : "(none named)";
          throw new AuthError(
            "auth_insufficient_scope",
            `The server needs more scope for this request: ${named}.`,
          );
        }
      }
      return response;
    }, { hold });
  }

  /** One new access token for `resource`, shared by concurrent requests that saw the same one. */
  #renew(
    resource: URL,
    stored: TokenRecord | undefined,
    used: string | undefined,
    challenge: BearerChallenge,
    context: DiscoveryContext,
  ): Promise<string> {
    const key = `${resource.href} ${used ?? ""}`;
    let renewing = this.#renewing.get(key);
    if (renewing === undefined) {
      renewing = this.#obtain(resource, stored, challenge, context).finally(() => {
        this.#renewing.delete(key);
      });
      this.#renewing.set(key, renewing);
    }
    return renewing;
  }

  async #obtain(
    resource: URL,
    stored: TokenRecord | undefined,
    challenge: BearerChallenge,
    context: DiscoveryContext,
  ): Promise<string> {
    const discovered = await discoverAuthorizationServer(resource, challenge, context);
    const refreshToken = str(stored, "refresh_token");
    if (refreshToken !== undefined && str(stored, "issuer") === discovered.issuer) {
      // A refresh token is bound to the client it was issued to: that registration, kept with
      // the tokens, refreshes it, whatever redirect URI this process was configured with.
      const client = this.#tokenClient(stored) ?? await this.#client(discovered, context);
      try {
        const tokens = await this.#grant(
          discovered,
          () =>
            oauth.refreshTokenGrantRequest(
              discovered.server,
              client.client,
              client.auth,
              refreshToken,
              {
                ...oauthRequestOptions(context),
                additionalParameters: { resource: discovered.resource },
              },
            ),
          (response) =>
            oauth.processRefreshTokenResponse(discovered.server, client.client, response),
        );
        return await this.#save(resource, discovered, tokens, client, {
          previousRefresh: refreshToken,
          redirectUri: str(stored, "redirect_uri"),
        });
      } catch (error) {
        if (!(error instanceof AuthError && error.code === "auth_token_failed")) throw error;
        await this.#store.delete(tokensKey(resource));
      }
    }
    const credentials = this.#options.clientCredentials;
    if (credentials !== undefined) {
      const { client } = this.#credentialsClient(credentials);
      const tokens = await this.#grant(
        discovered,
        () =>
          oauth.clientCredentialsGrantRequest(
            discovered.server,
            client,
            // Basic authentication would need an Authorization header, which the hardened fetch
            // never sends; the secret goes in the body to the token endpoint only.
            oauth.ClientSecretPost(credentials.clientSecret),
            {
              resource: discovered.resource,
              ...(this.#scope(discovered, challenge)
                ? { scope: this.#scope(discovered, challenge)! }
                : {}),
            },
            oauthRequestOptions(context),
          ),
        (response) => oauth.processClientCredentialsResponse(discovered.server, client, response),
      );
      // The host's own secret is not copied into the store: only the client id is kept.
      return await this.#save(resource, discovered, tokens, { client, auth: oauth.None() });
    }
    await this.#startAuthorization(resource, discovered, challenge, context);
    throw new AuthError(
      "auth_authorization_required",
      "A person must authorize this server: the authorization URL went to redirect(); " +
        "call auth.finish(callbackUrl), then connect again.",
    );
  }

  #scope(discovered: Discovered, challenge: BearerChallenge): string | undefined {
    if (this.#options.scope !== undefined) return this.#options.scope;
    if (challenge.scopes.length > 0) return challenge.scopes.join(" ");
    return discovered.scopesSupported.length > 0 ? discovered.scopesSupported.join(" ") : undefined;
  }

  /**
   * The scope of an authorization request: {@link #scope}, plus `offline_access` when the
   * authorization server lists it in `scopes_supported`. Such servers (OpenID Connect ones,
   * oidc-provider by default) issue a refresh token only for it; without one every expiry
   * would need a person again.
   */
  #authorizationScope(discovered: Discovered, challenge: BearerChallenge): string | undefined {
    const scope = this.#scope(discovered, challenge);
    if (discovered.server.scopes_supported?.includes(OFFLINE_ACCESS) !== true) return scope;
    const words = scope?.split(" ").filter((word) => word !== "") ?? [];
    return words.includes(OFFLINE_ACCESS) ? scope : [...words, OFFLINE_ACCESS].join(" ");
  }

  async #startAuthorization(
    resource: URL,
    discovered: Discovered,
    challenge: BearerChallenge,
    context: DiscoveryContext,
  ): Promise<void> {
    const { server } = discovered;
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
    const identity = await this.#client(discovered, context);
    const { client } = identity;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(server.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", client.client_id);
    url.searchParams.set("redirect_uri", this.#options.redirectUri!);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    url.searchParams.set("resource", discovered.resource);
    const scope = this.#authorizationScope(discovered, challenge);
    if (scope !== undefined) url.searchParams.set("scope", scope);
    // OpenID Connect grants offline access only with the person's explicit consent.
    if (scope?.split(" ").includes(OFFLINE_ACCESS)) url.searchParams.set("prompt", "consent");
    this.#pending.set(state, {
      ...identity,
      resource,
      discovered,
      verifier,
      context: { ...context, signal: undefined } as DiscoveryContext,
    });
    await this.#options.redirect!(url);
  }

  /** The host's machine client, authenticated with its secret in the token request body. */
  #credentialsClient(
    credentials: NonNullable<OAuthClientOptions["clientCredentials"]>,
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
  #tokenClient(stored: TokenRecord | undefined): ClientIdentity | undefined {
    const clientId = str(stored, "client_id");
    if (clientId === undefined) return undefined;
    const credentials = this.#options.clientCredentials;
    if (credentials?.clientId === clientId) return this.#credentialsClient(credentials);
    return registeredClient(clientId, str(stored, "client_secret"));
  }

  /** The client at this issuer: a client ID metadata document, a stored one, or a new registration. */
  async #client(discovered: Discovered, context: DiscoveryContext): Promise<ClientIdentity> {
    const credentials = this.#options.clientCredentials;
    if (credentials !== undefined) return this.#credentialsClient(credentials);
    const { server } = discovered;
    const metadataUrl = this.#options.clientMetadataUrl;
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
    const stored = await this.#read(clientKey(discovered.issuer));
    const storedId = str(stored, "client_id");
    if (storedId !== undefined && str(stored, "redirect_uri") === this.#options.redirectUri) {
      return registeredClient(storedId, str(stored, "client_secret"));
    }
    if (server.registration_endpoint === undefined) {
      throw new AuthError(
        "auth_registration_failed",
        "The authorization server offers neither client ID metadata documents nor registration.",
      );
    }
    const loopback = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:|\/)/.test(
      this.#options.redirectUri!,
    );
    let registered: Registered;
    try {
      const response = await oauth.dynamicClientRegistrationRequest(server, {
        client_name: this.#options.clientName ?? "sluice",
        redirect_uris: [this.#options.redirectUri!],
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
    await this.#write(clientKey(discovered.issuer), {
      client_id: registered.client_id,
      redirect_uri: this.#options.redirectUri!,
      ...(registered.client_secret !== undefined
        ? { client_secret: registered.client_secret }
        : {}),
    });
    return registeredClient(registered.client_id, registered.client_secret);
  }

  /** Sends one token request and processes it; OAuth errors become `auth_token_failed`. */
  async #grant(
    _discovered: Discovered,
    send: () => Promise<Response>,
    process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<oauth.TokenEndpointResponse> {
    try {
      return await process(await send());
    } catch (error) {
      // The transport's codes pass through whole; the body of an OAuth error (it may echo a
      // grant) is never copied.
      if (transportFailure(error)) throw transportFailure(error);
      throw new AuthError("auth_token_failed", "The token endpoint refused the grant.");
    }
  }

  /**
   * Stores a token set with the client registration that obtained it (client id, its secret
   * when it has one, the redirect URI it was registered with, the issuer): a refresh in any
   * later process presents the refresh token as that client.
   */
  async #save(
    resource: URL,
    discovered: Discovered,
    tokens: oauth.TokenEndpointResponse,
    client: ClientIdentity,
    registration: { previousRefresh?: string; redirectUri?: string | undefined } = {},
  ): Promise<string> {
    if (tokens.token_type.toLowerCase() !== "bearer") {
      throw new AuthError(
        "auth_token_failed",
        "The token endpoint issued a token that is not Bearer.",
      );
    }
    const refresh = tokens.refresh_token ?? registration.previousRefresh;
    await this.#write(tokensKey(resource), {
      issuer: discovered.issuer,
      resource: discovered.resource,
      access_token: tokens.access_token,
      refresh_token: refresh ?? null,
      expires_at: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : null,
      scope: tokens.scope ?? null,
      client_id: client.client.client_id,
      ...(client.secret !== undefined ? { client_secret: client.secret } : {}),
      redirect_uri: registration.redirectUri ?? null,
    });
    return tokens.access_token;
  }

  async #read(key: string): Promise<TokenRecord | undefined> {
    try {
      return await this.#store.get(key);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AuthError("auth_store_failed", "The token store could not be read.");
    }
  }

  async #write(key: string, record: TokenRecord): Promise<void> {
    try {
      await this.#store.set(key, record);
    } catch {
      throw new AuthError("auth_store_failed", "The token store could not be written.");
    }
  }
}
