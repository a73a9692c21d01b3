/**
 * The hardened transport: `secureFetch` and the pure address classifier it relies on.
 *
 * @module
 */
export {
  type AddressClassification,
  type AddressEmbedding,
  type AddressRange,
  classifyAddress,
  isPublicAddress,
  parseIpv4,
  parseIpv6,
} from "./address.ts";
export { TransportError, type TransportErrorCode, transportErrorCode } from "./errors.ts";
export type { Resolver, ResolverSource } from "./resolver.ts";
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  describeTransport,
  type FetchFunction,
  MAX_RESPONSE_BYTES,
  type SecureFetch,
  secureFetch,
  type SecureFetchOptions,
  type TransportReport,
} from "./secure_fetch.ts";
