/**
 * How `OAuthClient` authenticates a client at the token endpoint: the four methods, the order
 * one is chosen in, the host's private key made a signing key, and the one fetch that may carry
 * client credentials in `Authorization` (HTTP Basic), to the checked endpoint's exact URL only.
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { secureFetch, type SecureFetchOptions } from "../transport/secure_fetch.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import { AuthError } from "./errors.ts";

/**
 * A token endpoint authentication method (RFC 7591 §2 names): HTTP Basic with the secret,
 * the secret in the request body, a JWT assertion signed with the client's private key
 * (RFC 7523), or a public client.
 *
 * @category OAuth
 */
export type ClientAuthMethod =
  | "private_key_jwt"
  | "client_secret_basic"
  | "client_secret_post"
  | "none";

/**
 * The order a method is chosen in, among those the server advertises that the client has the
 * credentials for: an asymmetric key first (its secret never leaves the host), then the secret
 * the RFC 6749 way (Basic, which every server must accept), then in the body, then none.
 *
 * @category OAuth
 */
export const CLIENT_AUTH_PREFERENCE: readonly ClientAuthMethod[] = Object.freeze([
  "private_key_jwt",
  "client_secret_basic",
  "client_secret_post",
  "none",
]);

/**
 * A client registered at an authorization server out of band (its administrator's console):
 * no dynamic registration and no client ID metadata document is used where it applies.
 *
 * @category OAuth
 */
export interface PreRegisteredClient {
  /** The `client_id` the authorization server issued. */
  readonly clientId: string;
  /** The client secret, for `client_secret_basic` or `client_secret_post`. */
  readonly clientSecret?: string;
  /**
   * The private key of `private_key_jwt`: a WebCrypto `CryptoKey` (type `private`, usage
   * `sign`), or a private JWK (EC P-256/384/521, RSA, Ed25519), imported non-extractable. Only
   * the signed assertion is ever sent; sluice never reads a key from the environment.
   */
  readonly privateKey?: CryptoKey | JsonWebKey;
  /** The `kid` put in the assertion's header. Default: the JWK's own `kid`, if any. */
  readonly keyId?: string;
  /**
   * The method the client was registered with. Default: chosen from the server's
   * `token_endpoint_auth_methods_supported` in {@link CLIENT_AUTH_PREFERENCE} order, among the
   * methods this client has credentials for (RFC 8414: a server that lists none takes
   * `client_secret_basic`).
   */
  readonly authMethod?: ClientAuthMethod;
  /**
   * The issuer this client is registered at (the authorization server metadata's `issuer`,
   * exactly). Omitted, the client is used at whatever authorization server an MCP server names,
   * and a secret goes there: give `issuer` wherever a secret is involved.
   */
  readonly issuer?: string;
}

const trimSlash = (value: string): string => value.replace(/\/$/, "");

/**
 * The entry of `candidates` for `issuer`: the one naming that issuer (a trailing slash aside),
 * else the first naming none.
 */
export function forIssuer<T extends { readonly issuer?: string }>(
  candidates: readonly T[],
  issuer: string,
): T | undefined {
  return candidates.find((entry) =>
    entry.issuer !== undefined && trimSlash(entry.issuer) === trimSlash(issuer)
  ) ?? candidates.find((entry) => entry.issuer === undefined);
}

/** What credentials a client has, and the method it was registered with if known. */
export interface ClientCredentialSet {
  /** The client secret. */
  readonly secret?: string;
  /** The `private_key_jwt` key, as the host gave it. */
  readonly privateKey?: CryptoKey | JsonWebKey;
  /** The assertion header's `kid`. */
  readonly keyId?: string;
  /** The method registered, when known: then it is the one used. */
  readonly method?: ClientAuthMethod;
}

const METHODS: ReadonlySet<string> = new Set(CLIENT_AUTH_PREFERENCE);

/** Whether `value` is one of the four methods. */
export function isClientAuthMethod(value: unknown): value is ClientAuthMethod {
  return typeof value === "string" && METHODS.has(value);
}

function usable(method: ClientAuthMethod, credentials: ClientCredentialSet): boolean {
  if (method === "private_key_jwt") return credentials.privateKey !== undefined;
  if (method === "none") return credentials.secret === undefined && !credentials.privateKey;
  return credentials.secret !== undefined;
}

/**
 * Checks a pre-registered client as the host gave it (before any request).
 *
 * @throws {AuthError} `auth_config_invalid`
 */
export function checkPreRegistered(client: PreRegisteredClient, where: string): void {
  const invalid = (why: string) => new AuthError("auth_config_invalid", `${where}: ${why}`);
  if (typeof client?.clientId !== "string" || client.clientId === "") {
    throw invalid("clientId must be a non-empty string.");
  }
  if (client.clientSecret !== undefined && typeof client.clientSecret !== "string") {
    throw invalid("clientSecret must be a string.");
  }
  const key = client.privateKey;
  if (key !== undefined) {
    const isCryptoKey = typeof CryptoKey !== "undefined" && key instanceof CryptoKey;
    if (isCryptoKey ? key.type !== "private" : typeof (key as JsonWebKey).d !== "string") {
      throw invalid("privateKey must be a private CryptoKey or a private JWK.");
    }
  }
  if (client.authMethod !== undefined) {
    if (!isClientAuthMethod(client.authMethod)) throw invalid("authMethod is not known.");
    if (!usable(client.authMethod, credentialsOf(client)) && client.authMethod !== "none") {
      throw invalid(`authMethod ${client.authMethod} needs its credential.`);
    }
  }
  if (client.issuer !== undefined && !URL.canParse(client.issuer)) {
    throw invalid("issuer must be a URL.");
  }
}

/** A pre-registered client's credentials. */
export function credentialsOf(client: PreRegisteredClient): ClientCredentialSet {
  return {
    ...(client.clientSecret !== undefined ? { secret: client.clientSecret } : {}),
    ...(client.privateKey !== undefined ? { privateKey: client.privateKey } : {}),
    ...(client.keyId !== undefined ? { keyId: client.keyId } : {}),
    ...(client.authMethod !== undefined ? { method: client.authMethod } : {}),
  };
}

/**
 * The method to authenticate with: the registered one when known, else the first of
 * {@link CLIENT_AUTH_PREFERENCE} the server advertises and the client has credentials for.
 *
 * @throws {AuthError} `auth_client_auth_unsupported`
 */
export function chooseMethod(
  credentials: ClientCredentialSet,
  server: oauth.AuthorizationServer,
): ClientAuthMethod {
  if (credentials.method !== undefined) return credentials.method;
  const advertised = server.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  const method = CLIENT_AUTH_PREFERENCE.find((candidate) =>
    advertised.includes(candidate) && usable(candidate, credentials)
  );
  if (method === undefined) {
    throw new AuthError(
      "auth_client_auth_unsupported",
      "The authorization server advertises no token endpoint authentication method this " +
        "client has credentials for.",
    );
  }
  return method;
}

/** The WebCrypto algorithm of a private JWK, for `importKey`. */
function jwkAlgorithm(
  jwk: JsonWebKey,
): AlgorithmIdentifier | EcKeyImportParams | RsaHashedImportParams {
  if (jwk.kty === "EC" && ["P-256", "P-384", "P-521"].includes(jwk.crv ?? "")) {
    return { name: "ECDSA", namedCurve: jwk.crv! };
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return { name: "Ed25519" };
  if (jwk.kty === "RSA") {
    const alg = jwk.alg ?? "RS256";
    const match = /^(RS|PS)(256|384|512)$/.exec(alg);
    if (match !== null) {
      return {
        name: match[1] === "PS" ? "RSA-PSS" : "RSASSA-PKCS1-v1_5",
        hash: `SHA-${match[2]}`,
      };
    }
  }
  throw new AuthError(
    "auth_config_invalid",
    "privateKey: the JWK is not an EC P-256/384/521, RSA (RS/PS 256/384/512) or Ed25519 key.",
  );
}

/** The signing key of `private_key_jwt`: the host's CryptoKey, or its JWK imported non-extractable. */
async function signingKey(credentials: ClientCredentialSet): Promise<oauth.PrivateKey> {
  const given = credentials.privateKey!;
  if (typeof CryptoKey !== "undefined" && given instanceof CryptoKey) {
    return { key: given, ...(credentials.keyId !== undefined ? { kid: credentials.keyId } : {}) };
  }
  const jwk = given as JsonWebKey & { kid?: string };
  let key: CryptoKey;
  try {
    const { key_ops: _ops, ext: _ext, ...material } = jwk as JsonWebKey & { kid?: string };
    key = await crypto.subtle.importKey("jwk", material, jwkAlgorithm(jwk), false, ["sign"]);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError(
      "auth_config_invalid",
      "privateKey: the JWK does not import as a signing key.",
    );
  }
  const kid = credentials.keyId ?? jwk.kid;
  return { key, ...(kid !== undefined ? { kid } : {}) };
}

/**
 * RFC 6749 §2.3.1: client id and secret each `application/x-www-form-urlencoded`, joined by a
 * colon, base64. (oauth4webapi's own `ClientSecretBasic` also escapes `-._~!*'()`, which a
 * server that does not decode, the conformance suite's among them, compares as different.)
 */
export function basicCredential(clientId: string, secret: string): string {
  const encode = (value: string) => new URLSearchParams([["", value]]).toString().slice(1);
  const bytes = new TextEncoder().encode(`${encode(clientId)}:${encode(secret)}`);
  return btoa(String.fromCharCode(...bytes));
}

/** How one token request authenticates the client. */
export interface Authentication {
  readonly method: ClientAuthMethod;
  /** What oauth4webapi adds to the body (nothing for Basic: the credential is the fetch's). */
  readonly auth: oauth.ClientAuth;
  /** The Basic credential the endpoint fetch sends, for `client_secret_basic` only. */
  readonly basic?: string;
}

/** The authentication of `clientId` with `credentials` at `server` (see {@link chooseMethod}). */
export async function authentication(
  clientId: string,
  credentials: ClientCredentialSet,
  server: oauth.AuthorizationServer,
): Promise<Authentication> {
  const method = chooseMethod(credentials, server);
  switch (method) {
    case "private_key_jwt":
      return { method, auth: oauth.PrivateKeyJwt(await signingKey(credentials)) };
    case "client_secret_basic":
      // The body carries no client_id: the Basic credential names the client (RFC 6749 §2.3.1).
      return { method, auth: () => {}, basic: basicCredential(clientId, credentials.secret!) };
    case "client_secret_post":
      return { method, auth: oauth.ClientSecretPost(credentials.secret!) };
    case "none":
      return { method, auth: oauth.None() };
  }
}

/**
 * The fetch of a request that carries client credentials in `Authorization`: the hardened
 * fetch with the credential as its token, for the endpoint's origin only, and refusing (before
 * anything is sent) every URL but the checked endpoint's own. Used for the token endpoint; the
 * same holds for the registration, revocation and PAR endpoints, the only others allowed one.
 *
 * @param options the hardened fetch's options of the OAuth requests
 * @param endpoint the checked endpoint URL
 * @param basic the Basic credential
 */
export function endpointFetch(
  options: SecureFetchOptions,
  endpoint: URL,
  basic: string,
): FetchFunction {
  const inner = secureFetch({
    ...options,
    token: basic,
    tokenScheme: "Basic",
    tokenOrigin: endpoint.origin,
  });
  return (input, init) => {
    const href = input instanceof Request ? input.url : String(input);
    if (!URL.canParse(href) || new URL(href).href !== endpoint.href) {
      return Promise.reject(
        new AuthError(
          "auth_credential_refused",
          "Client credentials go to the checked endpoint only; this request was for another URL.",
        ),
      );
    }
    return inner(input, init);
  };
}
