import { SluiceError } from "../errors.ts";

/**
 * Bounds on one discovery and on every call made through its registrations.
 *
 * @category Discovery and calls
 */
export interface ToolLimits {
  /** Most `tools/list` pages fetched. */
  readonly maxPages: number;
  /** Most tools the server may list in total (bound or not). */
  readonly maxTools: number;
  /** Most UTF-8 bytes of the canonical JSON of every listed tool together. */
  readonly maxCatalogBytes: number;
  /** Most UTF-8 bytes of one selected input or output schema. */
  readonly maxSchemaBytes: number;
  /** Most UTF-8 bytes of one selected tool's description. */
  readonly maxDescriptionBytes: number;
  /** Most UTF-8 bytes of the canonical JSON of one call's arguments. */
  readonly maxArgumentBytes: number;
  /** Most UTF-8 bytes of one call's result (text blocks plus structured content). */
  readonly maxResultBytes: number;
  /** Most content blocks in one call result. */
  readonly maxContentBlocks: number;
  /** Deadline of each request (one `tools/list` page or one `tools/call`), in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * Most milliseconds a request deadline may be raised to.
 *
 * @category Discovery and calls
 */
export const MAX_TIMEOUT_MS = 300_000;

/**
 * Default {@link ToolLimits}: 32 pages, 256 tools, 1 MiB catalog, 64 KiB per selected schema,
 * 8 KiB description, 64 KiB argument and result budgets, 128 content blocks, 30 s per request.
 *
 * @category Discovery and calls
 */
export const DEFAULT_TOOL_LIMITS: ToolLimits = Object.freeze({
  maxPages: 32,
  maxTools: 256,
  maxCatalogBytes: 1024 * 1024,
  maxSchemaBytes: 64 * 1024,
  maxDescriptionBytes: 8 * 1024,
  maxArgumentBytes: 64 * 1024,
  maxResultBytes: 64 * 1024,
  maxContentBlocks: 128,
  timeoutMs: 30_000,
});

/**
 * How far a host may raise the bounds of a large server's list, explicitly: 10,000 tools, a
 * 32 MiB catalog, 1,000 pages. Past a ceiling the limit is refused (`limits_invalid`); past the
 * limit in force, a listing fails closed with the same codes as at the defaults
 * (`mcp_too_many_tools`, `mcp_catalog_too_large`, `mcp_too_many_pages`). Every other bound may only
 * be lowered.
 *
 * @category Discovery and calls
 */
export const TOOL_LIMIT_CEILINGS: Readonly<
  Pick<ToolLimits, "maxPages" | "maxTools" | "maxCatalogBytes" | "timeoutMs">
> = Object.freeze({
  maxPages: 1_000,
  maxTools: 10_000,
  maxCatalogBytes: 32 * 1024 * 1024,
  timeoutMs: MAX_TIMEOUT_MS,
});

/**
 * Merges host overrides into the defaults. `maxTools`, `maxCatalogBytes`, `maxPages` and
 * `timeoutMs` may be raised up to {@link TOOL_LIMIT_CEILINGS}; every other bound may only be
 * lowered (a positive integer at most its default). Anything else (unknown keys, non-integers,
 * zero, larger values) throws `limits_invalid`.
 *
 * @category Discovery and calls
 */
export function resolveToolLimits(overrides: Partial<ToolLimits> = {}): ToolLimits {
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
    throw new SluiceError("limits_invalid", "limits must be an object");
  }
  const resolved: Record<string, number> = { ...DEFAULT_TOOL_LIMITS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(DEFAULT_TOOL_LIMITS, key)) {
      throw new SluiceError("limits_invalid", `unknown limit "${key.slice(0, 64)}"`);
    }
    if (value === undefined) continue;
    const ceiling = Object.hasOwn(TOOL_LIMIT_CEILINGS, key)
      ? TOOL_LIMIT_CEILINGS[key as keyof typeof TOOL_LIMIT_CEILINGS]
      : resolved[key];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw new SluiceError("limits_invalid", `limit "${key}" must be a positive integer`);
    }
    if (value > ceiling) {
      throw new SluiceError("limits_invalid", `limit "${key}" may be at most ${ceiling}`);
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved as unknown as ToolLimits);
}
