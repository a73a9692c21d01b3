/**
 * The one export loop every provider shares: name rule, translation by the fidelity table,
 * per-tool and request-level limits, the report, and the provider's own wrapper.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { FIDELITY, fidelityMode } from "./fidelity.ts";
import { type TranslateOptions, translateSchema } from "./translate.ts";
import { withReport } from "./export_cache.ts";
import type {
  NullRecord,
  Provider,
  ProviderLimitNotice,
  ProviderRefusal,
  ProviderTools,
  ProviderToolSource,
  ToolFidelity,
} from "./types.ts";

/**
 * What every export takes: the strict switch and the translation options.
 *
 * @category Agent developers: providers
 */
export interface ExportOptions extends TranslateOptions {
  /** The provider's strict mode (ignored where there is none). */
  readonly strict?: boolean;
}

/**
 * Exports `tools` for `provider`; `build` wraps each translated schema in the provider's
 * shape. Refused tools are left out and listed in the report; the others keep their input
 * order.
 *
 * @param tools the model-facing tools
 * @param provider the API
 * @param options `strict`, `exact`, `closeOpenObjects`
 * @param build the provider's definition for one tool
 *
 * @category Agent developers: providers
 */
export function exportTools<T>(
  tools: readonly ProviderToolSource[],
  provider: Provider,
  options: ExportOptions,
  build: (tool: ProviderToolSource, schema: JsonObject, strict: boolean) => T,
): ProviderTools<T> {
  const mode = fidelityMode(provider, options.strict === true);
  const strict = mode.endsWith("-strict");
  const profile = FIDELITY[mode];
  const exported: T[] = [];
  const lines: ToolFidelity[] = [];
  const refused: ProviderRefusal[] = [];
  const nullable: Record<string, NullRecord> = {};
  let optional = 0;
  let unions = 0;
  for (const tool of tools) {
    const refuse = (code: ProviderRefusal["code"], keyword: string, path: string) =>
      Object.freeze({ code, provider, tool: tool.name, keyword, path });
    const translation = translateSchema(tool.inputSchema, mode, options);
    const refusals = translation.refusals.map(({ keyword, path }) =>
      refuse("provider_schema_unsupported", keyword, path)
    );
    if (!profile.name.test(tool.name)) {
      refusals.unshift(refuse("provider_name_unsupported", "name", ""));
    }
    const { maxOptional, maxUnions } = profile.rules;
    if (maxOptional !== undefined && translation.optional > maxOptional) {
      refusals.push(refuse("provider_schema_unsupported", "required", ""));
    }
    if (maxUnions !== undefined && translation.unions > maxUnions) {
      refusals.push(refuse("provider_schema_unsupported", "anyOf", ""));
    }
    const ok = refusals.length === 0 && translation.schema !== undefined;
    lines.push(Object.freeze({
      tool: tool.name,
      status: !ok
        ? "refused"
        : translation.lossy.length > 0
        ? "lossy"
        : translation.transforms.length > 0
        ? "transformed"
        : "unchanged",
      transforms: ok ? translation.transforms : [],
      lossy: ok ? translation.lossy : [],
      refusals,
    }));
    if (!ok) {
      refused.push(...refusals);
      continue;
    }
    exported.push(build(tool, translation.schema!, strict));
    if (translation.nulls) nullable[tool.name] = translation.nulls;
    optional += translation.optional;
    unions += translation.unions;
  }
  const limits: ProviderLimitNotice[] = [];
  const notice = (limit: ProviderLimitNotice["limit"], max: number | undefined, actual: number) => {
    if (max !== undefined && actual > max) limits.push({ limit, max, actual });
  };
  notice("tools", profile.maxTools, exported.length);
  if (strict) {
    notice("strict_tools", profile.maxStrictTools, exported.length);
    notice("optional_parameters", profile.rules.maxOptional, optional);
    notice("union_parameters", profile.rules.maxUnions, unions);
  }
  return withReport(
    exported,
    Object.freeze({ provider, strict, tools: lines, refused, limits, nullable }),
  );
}
