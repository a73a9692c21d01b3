/**
 * The shapes every provider export shares: what a tool is built from, what an export refused,
 * changed or could not keep, and the record the call path uses to undo the strict transform.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { CodeIn } from "../codes.ts";

/**
 * What a provider definition is built from: a model-facing name, description and schema.
 *
 * @category Agent developers: providers
 */
export interface ProviderToolSource {
  /** The local name (`[A-Za-z0-9_-]{1,64}`, starting with a letter or `_`). */
  readonly name: string;
  /** Model-facing description. */
  readonly description: string;
  /** The input schema (a JSON Schema object that fits the schema profile). */
  readonly inputSchema: Readonly<JsonObject>;
}

/**
 * The model APIs sluice exports tools for.
 *
 * @category Agent developers: providers
 */
export type Provider = "openai" | "openai-responses" | "anthropic" | "gemini";

/**
 * Options every export takes.
 *
 * @category Agent developers: providers
 */
export interface ProviderExportOptions {
  /**
   * Closes objects that admit properties they do not list (`additionalProperties` absent,
   * `true` or a schema) so a strict mode accepts them. This narrows what the model may send:
   * the export then accepts less than the server does. Without it such tools are refused in
   * strict mode.
   */
  readonly closeOpenObjects?: boolean;
}

/**
 * Codes of a tool refused for one provider.
 *
 * @category Agent developers: providers
 */
export type ProviderRefusalCode = CodeIn<"ProviderRefusalCode">;

/**
 * One reason a tool was left out of an export.
 *
 * @category Agent developers: providers
 */
export interface ProviderRefusal {
  /** Why. */
  readonly code: ProviderRefusalCode;
  /** The API the export was for. */
  readonly provider: Provider;
  /** The tool's model-facing name. */
  readonly tool: string;
  /** The keyword at fault (`name` for a name refusal). */
  readonly keyword: string;
  /** JSON Pointer of the keyword's schema inside the input schema (`""` for the root). */
  readonly path: string;
}

/**
 * The transforms an export may apply; each keeps meaning except `object_closed`.
 *
 * @category Agent developers: providers
 */
export type ProviderTransformKind =
  /** `type: "object"` added to a root without `type` (MCP arguments are always an object). */
  | "root_type_added"
  /** A pure annotation the provider rejects was dropped. */
  | "annotation_dropped"
  /** An optional property made required and nullable (the call path removes the `null`). */
  | "optional_made_nullable"
  /** `oneOf` written as `anyOf`: its branches are provably disjoint. */
  | "one_of_as_any_of"
  /** An open object closed; only with `closeOpenObjects` (this one narrows). */
  | "object_closed";

/**
 * One transform applied to a tool's schema.
 *
 * @category Agent developers: providers
 */
export interface ProviderTransform {
  /** What was done. */
  readonly kind: ProviderTransformKind;
  /** The keyword it concerns. */
  readonly keyword: string;
  /** JSON Pointer of the schema it was applied to, in the original input schema. */
  readonly path: string;
}

/**
 * A keyword the provider accepts but does not apply to what the model generates.
 *
 * @category Agent developers: providers
 */
export interface ProviderLoss {
  /** The keyword. */
  readonly keyword: string;
  /** JSON Pointer of its schema in the original input schema. */
  readonly path: string;
}

/**
 * How one tool fared in one export.
 *
 * @category Agent developers: providers
 */
export type ToolFidelityStatus = "unchanged" | "transformed" | "lossy" | "refused";

/**
 * One tool's line in an export report.
 *
 * @category Agent developers: providers
 */
export interface ToolFidelity {
  /** The tool's model-facing name. */
  readonly tool: string;
  /** `refused` wins over `lossy`, which wins over `transformed`. */
  readonly status: ToolFidelityStatus;
  /** Transforms applied (empty when refused). */
  readonly transforms: readonly ProviderTransform[];
  /** Keywords the provider ignores (Gemini; empty elsewhere and when refused). */
  readonly lossy: readonly ProviderLoss[];
  /** Why the tool was refused (empty unless refused). */
  readonly refusals: readonly ProviderRefusal[];
}

/**
 * A request-level limit of the provider that the exported tools exceed together.
 *
 * @category Agent developers: providers
 */
export interface ProviderLimitNotice {
  /** Which limit. */
  readonly limit: "tools" | "strict_tools" | "optional_parameters" | "union_parameters";
  /** The provider's documented maximum per request. */
  readonly max: number;
  /** What this export holds. */
  readonly actual: number;
}

/**
 * Which `null`s of a strict export's arguments stand for an omitted optional property, by
 * instance location. The call path removes them with `stripExportNulls` before validating
 * against the original schema.
 *
 * @category Agent developers: providers
 */
export interface NullPlan {
  /** Properties of an object instance whose `null` means "absent". */
  readonly nullable?: readonly string[];
  /** Plans for the values of named properties. */
  readonly properties?: Readonly<Record<string, NullPlan>>;
  /** Plan for every element of an array instance. */
  readonly items?: NullPlan;
  /** Plan of a definition (a key of `NullRecord.defs`), applied first. */
  readonly ref?: string;
  /** Plan of the one `anyOf` branch that admits objects, for object instances. */
  readonly whenObject?: NullPlan;
  /** Plan of the one `anyOf` branch that admits arrays, for array instances. */
  readonly whenArray?: NullPlan;
}

/**
 * The strict transform's record for one tool: a plan for the root and for definitions.
 *
 * @category Agent developers: providers
 */
export interface NullRecord {
  /** The arguments object's plan. */
  readonly root: NullPlan;
  /** Plans of definitions, by `$ref` target (`#/$defs/name`). */
  readonly defs: Readonly<Record<string, NullPlan>>;
}

/**
 * What an export did, tool by tool.
 *
 * @category Agent developers: providers
 */
export interface ProviderExportReport {
  /** The API the export is for. */
  readonly provider: Provider;
  /** Whether the export is for the provider's strict mode. */
  readonly strict: boolean;
  /** One line per input tool, in input order. */
  readonly tools: readonly ToolFidelity[];
  /** Every refusal (the tools left out), in input order. */
  readonly refused: readonly ProviderRefusal[];
  /** Request-level limits the exported tools exceed together. */
  readonly limits: readonly ProviderLimitNotice[];
  /** Strict exports with `optional_made_nullable`: the record to undo it, by tool name. */
  readonly nullable: Readonly<Record<string, NullRecord>>;
}

/**
 * An export: the provider's tool definitions (an array, to pass as `tools` as it is) with the
 * report attached as a non-enumerable `report` property, so serializing the array sends only
 * the tools.
 *
 * @category Agent developers: providers
 */
export type ProviderTools<T> = T[] & { readonly report: ProviderExportReport };
