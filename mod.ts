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
  checkSchema,
  type CheckSchemaOptions,
  compileSchema,
  type CompileSchemaOptions,
  DEFAULT_MAX_EVALUATIONS,
  DEFAULT_SCHEMA_LIMITS,
  DEFAULT_VALUE_LIMITS,
  PATTERN_INPUT_LIMIT,
  SCHEMA_PROFILE,
  type SchemaCheckResult,
  type SchemaLimits,
  type SchemaProblem,
  type SchemaProblemCode,
  SchemaUnsupportedError,
  type SchemaValidator,
  type ValidationError,
  type ValidationErrorCode,
  type ValidationResult,
} from "./src/schema/mod.ts";
export {
  type ReadPolicy,
  type ReadToolBinding,
  type ReadToolBindings,
  type ScopeValidator,
} from "./src/catalog/bindings.ts";
export {
  DiscoveryError,
  type DiscoveryErrorCode,
  type DiscoveryErrorDetails,
  type SchemaRole,
} from "./src/catalog/errors.ts";
export { DEFAULT_TOOL_LIMITS, MAX_TIMEOUT_MS, type ToolLimits } from "./src/catalog/limits.ts";
export {
  ACCEPTED_PROTOCOL_VERSIONS,
  CatalogMonitor,
  type CatalogStatus,
  type ChangeDetection,
  type ListenSubscription,
} from "./src/catalog/monitor.ts";
export type { ReadSnapshot, SnapshotEntry, SnapshotEntryBase } from "./src/catalog/snapshot.ts";
export {
  type DiscoverOptions,
  discoverTools,
  type DiscoveryResult,
} from "./src/catalog/discover.ts";
export type { CallErrorCode, ToolEnvelope } from "./src/calls/envelope.ts";
export type { CallOptions, ToolRegistration } from "./src/calls/registration.ts";
export type { SdkClientLike } from "./src/calls/session.ts";
export {
  type ApprovalBinding,
  type ApprovalDecision,
  type ApprovalEffect,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalEvent,
  type ApprovalOutcome,
  type ApprovalReceipt,
  type ApprovalReconciliation,
  type ApprovalRecord,
  type ApprovalRefusal,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalStore,
  type ApprovalStoreOptions,
  assertDurableStore,
  type ClaimExpectation,
  type ClaimRefusalCode,
  type ClaimResult,
  type DecisionInput,
  type DurableStoreOptions,
  type ListFilter,
  MemoryApprovalStore,
  type ReconcileInput,
} from "./src/approvals/mod.ts";
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

export type {
  WriteEffect,
  WritePolicy,
  WriteToolBinding,
  WriteToolBindings,
} from "./src/catalog/write_bindings.ts";
export type {
  WriteAuthorization,
  WriteSnapshot,
  WriteSnapshotEntry,
} from "./src/catalog/snapshot.ts";
export {
  discoverWriteTools,
  type WriteApprovalBinding,
  type WriteDiscoveryResult,
  type WriteToolRegistration,
} from "./src/catalog/discover_write.ts";
export {
  DEFAULT_APPROVAL_TTL_MS,
  Gate,
  type GateCall,
  type GateCatalog,
  type GateEnvelope,
  GateError,
  type GateErrorCode,
  type GateErrorCodeThrown,
  type GateOnlyErrorCode,
  type GateOptions,
  INLINE_DECIDER,
  type InlineApprovalRequest,
  type InlineApprover,
  type PersistencePoint,
  RECOVERED_REASON,
  type RecoverOptions,
  type ResumeOptions,
  type RunOptions,
  type WriteOutcomeEffect,
} from "./src/gate/mod.ts";
export {
  APPROVAL_TEXT,
  type ApprovalPolicy,
  approvalPolicy,
  type ApprovalReason,
  type ApproveCallback,
  connect,
  connectAll,
  type ConnectAllConfig,
  type ConnectApprovalDecision,
  type ConnectCallErrorCode,
  type ConnectCommonOptions,
  ConnectConfigError,
  type ConnectConfigErrorCode,
  type ConnectEnvelope,
  type ConnectEvent,
  type Connection,
  type ConnectOptions,
  type ConnectReport,
  type ConnectTransportOptions,
  type Era,
  EraCache,
  type EraVerdict,
  LEGACY_PROTOCOL_VERSIONS,
  localToolName,
  MODERN_PROTOCOL_VERSION,
  type ReadyTool,
  type ServerConfig,
  type ServerReport,
  SessionSetupError,
  type SessionSetupErrorCode,
  type SkippedTool,
  Toolkit,
  type ToolkitCallOptions,
  type ToolkitResumeOptions,
  type ToolkitTool,
  type ToolSpec,
} from "./src/connect/mod.ts";
export {
  type AnthropicExportOptions,
  type AnthropicInputSchema,
  type AnthropicTool,
  type GeminiExportOptions,
  type GeminiFunctionDeclaration,
  type NullPlan,
  type NullRecord,
  type OpenAIExportOptions,
  type OpenAIResponsesTool,
  type OpenAITool,
  type Provider,
  type ProviderExportOptions,
  type ProviderExportReport,
  type ProviderLimitNotice,
  type ProviderLoss,
  type ProviderRefusal,
  type ProviderRefusalCode,
  type ProviderReports,
  providerReports,
  type ProviderTools,
  type ProviderToolSource,
  type ProviderTransform,
  type ProviderTransformKind,
  stripExportNulls,
  toAnthropicTools,
  toGeminiTools,
  type ToolFidelity,
  type ToolFidelityStatus,
  toOpenAIResponsesTools,
  toOpenAITools,
} from "./src/providers/mod.ts";
