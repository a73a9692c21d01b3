/**
 * Reads a `WWW-Authenticate: Bearer ...` challenge (RFC 6750, RFC 9728 `resource_metadata`).
 * Only the parameters sluice uses are kept, and scope names only in the characters RFC 6749
 * allows, so nothing else of the remote text travels further.
 *
 * @module
 */

/**
 * The parts of a Bearer challenge the OAuth client uses.
 *
 * @category OAuth
 */
export interface BearerChallenge {
  /** The protected resource metadata URL (RFC 9728), unchecked. */
  readonly resourceMetadata?: string;
  /** The `error` parameter (`invalid_token`, `insufficient_scope`, ...), when well formed. */
  readonly error?: string;
  /** The scopes the server asked for, each a valid RFC 6749 scope token. */
  readonly scopes: readonly string[];
  /** The challenge was a DPoP one (RFC 9449 §7.1): the server takes DPoP-bound tokens. */
  readonly dpop?: true;
}

const MAX_HEADER = 8 * 1024;
const PARAM = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g;
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const ERROR_TOKEN = /^[a-z_]{1,64}$/;

/**
 * Parses the Bearer challenge of a `WWW-Authenticate` header value.
 *
 * @param header the header value, or `null`
 * @returns the challenge's parameters (empty when there is no Bearer challenge)
 *
 * @category OAuth
 */
export function parseBearerChallenge(header: string | null): BearerChallenge {
  if (header === null || header.length > MAX_HEADER) return { scopes: [] };
  // A DPoP challenge (RFC 9449 §7.1) names the same parameters.
  const found = /(^|[\s,])(Bearer|DPoP)(\s|$)/i.exec(header);
  if (found === null) return { scopes: [] };
  const start = found.index;
  const params = new Map<string, string>();
  for (const match of header.slice(start).matchAll(PARAM)) {
    const name = match[1]!.toLowerCase();
    if (!params.has(name)) params.set(name, match[2]?.replace(/\\(.)/g, "$1") ?? match[3]!);
  }
  const error = params.get("error");
  const scopes = (params.get("scope") ?? "").split(" ").filter((scope) => SCOPE_TOKEN.test(scope))
    .slice(0, 32);
  return {
    ...(params.has("resource_metadata")
      ? { resourceMetadata: params.get("resource_metadata")! }
      : {}),
    ...(error !== undefined && ERROR_TOKEN.test(error) ? { error } : {}),
    ...(found[2]!.toLowerCase() === "dpop" ? { dpop: true as const } : {}),
    scopes,
  };
}
