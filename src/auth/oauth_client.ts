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
  secureFetch,
  type SecureFetchOptions,
} from "../transport/secure_fetch.ts";
import { type BearerChallenge, parseBearerChallenge } from "./challenge.ts";
import { checkPreRegistered, endpointFetch, type PreRegisteredClient } from "./client_auth.ts";
import {
  authenticated,
  clientAtIssuer,
  type ClientIdentity,
  preRegisteredAt,
  preRegisteredClient,
  requestTokens,
  storedClient,
  tokenClient,
} from "./client_identity.ts";
import {
  discard,
  discoverAuthorizationServer,
  type Discovered,
  type DiscoveryContext,
} from "./discovery.ts";
import { assertionGrantTokens, checkAssertionGrant } from "./assertion_grants.ts";
import { AuthError } from "./errors.ts";
import { checkProfiles } from "./provider_profile.ts";
import { checkDPoPSetting, DPoPKey, proofRequest } from "./dpop.ts";
import type { OAuthClientOptions } from "./oauth_options.ts";
import { authorizationScope, requestParameters, requestScope } from "./request_scope.ts";
import { authorizationUrl, checkAuthorizationEndpoint } from "./authorization_url.ts";
import { TokenFetches } from "./token_fetches.ts";
import {
  type IssuedToken,
  readRecord,
  saveTokens,
  storedBinding,
  str,
  tokensKey,
} from "./token_records.ts";
import { MemoryTokenStore, type TokenRecord, type TokenStore } from "./token_store.ts";

/**
 * Byte cap on every OAuth response (metadata, registration, tokens): 64 KiB at most.
 *
 * @category OAuth
 */
export const OAUTH_MAX_RESPONSE_BYTES = 64 * 1024;

/** A person's authorization in progress, kept in this process only. */
interface Pending extends ClientIdentity {
  readonly resource: URL;
  readonly discovered: Discovered;
  readonly verifier: string;
  readonly context: DiscoveryContext;
}

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
  readonly #renewing = new Map<string, Promise<IssuedToken>>();
  readonly #dpop: DPoPKey;
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
    if (
      !code && options.clientCredentials === undefined && options.assertionGrant === undefined
    ) {
      throw new AuthError(
        "auth_config_invalid",
        "Give clientCredentials, assertionGrant, or redirectUri and redirect for the " +
          "authorization code flow.",
      );
    }
    if (options.assertionGrant !== undefined) checkAssertionGrant(options.assertionGrant);
    if (options.clientCredentials !== undefined) {
      checkPreRegistered(options.clientCredentials, "clientCredentials");
    }
    if (options.clients !== undefined && !Array.isArray(options.clients)) {
      throw new AuthError("auth_config_invalid", "clients must be an array.");
    }
    for (const [index, client] of (options.clients ?? []).entries()) {
      checkPreRegistered(client, `clients[${index}]`);
    }
    checkProfiles(options.profiles);
    checkDPoPSetting(options.dpop);
    this.#dpop = new DPoPKey(options.dpop);
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
    const proof = await this.#proof(pending.discovered);
    const sent = await authenticated(pending, pending.discovered, pending.context, proof.handle);
    const tokens = await requestTokens(() =>
      oauth.authorizationCodeGrantRequest(
        server,
        sent.client,
        sent.auth,
        parameters,
        this.#options.redirectUri!,
        pending.verifier,
        {
          ...sent.options,
          additionalParameters: requestParameters(this.#options, pending.discovered),
        },
      ), (response) => oauth.processAuthorizationCodeResponse(server, sent.client, response));
    await saveTokens(
      this.#store,
      pending.resource,
      pending.discovered,
      tokens,
      storedClient(pending),
      {
        redirectUri: this.#options.redirectUri!,
        dpopJkt: proof.jkt,
        requireBound: this.#dpop.required,
      },
    );
  }

  /**
   * The fetch `connect()` uses for one MCP server: the hardened fetch with the current access
   * token for the server's origin only, discovery and a new token on a 401 (once per request),
   * and `auth_insufficient_scope` for a 403 that asks for more scope.
   *
   * @param resource the MCP server's URL
   * @param transport the hardened fetch's options (the token fields are ignored)
   * @param discovery `legacyDiscovery: true` where the host enabled the 2025-03-26 revision
   *   (`connect()` sets it from `legacyProtocolVersions`): a server without protected resource
   *   metadata is then discovered that revision's way, under the same URL checks
   * @returns a function with `fetch`'s signature, and `hold()`: while held (by one holder, as
   *   `connect()` holds it for a connection's lifetime), its pinned connections stay open
   */
  fetchFor(
    resource: URL,
    transport: SecureFetchOptions,
    discovery: { readonly legacyDiscovery?: boolean } = {},
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
    const fetches = new TokenFetches(base, resource.origin, oauthFetch);
    const oauthContext: DiscoveryContext = {
      fetch: oauthFetch,
      policy,
      legacyDiscovery: discovery.legacyDiscovery === true,
      credentialed: (endpoint, basic) =>
        endpointFetch(
          { ...base, maxResponseBytes: oauthFetch.describe().maxResponseBytes },
          endpoint,
          basic,
        ),
    };
    return Object.assign(
      (input: RequestInfo | URL, init?: RequestInit) =>
        this.#send(resource, fetches, oauthContext, input, init),
      { hold: () => fetches.hold() },
    );
  }

  /**
   * One request to the MCP server with the stored access token; on a 401 a new token (once),
   * on a 403 `insufficient_scope` the scopes asked for are kept and the request ends.
   */
  async #send(
    resource: URL,
    fetches: TokenFetches,
    oauthContext: DiscoveryContext,
    input: RequestInfo | URL,
    init: RequestInit | undefined,
  ): Promise<Response> {
    const again = input instanceof Request ? input.clone() : input;
    const signal = init?.signal ?? undefined;
    const context: DiscoveryContext = { ...oauthContext, ...(signal ? { signal } : {}) };
    const stored = await readRecord(this.#store, tokensKey(resource));
    const binding = storedBinding(stored);
    // A token bound to another key (one another process generated) cannot be presented.
    const usable = binding === undefined || binding === await this.#dpop.thumbprint();
    const used = usable ? str(stored, "access_token") : undefined;
    const issued = used === undefined ? undefined : { token: used, bound: binding !== undefined };
    let response = await this.#present(fetches, issued)(input, init);
    if (response.status === 401) {
      const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
      discard(response);
      const fresh = await this.#renew(resource, stored, used, challenge, context);
      response = await this.#present(fetches, fresh)(again, init);
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
  }

  /**
   * The fetch that presents `issued`: as a Bearer token, or a DPoP-bound one with a fresh
   * proof per request (never as Bearer).
   */
  #present(fetches: TokenFetches, issued: IssuedToken | undefined): FetchFunction {
    if (issued === undefined || !issued.bound) return fetches.withToken(issued?.token);
    const fetch = fetches.withToken(issued.token, "DPoP");
    return async (input, init) =>
      proofRequest((await this.#dpop.key()).handle, fetch, issued.token, input, init);
  }

  /**
   * The DPoP handle and key thumbprint of a token request to `discovered`, when it carries a
   * proof: where DPoP applies, and always for a bound token's refresh.
   */
  async #proof(
    discovered: Discovered,
    bound = false,
  ): Promise<{ handle?: oauth.DPoPHandle; jkt?: string }> {
    if (!bound && !this.#dpop.uses(discovered)) return {};
    return await this.#dpop.key();
  }

  /** One new access token for `resource`, shared by concurrent requests that saw the same one. */
  #renew(
    resource: URL,
    stored: TokenRecord | undefined,
    used: string | undefined,
    challenge: BearerChallenge,
    context: DiscoveryContext,
  ): Promise<IssuedToken> {
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
  ): Promise<IssuedToken> {
    const discovered = await discoverAuthorizationServer(resource, challenge, context);
    const refreshToken = str(stored, "refresh_token");
    const binding = storedBinding(stored);
    // A bound refresh token (RFC 9449 §5) is refreshed with its own key or not at all.
    const keyHeld = binding === undefined || binding === await this.#dpop.thumbprint();
    if (refreshToken !== undefined && str(stored, "issuer") === discovered.issuer && !keyHeld) {
      await this.#store.delete(tokensKey(resource));
    } else if (refreshToken !== undefined && str(stored, "issuer") === discovered.issuer) {
      // A refresh token is bound to the client it was issued to: that registration, kept with
      // the tokens, refreshes it, whatever redirect URI this process was configured with.
      const client = tokenClient(this.#options, stored) ??
        await clientAtIssuer(this.#options, this.#store, discovered, context);
      try {
        const proof = await this.#proof(discovered, binding !== undefined);
        const sent = await authenticated(client, discovered, context, proof.handle);
        const tokens = await requestTokens(
          () =>
            oauth.refreshTokenGrantRequest(
              discovered.server,
              sent.client,
              sent.auth,
              refreshToken,
              {
                ...sent.options,
                additionalParameters: requestParameters(this.#options, discovered),
              },
            ),
          (response) => oauth.processRefreshTokenResponse(discovered.server, sent.client, response),
        );
        return await saveTokens(this.#store, resource, discovered, tokens, storedClient(client), {
          previousRefresh: refreshToken,
          redirectUri: str(stored, "redirect_uri"),
          dpopJkt: proof.jkt,
          requireBound: this.#dpop.required || binding !== undefined,
        });
      } catch (error) {
        if (!(error instanceof AuthError && error.code === "auth_token_failed")) throw error;
        await this.#store.delete(tokensKey(resource));
      }
    }
    const proof = await this.#proof(discovered);
    const bindingOf = { dpopJkt: proof.jkt, requireBound: this.#dpop.required };
    if (this.#options.assertionGrant !== undefined) {
      const own = this.#ownClient(discovered);
      const tokens = await assertionGrantTokens(
        this.#options.assertionGrant,
        preRegisteredClient(own),
        discovered,
        requestParameters(this.#options, discovered),
        requestScope(this.#options, discovered, challenge),
        context,
        proof.handle,
      );
      return await saveTokens(this.#store, resource, discovered, tokens, {
        client: { client_id: own.clientId },
      }, bindingOf);
    }
    if (this.#options.clientCredentials !== undefined) {
      const own = this.#ownClient(discovered);
      const sent = await authenticated(
        preRegisteredClient(own),
        discovered,
        context,
        proof.handle,
      );
      const tokens = await requestTokens(
        () =>
          oauth.clientCredentialsGrantRequest(
            discovered.server,
            sent.client,
            sent.auth,
            {
              ...requestParameters(this.#options, discovered),
              ...(requestScope(this.#options, discovered, challenge)
                ? { scope: requestScope(this.#options, discovered, challenge)! }
                : {}),
            },
            sent.options,
          ),
        (response) =>
          oauth.processClientCredentialsResponse(discovered.server, sent.client, response),
      );
      // The host's own secret or key is not copied into the store: only the client id is kept.
      return await saveTokens(this.#store, resource, discovered, tokens, {
        client: { client_id: own.clientId },
      }, bindingOf);
    }
    await this.#startAuthorization(resource, discovered, challenge, context);
    throw new AuthError(
      "auth_authorization_required",
      "A person must authorize this server: the authorization URL went to redirect(); " +
        "call auth.finish(callbackUrl), then connect again.",
    );
  }

  /** The host's client at `discovered`'s issuer, which the machine flows need. */
  #ownClient(discovered: Discovered): PreRegisteredClient {
    const own = preRegisteredAt(this.#options, discovered.issuer);
    if (own === undefined) {
      throw new AuthError(
        "auth_config_invalid",
        "No client is registered for this authorization server's issuer.",
      );
    }
    return own;
  }

  async #startAuthorization(
    resource: URL,
    discovered: Discovered,
    challenge: BearerChallenge,
    context: DiscoveryContext,
  ): Promise<void> {
    checkAuthorizationEndpoint(discovered.server);
    const identity = await clientAtIssuer(this.#options, this.#store, discovered, context);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = await authorizationUrl({
      server: discovered.server,
      clientId: identity.client.client_id,
      redirectUri: this.#options.redirectUri!,
      verifier,
      state,
      parameters: requestParameters(this.#options, discovered),
      scope: authorizationScope(this.#options, discovered, challenge),
      // RFC 9449 §10: the code is bound to the key the token request will prove.
      dpopJkt: (await this.#proof(discovered)).jkt,
    });
    this.#pending.set(state, {
      ...identity,
      resource,
      discovered,
      verifier,
      context: { ...context, signal: undefined } as DiscoveryContext,
    });
    await this.#options.redirect!(url);
  }
}
