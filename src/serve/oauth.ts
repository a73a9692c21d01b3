/**
 * `sluice serve` as an OAuth 2.1 protected resource: JWT access tokens (RFC 9068) checked
 * against the configured issuer's keys (JWKS), issuer, audience, expiry and required scopes;
 * the client is the token's `client_id` (else `azp`), and only configured clients are served,
 * each with its own allowlist. The protected resource metadata (RFC 9728) names the
 * authorization server, and every 401 points to it in `WWW-Authenticate`.
 *
 * @module
 */
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { loadOptional } from "../optional_packages.ts";
import type { ServeClient } from "./clients.ts";
import { checkedAllow, checkedName } from "./client_checks.ts";
import { ServeError } from "./errors.ts";

/**
 * One OAuth client that may call, by the `client_id` its access tokens carry.
 *
 * @category sluice serve
 */
export interface ServeOAuthClient {
  /** The `client_id` claim of its tokens (`azp` when a token has no `client_id`). */
  readonly clientId: string;
  /** Its name in events and run ids (default `clientId`); 1 to 64 of `[A-Za-z0-9_.-]`. */
  readonly name?: string;
  /** The served tools it may see and call (local names); absent: every served tool. */
  readonly allow?: readonly string[];
}

/**
 * The protected-resource settings of {@link serveToolkit}.
 *
 * @category sluice serve
 */
export interface ServeOAuth {
  /** The authorization server's issuer identifier: a token's `iss` must equal it. */
  readonly issuer: string;
  /** This endpoint's resource identifier (its URL, as clients name it in `resource=`). */
  readonly resource: string;
  /** A token's `aud` must contain it; default `resource`. */
  readonly audience?: string;
  /**
   * The issuer's JWKS URL; default the `jwks_uri` of its metadata
   * (`/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`),
   * read once when the endpoint is built.
   */
  readonly jwksUri?: string;
  /** Scopes every token must hold (each one); default none. Listed in the metadata. */
  readonly requiredScopes?: readonly string[];
  /** The clients that may call. A valid token of another client is refused 403. */
  readonly clients: readonly ServeOAuthClient[];
  /** The fetch used for the issuer's metadata and keys (default `globalThis.fetch`). */
  readonly fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
}

/** What a request's bearer token proves. */
export type TokenVerdict =
  | { readonly kind: "client"; readonly client: ServeClient }
  | { readonly kind: "invalid" }
  | { readonly kind: "forbidden"; readonly scope?: string };

const joseModule = () => loadOptional("jose", () => import("jose"));

/**
 * A configured protected resource: checks tokens, serves the metadata, writes challenges.
 *
 * @category sluice serve
 */
export class OAuthResource {
  readonly #options: ServeOAuth;
  readonly #keys: JWTVerifyGetKey;
  readonly #jose: typeof import("jose");
  readonly #clients: ReadonlyMap<string, ServeClient>;
  /** Where the metadata is served (path-inserted, RFC 9728 section 3.1). */
  readonly metadataUrl: URL;

  private constructor(
    options: ServeOAuth,
    jose: typeof import("jose"),
    keys: JWTVerifyGetKey,
    clients: ReadonlyMap<string, ServeClient>,
  ) {
    this.#options = options;
    this.#jose = jose;
    this.#keys = keys;
    this.#clients = clients;
    const resource = new URL(options.resource);
    const path = resource.pathname === "/" ? "" : resource.pathname;
    this.metadataUrl = new URL(`/.well-known/oauth-protected-resource${path}`, resource);
  }

  /**
   * Checks the settings and finds the issuer's keys; throws `serve_config_invalid` for bad
   * settings and `serve_oauth_unavailable` when the issuer's metadata cannot be read.
   *
   * @param options the protected-resource settings
   * @param taken client names already used by bearer-token clients
   */
  static async of(options: ServeOAuth, taken: ReadonlySet<string>): Promise<OAuthResource> {
    if (typeof options !== "object" || options === null) throw invalid("oauth must be an object");
    urlOf(options.issuer, "oauth.issuer");
    urlOf(options.resource, "oauth.resource");
    if (options.jwksUri !== undefined) urlOf(options.jwksUri, "oauth.jwksUri");
    const clients = oauthClients(options.clients, taken);
    for (const scope of options.requiredScopes ?? []) {
      if (typeof scope !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
        throw invalid("oauth.requiredScopes holds an entry that is not a scope token");
      }
    }
    const jose = await joseModule();
    const fetch = options.fetch ?? globalThis.fetch;
    const jwks = options.jwksUri ?? await discoverJwks(options.issuer, fetch);
    const keys = jose.createRemoteJWKSet(new URL(jwks), {
      [jose.customFetch]: (url: string, init: RequestInit) => fetch(url, init),
    });
    return new OAuthResource(options, jose, keys, clients);
  }

  /** The clients, for the governed server. */
  get clients(): readonly ServeClient[] {
    return [...this.#clients.values()];
  }

  /**
   * What `token` proves: a configured client, an invalid token (bad signature, issuer,
   * audience, expiry), or a valid token of a client not configured or without a required scope.
   *
   * @param token the bearer token presented
   */
  async verify(token: string): Promise<TokenVerdict> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await this.#jose.jwtVerify(token, this.#keys, {
        issuer: this.#options.issuer,
        audience: this.#options.audience ?? this.#options.resource,
        clockTolerance: 5,
      }));
    } catch {
      return { kind: "invalid" };
    }
    const held = new Set(typeof claims.scope === "string" ? claims.scope.split(" ") : []);
    const missing = (this.#options.requiredScopes ?? []).filter((scope) => !held.has(scope));
    if (missing.length > 0) return { kind: "forbidden", scope: missing.join(" ") };
    const id = typeof claims.client_id === "string"
      ? claims.client_id
      : typeof claims.azp === "string"
      ? claims.azp
      : undefined;
    const client = id === undefined ? undefined : this.#clients.get(id);
    return client === undefined ? { kind: "forbidden" } : { kind: "client", client };
  }

  /**
   * The `WWW-Authenticate` value of a refusal.
   *
   * @param error `invalid_token`, `insufficient_scope`, or none (no token presented)
   * @param scope the scopes a 403 asks for
   */
  challenge(error?: "invalid_token" | "insufficient_scope", scope?: string): string {
    const parts = [`resource_metadata="${this.metadataUrl.href}"`];
    if (error !== undefined) parts.push(`error="${error}"`);
    const wanted = scope ?? this.#options.requiredScopes?.join(" ");
    if (wanted) parts.push(`scope="${wanted}"`);
    return `Bearer ${parts.join(", ")}`;
  }

  /**
   * The protected resource metadata for a `GET` of its well-known path (the path-inserted one
   * or the root one), else `undefined`.
   *
   * @param request any request
   */
  metadata(request: Request): Response | undefined {
    if (request.method !== "GET") return undefined;
    const path = new URL(request.url).pathname;
    if (
      path !== this.metadataUrl.pathname && path !== "/.well-known/oauth-protected-resource"
    ) return undefined;
    const scopes = this.#options.requiredScopes;
    const body = {
      resource: this.#options.resource,
      authorization_servers: [this.#options.issuer],
      bearer_methods_supported: ["header"],
      ...(scopes && scopes.length > 0 ? { scopes_supported: [...scopes] } : {}),
    };
    return new Response(JSON.stringify(body), {
      headers: {
        "content-type": "application/json",
        "access-control-allow-origin": "*",
        "cache-control": "max-age=300",
      },
    });
  }
}

/** The issuer's `jwks_uri`, from its metadata (whose `issuer` must be the one configured). */
async function discoverJwks(issuer: string, fetch: NonNullable<ServeOAuth["fetch"]>) {
  const base = new URL(issuer);
  const path = base.pathname === "/" ? "" : base.pathname;
  for (const wellKnown of ["oauth-authorization-server", "openid-configuration"]) {
    try {
      const response = await fetch(new URL(`/.well-known/${wellKnown}${path}`, base), {
        headers: { accept: "application/json" },
        redirect: "error",
      });
      if (!response.ok) {
        await response.body?.cancel();
        continue;
      }
      const metadata = await response.json() as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer === issuer && typeof metadata.jwks_uri === "string") {
        return urlOf(metadata.jwks_uri, "the issuer's jwks_uri").href;
      }
    } catch {
      // The next well-known path, then the refusal below.
    }
  }
  throw new ServeError(
    "serve_oauth_unavailable",
    "sluice serve: the issuer's metadata (with its own issuer and a jwks_uri) could not be read; " +
      "give oauth.jwksUri or check oauth.issuer",
  );
}

function oauthClients(
  clients: readonly ServeOAuthClient[],
  taken: ReadonlySet<string>,
): Map<string, ServeClient> {
  if (!Array.isArray(clients) || clients.length === 0) {
    throw invalid(
      "oauth.clients: give at least one client (clientId): nobody could call otherwise",
    );
  }
  const byId = new Map<string, ServeClient>();
  const names = new Set(taken);
  for (const [index, entry] of clients.entries()) {
    const where = `oauth.clients[${index}]`;
    if (typeof entry?.clientId !== "string" || entry.clientId.length === 0) {
      throw invalid(`${where}.clientId must be a non-empty string`);
    }
    if (byId.has(entry.clientId)) throw invalid(`${where}.clientId is repeated`);
    const name = checkedName(entry.name ?? entry.clientId, where);
    if (names.has(name)) throw invalid(`${where}: the name "${name}" is another client's`);
    names.add(name);
    const allow = checkedAllow(entry.allow, where);
    byId.set(
      entry.clientId,
      Object.freeze({ name, token: "", ...(allow === undefined ? {} : { allow }) }),
    );
  }
  return byId;
}

function urlOf(value: unknown, what: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw invalid(`${what} must be a URL`);
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (
    typeof value !== "string" ||
    !(url.protocol === "https:" || (loopback && url.protocol === "http:"))
  ) {
    throw invalid(`${what} must be an https URL (http only on loopback)`);
  }
  return url;
}

function invalid(message: string): ServeError {
  return new ServeError("serve_config_invalid", `sluice serve: ${message}`);
}
