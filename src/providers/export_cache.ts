/**
 * The provider exports of one set of model-facing tools, each computed once: a toolkit keeps one
 * for its tools (a new one when a revision replaces them), so `toOpenAITools()` called on every
 * model turn, and `report().providers`, translate each schema once per mode.
 *
 * @module
 */
import { deepFreeze } from "../identity/mod.ts";
import type { ProviderExportReport, ProviderTools, ProviderToolSource } from "./types.ts";

/**
 * Attaches an export's report to its definitions, as `.report` (not enumerable).
 *
 * @param tools the exported definitions
 * @param report the export's report
 *
 * @category Agent developers: providers
 */
export function withReport<T>(tools: T[], report: ProviderExportReport): ProviderTools<T> {
  Object.defineProperty(tools, "report", { value: report, enumerable: false });
  return tools as ProviderTools<T>;
}

/**
 * The exports of one set of tools, each made once per export function and options.
 *
 * @category Agent developers: providers
 */
export class ProviderExports {
  /** The tools every export is made from. */
  readonly tools: readonly ProviderToolSource[];
  readonly #made = new Map<unknown, Map<string, ProviderTools<unknown>>>();

  /** @param tools the model-facing tools (a frozen array) */
  constructor(tools: readonly ProviderToolSource[]) {
    this.tools = tools;
  }

  /**
   * The export `make` gives for these tools with `options` (plain data: booleans), made on the
   * first call; every call returns its own copy, which the caller may change (a host adding
   * `cache_control` to a definition, say) without changing what the next caller gets.
   *
   * @param make an export function (`toOpenAITools`, ...)
   * @param options its options
   */
  get<T, O extends object>(
    make: (tools: readonly ProviderToolSource[], options?: O) => ProviderTools<T>,
    options?: O,
  ): ProviderTools<T> {
    let byOptions = this.#made.get(make);
    if (byOptions === undefined) this.#made.set(make, byOptions = new Map());
    const key = JSON.stringify(options ?? {});
    let made = byOptions.get(key) as ProviderTools<T> | undefined;
    if (made === undefined) {
      made = make(this.tools, options);
      deepFreeze(made);
      deepFreeze(made.report);
      byOptions.set(key, made as ProviderTools<unknown>);
    }
    return withReport(structuredClone(made), made.report);
  }
}
