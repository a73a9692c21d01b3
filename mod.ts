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
  headerDeclarations,
  type McpHeaderDeclaration,
  type McpHeaderType,
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
  type OwnerSpec,
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
export {
  DEFAULT_TOOL_LIMITS,
  MAX_TIMEOUT_MS,
  TOOL_LIMIT_CEILINGS,
  type ToolLimits,
} from "./src/catalog/limits.ts";
export {
  CatalogMonitor,
  type CatalogMonitorOptions,
  type CatalogStatus,
  type ChangeDetection,
  type ListenSubscription,
  type StaleReason,
} from "./src/catalog/monitor.ts";
export type { ReadSnapshot, SnapshotEntry, SnapshotEntryBase } from "./src/catalog/snapshot.ts";
export {
  type CatalogBindings,
  discoverCatalogs,
  type DiscoveredCatalogs,
  discoverTools,
  type DiscoveryResult,
  listTools,
} from "./src/calls/discover.ts";
export type { DiscoverOptions } from "./src/calls/bound.ts";
export type { ToolListing } from "./src/catalog/listing.ts";
export { NOT_NEGOTIATED, type UnfitTool } from "./src/catalog/selection.ts";
export {
  type CatalogDiff,
  type ChangedTool,
  compareDefinitions,
  DEFINITION_FIELDS,
  definitionDigest,
  type DefinitionField,
  definitionOfEntry,
  definitionOfListed,
  diffDefinitions,
  diffJson,
  type JsonChange,
  type ToolDefinition,
  type ToolPresence,
} from "./src/catalog/revisions.ts";
export {
  compareLock,
  createLock,
  LOCK_FILE_NAME,
  type LockComparison,
  type LockedServer,
  type LockedTool,
  LockError,
  type LockErrorCode,
  LOCKFILE_VERSION,
  type LockMismatch,
  lockServer,
  parseLock,
  serializeLock,
  type SluiceLock,
} from "./src/catalog/lock.ts";
export { renderChange, renderDiff, renderLockMismatches } from "./src/catalog/render_diff.ts";
export type {
  ArgumentProblem,
  CallErrorCode,
  ToolEnvelope,
  WriteOutcomeEffect,
} from "./src/calls/envelope.ts";
export type { ToolRegistration } from "./src/calls/registration.ts";
export type {
  ApprovalBindingFields,
  CallPlan,
  ScopeCheck,
  WriteApproval,
} from "./src/calls/call_plan.ts";
export type { ParamHeaderDeclaration } from "./src/calls/param_headers.ts";
export { type SdkClientLike, sessionFromClient } from "./src/session/from_client.ts";
export {
  isMcpSession,
  type McpSession,
  type SessionErrorCode,
  SessionRequestError,
  type SessionRequestOptions,
} from "./src/session/session.ts";
export {
  ACCEPTED_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  OPT_IN_PROTOCOL_VERSIONS,
} from "./src/session/protocol.ts";
export {
  type CodeEntry,
  type CodeGroup,
  type CodeIn,
  type CodeOf,
  codeOf,
  CODES,
  type CodeStage,
  type SluiceCode,
} from "./src/codes.ts";
export {
  type ApprovalBinding,
  type ApprovalDecision,
  type ApprovalEffect,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalEvent,
  type ApprovalGrant,
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
  type CommitOptions,
  type DecisionInput,
  type DurableStoreOptions,
  type EditDecisionInput,
  type EditedApproval,
  type GrantApprovalResult,
  grantDecider,
  type GrantEvent,
  type GrantFilter,
  type GrantInput,
  type GrantRefusalCode,
  type GrantStatus,
  grantStatus,
  type GrantTerms,
  type ListFilter,
  MemoryApprovalStore,
  type PreparedClaim,
  type ReconcileInput,
  type RevokeGrantInput,
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
  MAX_RESPONSE_BYTES,
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
  ApprovalDecider,
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
export { discoverWriteTools, type WriteDiscoveryResult } from "./src/calls/discover.ts";
export type { WriteApprovalBinding, WriteToolRegistration } from "./src/calls/registration.ts";
export {
  APPROVAL_TEXT,
  createGrant,
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
  grantScopeOf,
  INLINE_DECIDER,
  type InlineApprovalRequest,
  type InlineApprover,
  type PersistencePoint,
  RECOVERED_REASON,
  type RecoverOptions,
  type ResumeOptions,
  type RunOptions,
} from "./src/gate/mod.ts";
export {
  type AcceptOptions,
  type ApprovalPolicy,
  approvalPolicy,
  type ApprovalReason,
  type ApproveCallback,
  type ChangeMechanism,
  connect,
  connectAll,
  type ConnectAllConfig,
  type ConnectApprovalDecision,
  type ConnectCommonOptions,
  ConnectConfigError,
  type ConnectConfigErrorCode,
  ConnectError,
  type ConnectEvent,
  type Connection,
  type ConnectOptions,
  type ConnectReport,
  type ConnectTransportOptions,
  DEFAULT_RELIST_INTERVAL_MS,
  type Era,
  EraCache,
  type EraVerdict,
  localToolName,
  type LockReport,
  type ReadyTool,
  type ReportedExport,
  type ReportedLockMismatch,
  type ReportedProviders,
  type RevisionSummary,
  type ServerCatalogs,
  type ServerConfig,
  type ServerFailure,
  type ServerReport,
  type SkippedTool,
  type StagedRevision,
  Toolkit,
  type ToolkitCallOptions,
  type ToolkitEnvelope,
  type ToolkitErrorCode,
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
export {
  AuthError,
  type AuthErrorCode,
  authErrorCode,
  MemoryTokenStore,
  OAUTH_MAX_RESPONSE_BYTES,
  OAuthClient,
  type OAuthClientOptions,
  type TokenRecord,
  type TokenStore,
} from "./src/auth/mod.ts";
