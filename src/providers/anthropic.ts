/**
 * Anthropic Messages API tool definitions (`{ name, description, input_schema, strict? }`).
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { exportTools } from "./export.ts";
import type { ProviderExportOptions, ProviderTools, ProviderToolSource } from "./types.ts";

/**
 * Options of the Anthropic export.
 *
 * @category Agent developers: providers
 */
export interface AnthropicExportOptions extends ProviderExportOptions {
  /** Strict tool use: the model's input always matches the exported schema. */
  readonly strict?: boolean;
}

/**
 * An Anthropic input schema: always an object schema.
 *
 * @category Agent developers: providers
 */
export type AnthropicInputSchema = JsonObject & { type: "object" };

/**
 * An Anthropic Messages API tool definition.
 *
 * @category Agent developers: providers
 */
export interface AnthropicTool {
  /** Tool name. */
  name: string;
  /** Description. */
  description: string;
  /** JSON Schema of the input object. */
  input_schema: AnthropicInputSchema;
  /** Present (and `true`) for strict exports. */
  strict?: boolean;
}

/**
 * Anthropic tool definitions: `{ name, description, input_schema, strict? }`. Tools the mode
 * cannot take as they mean are left out and listed in `report.refused`.
 *
 * @example
 * ```ts
 * import { toAnthropicTools } from "@sluice/mcp";
 * const tools = toAnthropicTools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(tools[0].input_schema, tools.report.tools[0].status);
 * ```
 *
 * @param tools the model-facing tools
 * @param options `strict`, `closeOpenObjects`
 *
 * @category Agent developers: providers
 */
export function toAnthropicTools(
  tools: readonly ProviderToolSource[],
  options: AnthropicExportOptions = {},
): ProviderTools<AnthropicTool> {
  return exportTools(tools, "anthropic", options, (tool, schema, strict) => ({
    name: tool.name,
    description: tool.description,
    input_schema: schema as AnthropicInputSchema,
    ...(strict ? { strict: true } : {}),
  }));
}
