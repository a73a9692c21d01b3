/**
 * OpenAI tool definitions: Chat Completions (`{ type: "function", function: {...} }`) and the
 * Responses API (`{ type: "function", name, parameters, strict }`), plain or strict.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { exportTools } from "./export.ts";
import type { ProviderExportOptions, ProviderTools, ProviderToolSource } from "./types.ts";

/**
 * Options of the OpenAI exports.
 *
 * @category Agent developers: providers
 */
export interface OpenAIExportOptions extends ProviderExportOptions {
  /**
   * Strict mode (Structured Outputs for function calls): the model's arguments always match
   * the exported schema. Optional properties become required and nullable; strip the model's
   * `null`s with `stripExportNulls` and `report.nullable` before calling the tool.
   */
  readonly strict?: boolean;
}

/**
 * An OpenAI Chat Completions tool definition.
 *
 * @category Agent developers: providers
 */
export interface OpenAITool {
  /** Always `"function"`. */
  type: "function";
  /** The function. */
  function: {
    /** Function name. */
    name: string;
    /** Description. */
    description: string;
    /** JSON Schema of the arguments object. */
    parameters: JsonObject;
    /** Present (and `true`) for strict exports. */
    strict?: boolean;
  };
}

/**
 * An OpenAI Responses API function tool.
 *
 * @category Agent developers: providers
 */
export interface OpenAIResponsesTool {
  /** Always `"function"`. */
  type: "function";
  /** Function name. */
  name: string;
  /** Description. */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonObject;
  /** Always stated: the API's default is `true`. */
  strict: boolean;
}

/**
 * OpenAI Chat Completions tool definitions:
 * `{ type: "function", function: { name, description, parameters, strict? } }`. Tools the
 * mode cannot take as they mean are left out and listed in `report.refused`.
 *
 * @example
 * ```ts
 * import { toOpenAITools } from "@sluice/mcp";
 * const tools = toOpenAITools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(tools[0].function.parameters, tools.report.refused);
 * ```
 *
 * @param tools the model-facing tools
 * @param options `strict`, `closeOpenObjects`
 *
 * @category Agent developers: providers
 */
export function toOpenAITools(
  tools: readonly ProviderToolSource[],
  options: OpenAIExportOptions = {},
): ProviderTools<OpenAITool> {
  return exportTools(tools, "openai", options, (tool, parameters, strict) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters,
      ...(strict ? { strict: true } : {}),
    },
  }));
}

/**
 * OpenAI Responses API function tools: `{ type: "function", name, description, parameters,
 * strict }`, with `strict` always written out (the API would otherwise take `true`).
 *
 * @example
 * ```ts
 * import { toOpenAIResponsesTools } from "@sluice/mcp";
 * const tools = toOpenAIResponsesTools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(tools[0].strict); // false
 * ```
 *
 * @param tools the model-facing tools
 * @param options `strict`, `closeOpenObjects`
 *
 * @category Agent developers: providers
 */
export function toOpenAIResponsesTools(
  tools: readonly ProviderToolSource[],
  options: OpenAIExportOptions = {},
): ProviderTools<OpenAIResponsesTool> {
  return exportTools(tools, "openai-responses", options, (tool, parameters, strict) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters,
    strict,
  }));
}
