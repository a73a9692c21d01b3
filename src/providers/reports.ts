/**
 * Every export's report for one set of tools, side by side: what `deno task fidelity` counts,
 * and what a connection's `report().providers` shows with its schema locations positional.
 *
 * @module
 */
import { toAnthropicTools } from "./anthropic.ts";
import { toGeminiTools } from "./gemini.ts";
import { toOpenAITools } from "./openai.ts";
import { ProviderExports } from "./export_cache.ts";
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
  const exports = new ProviderExports(tools);
  const reports: Partial<Record<ReportMode, ProviderExportReport>> = {};
  for (const mode of REPORT_MODES) reports[mode] = reportOf(exports, mode, options);
  return reports as ProviderReports;
}

/**
 * The export modes {@link ProviderReports} has, in its order.
 *
 * @category Agent developers: providers
 */
export type ReportMode = keyof ProviderReports;

/**
 * Every mode of {@link ProviderReports}.
 *
 * @category Agent developers: providers
 */
export const REPORT_MODES: readonly ReportMode[] = Object.freeze([
  "openai",
  "openaiStrict",
  "anthropic",
  "anthropicStrict",
  "gemini",
  "geminiExact",
]);

/**
 * The report of one mode, from `exports` (made once there).
 *
 * @param exports the tools' exports
 * @param mode the mode
 * @param options `closeOpenObjects` for the strict modes
 *
 * @category Agent developers: providers
 */
export function reportOf(
  exports: ProviderExports,
  mode: ReportMode,
  options: ProviderExportOptions = {},
): ProviderExportReport {
  switch (mode) {
    case "openai":
      return exports.get(toOpenAITools).report;
    case "openaiStrict":
      return exports.get(toOpenAITools, { ...options, strict: true }).report;
    case "anthropic":
      return exports.get(toAnthropicTools).report;
    case "anthropicStrict":
      return exports.get(toAnthropicTools, { ...options, strict: true }).report;
    case "gemini":
      return exports.get(toGeminiTools).report;
    case "geminiExact":
      return exports.get(toGeminiTools, { exact: true }).report;
  }
}
