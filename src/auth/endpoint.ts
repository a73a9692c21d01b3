/**
 * The check every URL named by a metadata document (or a server's challenge) meets before the
 * OAuth client requests it: the hardened fetch's own destination rules, applied ahead of time
 * so a refused URL gets the OAuth code `auth_metadata_refused` and no request leaves for it.
 *
 * @module
 */
import { TransportError } from "../transport/errors.ts";
import { checkResolvedAddresses, checkUrl, type DestinationPolicy } from "../transport/policy.ts";
import type { Resolver } from "../transport/resolver.ts";
import { AuthError } from "./errors.ts";

/**
 * What the endpoint check needs: the destination policy and the resolver, if any.
 *
 * @category OAuth
 */
export interface EndpointPolicy extends DestinationPolicy {
  /** The resolver whose answers must all be public; `undefined` where the runtime has none. */
  readonly resolve: Resolver | undefined;
}

/**
 * Checks one URL a metadata document named. Throws `auth_metadata_refused` (with the
 * transport's code as `reason`) for a URL the hardened fetch would refuse.
 *
 * @param value the URL as the document gave it
 * @param field the document field, for the message (`token_endpoint`, ...)
 * @param policy the destination policy and resolver
 * @param signal aborts the resolution
 * @returns the parsed URL
 *
 * @category OAuth
 */
export async function checkEndpoint(
  value: unknown,
  field: string,
  policy: EndpointPolicy,
  signal?: AbortSignal,
): Promise<URL> {
  if (typeof value !== "string") {
    throw new AuthError("auth_metadata_invalid", `The metadata field ${field} is not a URL.`);
  }
  try {
    const destination = checkUrl(value, policy);
    if (destination.url.hash !== "") {
      throw new AuthError("auth_metadata_refused", `The ${field} URL has a fragment.`);
    }
    if (destination.kind === "name" && policy.resolve !== undefined) {
      let addresses: readonly string[];
      try {
        addresses = await policy.resolve(destination.hostname, signal ? { signal } : {});
      } catch {
        throw new TransportError("transport_dns_failed", "The host name could not be resolved.");
      }
      checkResolvedAddresses(addresses, policy, destination.url.protocol === "http:");
    }
    return destination.url;
  } catch (error) {
    if (error instanceof TransportError) {
      throw new AuthError(
        "auth_metadata_refused",
        `The metadata field ${field} names a refused destination (${error.code}).`,
        error.code,
      );
    }
    throw error;
  }
}
