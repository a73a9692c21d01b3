/**
 * Undoes the strict transform on a model's arguments: where the export made an optional
 * property required and nullable, the model's `null` there means "not given", so it is
 * removed before the arguments are validated against the original schema and sent.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { NullPlan, NullRecord } from "./types.ts";

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function apply(value: unknown, plan: NullPlan, record: NullRecord, depth: number): unknown {
  if (depth > 64) return value;
  let current = value;
  if (plan.ref !== undefined && Object.hasOwn(record.defs, plan.ref)) {
    current = apply(current, record.defs[plan.ref], record, depth + 1);
  }
  if (Array.isArray(current)) {
    if (plan.whenArray) current = apply(current, plan.whenArray, record, depth + 1);
    const items = plan.items;
    if (items && Array.isArray(current)) {
      current = current.map((item) => apply(item, items, record, depth + 1));
    }
    return current;
  }
  if (!isObject(current)) return current;
  if (plan.whenObject) current = apply(current, plan.whenObject, record, depth + 1);
  if (!isObject(current)) return current;
  const out: Record<string, unknown> = { ...current };
  for (const name of plan.nullable ?? []) {
    if (Object.hasOwn(out, name) && out[name] === null) delete out[name];
  }
  for (const [name, inner] of Object.entries(plan.properties ?? {})) {
    if (Object.hasOwn(out, name)) out[name] = apply(out[name], inner, record, depth + 1);
  }
  return out;
}

/**
 * The model's arguments as the original schema expects them: every `null` the strict export
 * put in place of an omitted optional property removed (the property is then absent), nothing
 * else changed. Pure: returns a copy and never throws; values that do not fit the plan's
 * shape pass through for validation to judge.
 *
 * @example
 * ```ts
 * import { stripExportNulls, toOpenAITools } from "@sluice/mcp";
 * const tools = toOpenAITools([{
 *   name: "search",
 *   description: "Search",
 *   inputSchema: {
 *     type: "object",
 *     properties: { q: { type: "string" }, limit: { type: "integer" } },
 *     required: ["q"],
 *     additionalProperties: false,
 *   },
 * }], { strict: true });
 * const record = tools.report.nullable["search"];
 * console.log(stripExportNulls({ q: "x", limit: null }, record)); // { q: "x" }
 * ```
 *
 * @param args the arguments the model sent for a strict export
 * @param record the export's record for that tool (`report.nullable[name]`)
 *
 * @category Agent developers: providers
 */
export function stripExportNulls(args: unknown, record: NullRecord): unknown {
  return apply(args, record.root, record, 0);
}
