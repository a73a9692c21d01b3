/**
 * Tool definitions in each model provider's exact shape, from a toolkit's model-facing tools:
 * what the model is given means exactly what the server accepts, or the tool is refused for
 * that provider with the keyword and path. Every function returns fresh, mutable copies.
 *
 * @module
 */
export {
  type AnthropicExportOptions,
  type AnthropicInputSchema,
  type AnthropicTool,
  toAnthropicTools,
} from "./anthropic.ts";
export {
  FIDELITY,
  type FidelityMode,
  type FidelityProfile,
  type KeywordFidelity,
  type ModeRules,
} from "./fidelity.ts";
export {
  type GeminiExportOptions,
  type GeminiFunctionDeclaration,
  toGeminiTools,
} from "./gemini.ts";
export {
  type OpenAIExportOptions,
  type OpenAIResponsesTool,
  type OpenAITool,
  toOpenAIResponsesTools,
  toOpenAITools,
} from "./openai.ts";
export { type ProviderReports, providerReports } from "./reports.ts";
export { stripExportNulls } from "./strip_nulls.ts";
export type {
  NullPlan,
  NullRecord,
  Provider,
  ProviderExportOptions,
  ProviderExportReport,
  ProviderLimitNotice,
  ProviderLoss,
  ProviderRefusal,
  ProviderRefusalCode,
  ProviderTools,
  ProviderToolSource,
  ProviderTransform,
  ProviderTransformKind,
  ToolFidelity,
  ToolFidelityStatus,
} from "./types.ts";
