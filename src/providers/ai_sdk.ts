/**
 * The Vercel AI SDK adapter: a toolkit's tools as an AI SDK tool set for `generateText` /
 * `streamText`. Each tool's schema is the one sluice exports for the chosen provider, and its
 * `execute` runs `toolkit.call`, whose envelope becomes the tool result the model reads.
 *
 * @module
 */
import { loadOptional } from "../optional_packages.ts";
import type { JsonValue } from "../identity/mod.ts";
import { toAnthropicTools } from "./anthropic.ts";
import { toGeminiTools } from "./gemini.ts";
import { toOpenAIResponsesTools, toOpenAITools } from "./openai.ts";
import { stripExportNulls } from "./strip_nulls.ts";
import type { Provider, ProviderExportReport, ProviderToolSource } from "./types.ts";
import type { JsonObject } from "../identity/mod.ts";

// `ai` is an optional npm package: this entry loads it, and a missing one is a
// `dependency_missing` error at import naming what to install, not a module-not-found stack.
const { jsonSchema, tool } = await loadOptional("ai", () => import("ai"));

/**
 * What the adapter reads from a call's envelope (a toolkit's `ConnectEnvelope` fits).
 *
 * @category Agent developers: providers
 */
export interface AISDKCallEnvelope {
  /** Text blocks, or sluice's fixed sentence for an approval outcome. */
  readonly text: readonly string[];
  /** Validated structured content, or `null`. */
  readonly structured: JsonValue | null;
  /** Present exactly when the call did not run to a valid result. */
  readonly errorCode?: string;
  /** The approval a deferred call is bound to. */
  readonly approvalId?: string;
}

/**
 * The part of a toolkit the adapter uses (sluice's `Toolkit` fits).
 *
 * @category Agent developers: providers
 */
export interface AISDKToolkit {
  /** The model-facing tools. */
  readonly tools: readonly ProviderToolSource[];
  /** Runs one call; never throws. */
  call(
    name: string,
    args: unknown,
    options?: { readonly signal?: AbortSignal; readonly callId?: string },
  ): Promise<AISDKCallEnvelope>;
}

/**
 * Options of `toAISDKTools`.
 *
 * @category Agent developers: providers
 */
export interface AISDKToolsOptions {
  /** Whose export rules the schemas follow (default `"openai"`). */
  readonly provider?: Provider;
  /** The provider's strict mode (OpenAI, Anthropic). */
  readonly strict?: boolean;
  /** Gemini: refuse tools with keywords Gemini ignores. */
  readonly exact?: boolean;
  /** Strict modes: close open objects (narrows what the model may send). */
  readonly closeOpenObjects?: boolean;
}

/**
 * What the model reads as a tool's result.
 *
 * @category Agent developers: providers
 */
export type AISDKToolResult =
  /** The call ran; its validated result. */
  | {
    readonly status: "ok";
    readonly text: readonly string[];
    readonly structured: JsonValue | null;
  }
  /** The call waits for a person's approval and has not run. */
  | {
    readonly status: "approval_pending";
    readonly text: readonly string[];
    readonly approvalId?: string;
  }
  /** The call did not run to a valid result; `errorCode` says why (sluice's fixed code). */
  | { readonly status: "error"; readonly errorCode: string; readonly text: readonly string[] };

/**
 * Sluice's sentence for a failed call whose envelope carries no fixed text.
 *
 * @category Agent developers: providers
 */
export const AI_SDK_ERROR_TEXT = "The tool call did not complete; the error code says why.";

/**
 * One tool of the set, as far as sluice describes it (the AI SDK's `Tool` at run time).
 *
 * @category Agent developers: providers
 */
export interface AISDKTool {
  /** The tool's description. */
  readonly description?: string;
  /** The schema the model is given (an AI SDK `jsonSchema(...)` of sluice's export). */
  readonly inputSchema: unknown;
  /** Runs `toolkit.call`; never throws. */
  execute?(
    input: unknown,
    options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal },
  ): Promise<AISDKToolResult>;
}

/**
 * The tool set with the export's report as a non-enumerable `report`. `T` is the tool set type
 * of the AI SDK in use: pass `ToolSet` from `ai` to hand the set to `generateText` as it is.
 *
 * @category Agent developers: providers
 */
export type AISDKTools<T extends object = Record<string, AISDKTool>> = T & {
  readonly report: ProviderExportReport;
};

function exportFor(tools: readonly ProviderToolSource[], options: AISDKToolsOptions) {
  const provider = options.provider ?? "openai";
  if (provider === "gemini") {
    const out = toGeminiTools(tools, options);
    return {
      report: out.report,
      schemas: out.map((t) => [t.name, t.parametersJsonSchema] as const),
    };
  }
  if (provider === "anthropic") {
    const out = toAnthropicTools(tools, options);
    return { report: out.report, schemas: out.map((t) => [t.name, t.input_schema] as const) };
  }
  if (provider === "openai-responses") {
    const out = toOpenAIResponsesTools(tools, options);
    return { report: out.report, schemas: out.map((t) => [t.name, t.parameters] as const) };
  }
  const out = toOpenAITools(tools, options);
  return {
    report: out.report,
    schemas: out.map((t) => [t.function.name, t.function.parameters] as const),
  };
}

/**
 * The envelope as the model's tool result.
 *
 * @category Agent developers: providers
 */
export function toolResultOf(envelope: AISDKCallEnvelope): AISDKToolResult {
  if (envelope.errorCode === undefined) {
    return { status: "ok", text: envelope.text, structured: envelope.structured };
  }
  if (envelope.errorCode === "approval_pending") {
    return {
      status: "approval_pending",
      text: envelope.text,
      ...(envelope.approvalId === undefined ? {} : { approvalId: envelope.approvalId }),
    };
  }
  return {
    status: "error",
    errorCode: envelope.errorCode,
    text: envelope.text.length > 0 ? envelope.text : [AI_SDK_ERROR_TEXT],
  };
}

/**
 * The toolkit's tools as an AI SDK tool set. Tools the chosen provider's export refuses are
 * left out (see `report.refused`). `execute` never throws: it removes the strict export's
 * `null`s for omitted optional properties, calls `toolkit.call` with the model's tool call id,
 * and returns the envelope as an {@link AISDKToolResult}; a pending approval is a result the
 * model can read, never a silent success.
 *
 * @example
 * ```ts ignore
 * import { generateText, stepCountIs, type ToolSet } from "ai";
 * import { toAISDKTools } from "@sluice/mcp/ai-sdk";
 * const tools = toAISDKTools<ToolSet>(connection.toolkit, { provider: "openai", strict: true });
 * await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: "..." });
 * ```
 *
 * @typeParam T the AI SDK's `ToolSet` type (sluice does not name it, so no AI SDK version is
 *   pinned by the type)
 * @param toolkit the toolkit (anything with `tools` and `call`)
 * @param options the provider whose export rules apply, and its options
 *
 * @category Agent developers: providers
 */
export function toAISDKTools<T extends object = Record<string, AISDKTool>>(
  toolkit: AISDKToolkit,
  options: AISDKToolsOptions = {},
): AISDKTools<T> {
  const { report, schemas } = exportFor(toolkit.tools, options);
  const descriptions = new Map(toolkit.tools.map((t) => [t.name, t.description]));
  const set: Record<string, unknown> = {};
  for (const [name, schema] of schemas) {
    const record = report.nullable[name];
    set[name] = tool({
      description: descriptions.get(name),
      inputSchema: jsonSchema<unknown>(schema as JsonObject),
      execute: async (input: unknown, { toolCallId, abortSignal }): Promise<AISDKToolResult> => {
        try {
          const args = record ? stripExportNulls(input, record) : input;
          return toolResultOf(
            await toolkit.call(name, args, { signal: abortSignal, callId: toolCallId }),
          );
        } catch {
          return { status: "error", errorCode: "mcp_protocol_error", text: [AI_SDK_ERROR_TEXT] };
        }
      },
    });
  }
  Object.defineProperty(set, "report", { value: report, enumerable: false });
  return set as AISDKTools<T>;
}
