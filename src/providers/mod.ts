/**
 * Tool definitions in each model provider's exact shape, from a toolkit's model-facing tools.
 * Every function returns fresh, mutable copies: changing them changes nothing in sluice.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";

/** What a provider definition is built from: a model-facing name, description and schema. */
export interface ProviderToolSource {
  /** The local name (`[A-Za-z0-9_-]{1,64}`, starting with a letter or `_`). */
  readonly name: string;
  /** Model-facing description. */
  readonly description: string;
  /** The input schema (a JSON Schema object that fits the schema profile). */
  readonly inputSchema: Readonly<JsonObject>;
}

/** An Anthropic Messages API tool definition. */
export interface AnthropicTool {
  /** Tool name. */
  name: string;
  /** Description. */
  description: string;
  /** JSON Schema of the input object. */
  input_schema: JsonObject;
}

/** An OpenAI Chat Completions tool definition. */
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
  };
}

/** A Gemini function declaration using the JSON Schema field (`parametersJsonSchema`). */
export interface GeminiFunctionDeclaration {
  /** Function name. */
  name: string;
  /** Description. */
  description: string;
  /** JSON Schema of the arguments object (mutually exclusive with `parameters`). */
  parametersJsonSchema: JsonObject;
}

const copy = (schema: Readonly<JsonObject>): JsonObject => structuredClone(schema) as JsonObject;

/**
 * Anthropic tool definitions: `{ name, description, input_schema }`.
 *
 * @example
 * ```ts
 * import { toAnthropicTools } from "@sluice/mcp";
 * const tools = toAnthropicTools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(tools[0].input_schema);
 * ```
 *
 * @param tools the model-facing tools
 */
export function toAnthropicTools(tools: readonly ProviderToolSource[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: copy(tool.inputSchema),
  }));
}

/**
 * OpenAI Chat Completions tool definitions:
 * `{ type: "function", function: { name, description, parameters } }`.
 *
 * @example
 * ```ts
 * import { toOpenAITools } from "@sluice/mcp";
 * const tools = toOpenAITools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(tools[0].function.parameters);
 * ```
 *
 * @param tools the model-facing tools
 */
export function toOpenAITools(tools: readonly ProviderToolSource[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: tool.name,
      description: tool.description,
      parameters: copy(tool.inputSchema),
    },
  }));
}

/**
 * Gemini function declarations `{ name, description, parametersJsonSchema }`; put them in
 * `tools: [{ functionDeclarations }]`. The JSON Schema field is used rather than `parameters`
 * (an OpenAPI subset), so the schema reaches the model unchanged.
 *
 * @example
 * ```ts
 * import { toGeminiTools } from "@sluice/mcp";
 * const functionDeclarations = toGeminiTools([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * const tools = [{ functionDeclarations }];
 * ```
 *
 * @param tools the model-facing tools
 */
export function toGeminiTools(
  tools: readonly ProviderToolSource[],
): GeminiFunctionDeclaration[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: copy(tool.inputSchema),
  }));
}
