/**
 * DPoP (RFC 9449) for `OAuthClient`: the key pair (generated non-extractable, or the host's),
 * when proofs are sent, and the MCP requests a DPoP-bound token goes out with: a fresh proof
 * per request bound to its method, URL and token (`htm`, `htu`, `ath`), and one retry with the
 * resource server's nonce. Proofs and nonces are oauth4webapi's (`DPoP` handle: nonces per
 * origin, the 100 most recent).
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import { discard, type Discovered } from "./discovery.ts";
import { AuthError } from "./errors.ts";

/**
 * The `dpop` option of `OAuthClient`: `true` to always ask for DPoP-bound tokens (with a key
 * pair sluice generates, its private key non-extractable), the host's own `CryptoKeyPair` (the
 * same, and tokens stay usable in the next process), or `false` never. Omitted: DPoP where the
 * authorization server advertises ES256 in `dpop_signing_alg_values_supported` and the MCP
 * server takes DPoP-bound tokens (a DPoP challenge, or DPoP in its protected resource
 * metadata): many authorization servers advertise DPoP for resource servers that take only
 * Bearer tokens.
 *
 * @category OAuth
 */
export type DPoPSetting = boolean | CryptoKeyPair;

/** The proof algorithm of a generated key. */
const GENERATED_ALG = "ES256";

/**
 * Checks the `dpop` option before any request.
 *
 * @throws {AuthError} `auth_config_invalid`
 */
export function checkDPoPSetting(setting: DPoPSetting | undefined): void {
  if (setting === undefined || typeof setting === "boolean") return;
  const { privateKey, publicKey } = (setting ?? {}) as Partial<CryptoKeyPair>;
  const isKey = (key: unknown): key is CryptoKey =>
    typeof CryptoKey !== "undefined" && key instanceof CryptoKey;
  if (
    !isKey(privateKey) || privateKey.type !== "private" || !privateKey.usages.includes("sign") ||
    !isKey(publicKey) || publicKey.type !== "public" || !publicKey.extractable
  ) {
    throw new AuthError(
      "auth_config_invalid",
      "dpop: give true, false, or a CryptoKeyPair (a private signing key, its public key " +
        "extractable: the proof carries it).",
    );
  }
}

/** The key of one `OAuthClient`'s DPoP proofs, made on first use. */
export class DPoPKey {
  readonly #setting: DPoPSetting | undefined;
  #handle: Promise<{ handle: oauth.DPoPHandle; jkt: string }> | undefined;

  /** @param setting the `dpop` option, checked */
  constructor(setting: DPoPSetting | undefined) {
    this.#setting = setting;
  }

  /** Whether the host asked for DPoP: then a Bearer token is refused, never taken instead. */
  get required(): boolean {
    return this.#setting !== undefined && this.#setting !== false;
  }

  /** Whether token requests for `discovered` carry a proof (see {@link DPoPSetting}). */
  uses(discovered: Discovered): boolean {
    if (this.#setting === false) return false;
    if (this.required) return true;
    return discovered.resourceDPoP === true &&
      discovered.server.dpop_signing_alg_values_supported?.includes(GENERATED_ALG) === true;
  }

  /** The handle and the key's JWK thumbprint (RFC 7638), the `cnf.jkt` a bound token names. */
  key(): Promise<{ handle: oauth.DPoPHandle; jkt: string }> {
    this.#handle ??= (async () => {
      const pair = typeof this.#setting === "object" ? this.#setting : await generate();
      const handle = oauth.DPoP({}, pair);
      return { handle, jkt: await handle.calculateThumbprint() };
    })();
    return this.#handle;
  }

  /** The thumbprint of the key when DPoP can be used at all, else `undefined`. */
  async thumbprint(): Promise<string | undefined> {
    return this.#setting === false ? undefined : (await this.key()).jkt;
  }
}

/**
 * A P-256 key pair whose private key cannot be exported (WebCrypto keeps the public key
 * extractable: the proof's header carries it).
 */
function generate(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
    "sign",
    "verify",
  ]) as Promise<CryptoKeyPair>;
}

/** One request's parts, read once so that a nonce retry can send them again. */
async function requestParts(input: RequestInfo | URL, init: RequestInit | undefined) {
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request !== undefined ? request.url : String(input));
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const headers = new Headers(init?.headers ?? request?.headers);
  let body: BodyInit | null | undefined = init?.body ?? null;
  if (init?.body === undefined && request?.body) body = await request.arrayBuffer();
  if (body instanceof ReadableStream) body = await new Response(body).arrayBuffer();
  return { url, method, headers, body };
}

/**
 * One request to the MCP server with a DPoP-bound token: a fresh proof (a new `jti`, the
 * request's method and URL, `ath` of `token`), sent through `fetch` (the hardened fetch whose
 * token option sends `Authorization: DPoP` to the server's origin only). A 401 asking for a
 * nonce (`use_dpop_nonce` with `DPoP-Nonce`) is answered once with a new proof carrying it.
 *
 * @param handle the client's DPoP handle (it remembers each origin's nonce)
 * @param fetch the hardened fetch with the token
 * @param token the access token, for `ath`
 */
export async function proofRequest(
  handle: oauth.DPoPHandle,
  fetch: FetchFunction,
  token: string,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<Response> {
  const { url, method, headers, body } = await requestParts(input, init);
  // oauth4webapi refuses a caller's Authorization; the hardened fetch would drop it anyway.
  headers.delete("authorization");
  const ownAgent = headers.has("user-agent");
  const signal = init?.signal ?? undefined;
  const options = {
    DPoP: handle,
    // The hardened fetch alone decides which URLs may be reached (loopback only when allowed).
    [oauth.allowInsecureRequests]: true,
    [oauth.customFetch]: (href: string, sent: { headers: Record<string, string> }) => {
      const out = new Headers(sent.headers);
      if (!ownAgent) out.delete("user-agent");
      out.delete("authorization");
      // The caller's own signal, not oauth4webapi's default deadline (an SSE stream is long).
      return fetch(href, { ...init, method, headers: out, body, ...(signal ? { signal } : {}) });
    },
  };
  const attempt = async (): Promise<{ response: Response; nonce: boolean }> => {
    try {
      const response = await oauth.protectedResourceRequest(
        token,
        method,
        url,
        headers,
        // The body goes in customFetch, as the caller gave it (no proof covers it).
        null,
        options,
      );
      return { response, nonce: false };
    } catch (error) {
      if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
      return { response: error.response, nonce: oauth.isDPoPNonceError(error) };
    }
  };
  const first = await attempt();
  if (!first.nonce) return first.response;
  discard(first.response);
  return (await attempt()).response;
}
