/**
 * `@sluice/mcp/ai-sdk`: a toolkit's tools as a Vercel AI SDK `ToolSet` (AI SDK 6 and 7), with
 * the AI SDK's own approval flow for tools that need approval, decided into sluice's store. Its
 * own entry, so the core never loads the `ai` package (an optional peer dependency of the npm
 * package: without it this entry throws `dependency_missing` naming what to install).
 *
 * @module
 */
export {
  AI_SDK_ERROR_TEXT,
  AI_SDK_RUN_ID,
  type AISDKApprovalRecord,
  type AISDKApprovals,
  type AISDKApprovalStore,
  type AISDKCallEnvelope,
  type AISDKHistoryMessage,
  type AISDKTool,
  type AISDKToolkit,
  type AISDKToolResult,
  type AISDKTools,
  type AISDKToolsOptions,
  recordAISDKDenials,
  toAISDKTools,
  toolResultOf,
} from "./src/providers/ai_sdk.ts";
