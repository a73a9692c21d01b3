/**
 * Every export's report for one set of tools, side by side: what `deno task fidelity` counts,
 * and what a connection's `report().providers` shows with its schema locations positional.
 *
 * @module
 */
import { toAnthropicTools } from "./anthropic.ts";
import { toGeminiTools } from "./gemini.ts";
import { toOpenAITools } from "./openai.ts";
import type { ProviderExportOptions, ProviderExportReport, ProviderToolSource } from "./types.ts";

/**
 * The reports of every export mode. The Responses API follows OpenAI's rules.
 *
 * @category Agent developers: providers
 */
export interface ProviderReports {
  /** OpenAI (Chat Completions and Responses), plain. */
  readonly openai: ProviderExportReport;
  /** OpenAI, strict. */
  readonly openaiStrict: ProviderExportReport;
  /** Anthropic, plain. */
  readonly anthropic: ProviderExportReport;
  /** Anthropic, strict. */
  readonly anthropicStrict: ProviderExportReport;
  /** Gemini: lossy tools exported and reported. */
  readonly gemini: ProviderExportReport;
  /** Gemini with `exact: true`: lossy tools refused. */
  readonly geminiExact: ProviderExportReport;
}

/**
 * The report of every export mode for `tools` (the exports themselves are discarded).
 *
 * @example
 * ```ts
 * import { providerReports } from "@sluice/mcp";
 * const reports = providerReports([
 *   { name: "docs__search", description: "Search", inputSchema: { type: "object" } },
 * ]);
 * console.log(reports.openaiStrict.refused); // the open root object, at path ""
 * ```
 *
 * @param tools the model-facing tools
 * @param options `closeOpenObjects` for the strict modes
 *
 * @category Agent developers: providers
 */
export function providerReports(
  tools: readonly ProviderToolSource[],
  options: ProviderExportOptions = {},
): ProviderReports {
  return {
    openai: toOpenAITools(tools).report,
    openaiStrict: toOpenAITools(tools, { ...options, strict: true }).report,
    anthropic: toAnthropicTools(tools).report,
    anthropicStrict: toAnthropicTools(tools, { ...options, strict: true }).report,
    gemini: toGeminiTools(tools).report,
    geminiExact: toGeminiTools(tools, { exact: true }).report,
  };
}
