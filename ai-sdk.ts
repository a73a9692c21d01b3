/**
 * `@sluice/mcp/ai-sdk`: a toolkit's tools as a Vercel AI SDK tool set. Its own entry, so the
 * core never loads the `ai` package.
 *
 * @module
 */
export {
  AI_SDK_ERROR_TEXT,
  type AISDKCallEnvelope,
  type AISDKTool,
  type AISDKToolkit,
  type AISDKToolResult,
  type AISDKTools,
  type AISDKToolsOptions,
  toAISDKTools,
  toolResultOf,
} from "./src/providers/ai_sdk.ts";
