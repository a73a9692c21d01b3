/**
 * Gemini function declarations on the JSON Schema field (`parametersJsonSchema`).
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { exportTools } from "./export.ts";
import type { ProviderExportOptions, ProviderTools, ProviderToolSource } from "./types.ts";

/**
 * Options of the Gemini export.
 *
 * @category Agent developers: providers
 */
export interface GeminiExportOptions extends ProviderExportOptions {
  /**
   * Refuse tools that use a keyword Gemini ignores (`pattern`, `minLength`, `const`, ...)
   * instead of exporting them and reporting them lossy. Either way sluice validates every
   * call against the original schema: lossy means more refused calls, never an invalid one.
   */
  readonly exact?: boolean;
}

/**
 * A Gemini function declaration using the JSON Schema field (`parametersJsonSchema`).
 *
 * @category Agent developers: providers
 */
export interface GeminiFunctionDeclaration {
  /** Function name. */
  name: string;
  /** Description. */
  description: string;
  /** JSON Schema of the arguments object (mutually exclusive with `parameters`). */
  parametersJsonSchema: JsonObject;
}

/**
 * Gemini function declarations `{ name, description, parametersJsonSchema }`; put them in
 * `tools: [{ functionDeclarations }]`. The JSON Schema field is used rather than `parameters`
 * (an OpenAPI subset). Keywords Gemini ignores are listed per tool in `report.tools[i].lossy`.
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
 * @param options `exact`
 *
 * @category Agent developers: providers
 */
export function toGeminiTools(
  tools: readonly ProviderToolSource[],
  options: GeminiExportOptions = {},
): ProviderTools<GeminiFunctionDeclaration> {
  return exportTools(tools, "gemini", options, (tool, parametersJsonSchema) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema,
  }));
}
