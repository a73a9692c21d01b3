/**
 * Discovery of the authorization server for one MCP server: protected resource metadata
 * (RFC 9728), then the authorization server's metadata (RFC 8414, then OpenID discovery) with
 * the issuer check, every URL named on the way checked before it is requested.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { isRecord } from "../identity/mod.ts";
import { TransportError } from "../transport/errors.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import type { BearerChallenge } from "./challenge.ts";
import { checkEndpoint, type EndpointPolicy } from "./endpoint.ts";
import { AuthError } from "./errors.ts";

/**
 * How discovery sends its requests.
 *
 * @category OAuth
 */
export interface DiscoveryContext {
  /** The hardened fetch without any token. */
  readonly fetch: FetchFunction;
  /** The destination rules every named URL meets before it is requested. */
  readonly policy: EndpointPolicy;
  /** Aborts discovery (the call's deadline). */
  readonly signal?: AbortSignal;
  /**
   * The fetch of a request to a checked endpoint that carries a Basic client credential
   * (`client_secret_basic`), to that URL only; absent, such a request is refused.
   */
  readonly credentialed?: (endpoint: URL, basic: string) => FetchFunction;
  /**
   * The host enabled the 2025-03-26 revision: a server without protected resource metadata is
   * discovered its way (see {@link discoverAuthorizationServer}).
   */
  readonly legacyDiscovery?: boolean;
}

/**
 * What discovery found: the resource indicator, the issuer and its checked metadata.
 *
 * @category OAuth
 */
export interface Discovered {
  /** The protected resource's identifier, sent as `resource` (RFC 8707). */
  readonly resource: string;
  /** The issuer, as discovered and as the metadata confirmed. */
  readonly issuer: string;
  /** The authorization server's metadata; every endpoint URL in it passed the check. */
  readonly server: oauth.AuthorizationServer;
  /** Scopes the protected resource lists as supported. */
  readonly scopesSupported: readonly string[];
  /**
   * The protected resource takes DPoP-bound tokens (RFC 9449): its challenge was DPoP, or its
   * metadata lists `dpop_signing_alg_values_supported` or `dpop_bound_access_tokens_required`.
   */
  readonly resourceDPoP?: boolean;
}

/** The endpoint fields of authorization server metadata that are checked when present. */
const ENDPOINT_FIELDS = [
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint",
  "jwks_uri",
  "revocation_endpoint",
  "introspection_endpoint",
  "userinfo_endpoint",
  "pushed_authorization_request_endpoint",
] as const;

/**
 * The hardened fetch's own failure behind an error oauth4webapi wrapped (a byte cap or a
 * deadline while it read a body), so it keeps its transport code.
 *
 * @param error any thrown value
 *
 * @category OAuth
 */
export function transportFailure(error: unknown): TransportError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof TransportError) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * The options oauth4webapi needs to send a request through the hardened fetch.
 *
 * @category OAuth
 */
export function oauthRequestOptions(context: DiscoveryContext): {
  [oauth.customFetch]: FetchFunction;
  [oauth.allowInsecureRequests]: boolean;
  signal?: AbortSignal;
} {
  return {
    [oauth.customFetch]: context.fetch,
    // Plain http reaches only loopback, and only with the loudly named transport option: the
    // hardened fetch refuses it everywhere else.
    [oauth.allowInsecureRequests]: context.policy.allowLoopback,
    ...(context.signal ? { signal: context.signal } : {}),
  };
}

/** Checks every endpoint URL of `metadata`; a token endpoint is required. */
async function checkEndpoints(
  metadata: oauth.AuthorizationServer,
  context: DiscoveryContext,
): Promise<void> {
  for (const field of ENDPOINT_FIELDS) {
    if (metadata[field] !== undefined) {
      await checkEndpoint(metadata[field], field, context.policy, context.signal);
    }
  }
  if (metadata.token_endpoint === undefined) {
    throw new AuthError("auth_metadata_invalid", "The authorization server has no token endpoint.");
  }
}

/** Lets go of a response whose body is not read. */
export function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  if (response.status !== 200) {
    discard(response);
    throw new AuthError("auth_metadata_invalid", `The ${what} request did not answer 200.`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    // The byte cap and the deadline are the transport's own failures.
    if (transportFailure(error)) throw transportFailure(error);
    throw new AuthError("auth_metadata_invalid", `The ${what} is not JSON.`);
  }
  if (!isRecord(body)) {
    throw new AuthError("auth_metadata_invalid", `The ${what} is not an object.`);
  }
  return body;
}

function wellKnownResourceMetadata(resource: URL): URL[] {
  const path = resource.pathname === "/" ? "" : resource.pathname.replace(/\/$/, "");
  const base = `${resource.origin}/.well-known/oauth-protected-resource`;
  return path === "" ? [new URL(base)] : [new URL(base + path), new URL(base)];
}

/**
 * The protected resource metadata, or `undefined` when the host enabled 2025-03-26 discovery,
 * the challenge named no document and every well-known location answered 404.
 */
async function protectedResourceMetadata(
  resource: URL,
  challenge: BearerChallenge,
  context: DiscoveryContext,
): Promise<Record<string, unknown> | undefined> {
  const named = challenge.resourceMetadata !== undefined;
  const candidates = named
    ? [await checkEndpoint(challenge.resourceMetadata, "resource_metadata", context.policy)]
    : wellKnownResourceMetadata(resource);
  for (const [index, url] of candidates.entries()) {
    const response = await context.fetch(url, context.signal ? { signal: context.signal } : {});
    const last = index === candidates.length - 1;
    if (response.status === 404 && (!last || (!named && context.legacyDiscovery === true))) {
      discard(response);
      if (last) return undefined;
      continue;
    }
    return await readJson(response, "protected resource metadata");
  }
  throw new AuthError("auth_metadata_invalid", "No protected resource metadata was found.");
}

/** Whether `named` identifies `resource`: same origin, and a path that is a prefix of it. */
function identifies(named: URL, resource: URL): boolean {
  if (named.origin !== resource.origin || named.search !== "" || named.hash !== "") return false;
  const prefix = named.pathname.replace(/\/$/, "");
  return resource.pathname === prefix || resource.pathname.startsWith(`${prefix}/`) ||
    prefix === "";
}

/**
 * The authorization server's metadata at `issuer` (RFC 8414, then OpenID discovery), its
 * `issuer` checked to be `issuer`. With `legacyOrigin` (2025-03-26 discovery: `issuer` is the
 * MCP server's origin), RFC 8414 only, and `undefined` for a 404; the document then vouches for
 * an `issuer` on that origin only, as it is that origin's own.
 */
async function authorizationServerMetadata(
  issuer: URL,
  context: DiscoveryContext,
  legacyOrigin?: string,
): Promise<oauth.AuthorizationServer | undefined> {
  const options = {
    ...oauthRequestOptions(context),
    ...(legacyOrigin !== undefined ? { headers: { "mcp-protocol-version": "2025-03-26" } } : {}),
  };
  // RFC 8414 first; OpenID discovery when the server does not serve it.
  for (const algorithm of ["oauth2", "oidc"] as const) {
    const response = await oauth.discoveryRequest(issuer, { ...options, algorithm });
    if (response.status === 404 && (algorithm === "oauth2" || legacyOrigin !== undefined)) {
      discard(response);
      if (legacyOrigin !== undefined) return undefined;
      continue;
    }
    // Read the body here, so the byte cap and the deadline fail with the transport's code.
    const body = await response.arrayBuffer();
    const buffered = new Response(body, { status: response.status, headers: response.headers });
    try {
      const expected = legacyOrigin === undefined ? issuer : legacyIssuer(body, legacyOrigin);
      return await oauth.processDiscoveryResponse(expected, buffered);
    } catch (error) {
      if (transportFailure(error)) throw transportFailure(error);
      if (
        error instanceof oauth.OperationProcessingError &&
        error.code === oauth.JSON_ATTRIBUTE_COMPARISON
      ) {
        throw new AuthError(
          "auth_issuer_mismatch",
          "The authorization server metadata names another issuer than the one discovered.",
        );
      }
      throw new AuthError("auth_metadata_invalid", "The authorization server metadata is invalid.");
    }
  }
  throw new AuthError("auth_metadata_invalid", "No authorization server metadata was found.");
}

/** The `issuer` a 2025-03-26 metadata document names, when it is on `origin`; else `origin`. */
function legacyIssuer(body: ArrayBuffer, origin: string): URL {
  try {
    const issuer = (JSON.parse(new TextDecoder().decode(body)) as { issuer?: unknown }).issuer;
    if (typeof issuer === "string" && URL.canParse(issuer) && new URL(issuer).origin === origin) {
      return new URL(issuer);
    }
  } catch { /* processDiscoveryResponse reports it */ }
  return new URL(origin);
}

/**
 * 2025-03-26 discovery, for a server without protected resource metadata: the authorization
 * server's metadata at the MCP server's origin, or without one (404) that revision's default
 * endpoints there (`/authorize`, `/token`, `/register`).
 */
async function legacyAuthorizationServer(
  resource: URL,
  context: DiscoveryContext,
): Promise<oauth.AuthorizationServer> {
  const origin = resource.origin;
  const metadata = await authorizationServerMetadata(new URL(origin), context, origin);
  if (metadata !== undefined) return metadata;
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    // The revision requires PKCE S256 of every client and server.
    code_challenge_methods_supported: ["S256"],
  };
}

/**
 * The checked metadata of an authorization server the host names by its issuer (an
 * enterprise identity provider): the issuer URL checked like any named URL, its metadata's
 * `issuer` compared, every endpoint checked.
 *
 * @param issuer the issuer as the host gave it
 * @param field the option that named it, for the message
 * @throws {AuthError} `auth_metadata_refused`, `auth_metadata_invalid`, `auth_issuer_mismatch`
 *
 * @category OAuth
 */
export async function discoverIssuer(
  issuer: string,
  field: string,
  context: DiscoveryContext,
): Promise<oauth.AuthorizationServer> {
  const url = await checkEndpoint(issuer, field, context.policy, context.signal);
  const metadata = (await authorizationServerMetadata(url, context))!;
  await checkEndpoints(metadata, context);
  return metadata;
}

/**
 * Finds and checks the authorization server of `resource`. Every URL a document names is
 * checked (scheme, literal, name, resolved addresses) before it is requested or kept. Where
 * the host enabled 2025-03-26 (`legacyDiscovery`) and the server has no protected resource
 * metadata, that revision's discovery runs instead, under the same checks.
 *
 * @param resource the MCP server's URL
 * @param challenge the server's 401 challenge (may name the metadata URL)
 * @param context the hardened fetch, the destination rules and the signal
 * @returns the resource indicator, the issuer and its metadata
 * @throws {AuthError} `auth_metadata_refused`, `auth_metadata_invalid`, `auth_issuer_mismatch`
 *
 * @category OAuth
 */
export async function discoverAuthorizationServer(
  resource: URL,
  challenge: BearerChallenge,
  context: DiscoveryContext,
): Promise<Discovered> {
  const document = await protectedResourceMetadata(resource, challenge, context);
  if (document === undefined) {
    const metadata = await legacyAuthorizationServer(resource, context);
    await checkEndpoints(metadata, context);
    return {
      resource: resource.href,
      issuer: metadata.issuer,
      server: metadata,
      scopesSupported: [],
      resourceDPoP: challenge.dpop === true,
    };
  }
  if (typeof document.resource !== "string" || !URL.canParse(document.resource)) {
    throw new AuthError(
      "auth_metadata_invalid",
      "The protected resource metadata has no resource.",
    );
  }
  if (!identifies(new URL(document.resource), resource)) {
    throw new AuthError(
      "auth_metadata_invalid",
      "The protected resource metadata names another resource than the MCP server.",
    );
  }
  const servers = document.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw new AuthError(
      "auth_metadata_invalid",
      "The protected resource metadata names no authorization server.",
    );
  }
  // Every listed server is checked, not only the one used: a document naming a private
  // address anywhere is refused whole.
  const issuers: URL[] = [];
  for (const server of servers) {
    issuers.push(await checkEndpoint(server, "authorization_servers", context.policy));
  }
  const issuer = issuers[0]!;
  const metadata = (await authorizationServerMetadata(issuer, context))!;
  await checkEndpoints(metadata, context);
  const scopes = Array.isArray(document.scopes_supported)
    ? document.scopes_supported.filter((scope): scope is string =>
      typeof scope === "string" && /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(scope)
    )
    : [];
  return {
    resource: document.resource,
    issuer: metadata.issuer,
    server: metadata,
    scopesSupported: scopes,
    resourceDPoP: challenge.dpop === true ||
      Array.isArray(document.dpop_signing_alg_values_supported) ||
      document.dpop_bound_access_tokens_required === true,
  };
}
