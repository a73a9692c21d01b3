/**
 * sluice: governed local tools from remote MCP servers.
 *
 * This entry point re-exports the public API; each export carries its own documentation.
 *
 * @example
 * ```ts
 * import { digest } from "@sluice/mcp";
 * console.log(await digest({ hello: "world" }));
 * ```
 *
 * @module
 */
export { SluiceError } from "./src/errors.ts";
export {
  canonicalize,
  DEFAULT_JSON_LIMITS,
  digest,
  type JsonArray,
  type JsonErrorCode,
  type JsonLimits,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  JsonValueError,
} from "./src/identity/mod.ts";
export {
  type AddressClassification,
  type AddressEmbedding,
  type AddressRange,
  classifyAddress,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  describeTransport,
  type FetchFunction,
  isPublicAddress,
  parseIpv4,
  parseIpv6,
  type Resolver,
  type ResolverSource,
  type SecureFetch,
  secureFetch,
  type SecureFetchOptions,
  TransportError,
  type TransportErrorCode,
  transportErrorCode,
  type TransportReport,
} from "./src/transport/mod.ts";
