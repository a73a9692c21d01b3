/**
 * Revisions of a server's tool definitions: what the server itself defines of each tool
 * (never the host's policy), its entry digest, and a structured diff between two lists:
 * added, removed and changed tools, with the fields that changed and each change as JSON
 * Pointer paths with before and after.
 *
 * @module
 */
import { digest, isRecord, type JsonObject, type JsonValue, toPointer } from "../identity/mod.ts";
import type { SnapshotEntryBase } from "./snapshot.ts";
import { screenTool } from "../screen/screen.ts";
import { type ScreenChange, screenChange } from "./screening.ts";

/**
 * The fields of a tool that its server defines, in the order a diff names them. The entry
 * digest covers exactly these and the tool's name.
 *
 * @category Discovery and calls
 */
export const DEFINITION_FIELDS = [
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "execution",
] as const;

/**
 * One server-defined field of a tool.
 *
 * @category Discovery and calls
 */
export type DefinitionField = typeof DEFINITION_FIELDS[number];

/**
 * A tool as its server defines it, normalised like a snapshot entry: `description` is `""`
 * when absent, `outputSchema` and `annotations` are `null` when absent, `title` and
 * `execution` are left out when absent. The host's local name, policy, concurrency and
 * authorization are not part of it: they are the host's own configuration, already under the
 * host's review, and a lock or a revision pins only what the server can change.
 *
 * @category Discovery and calls
 */
export interface ToolDefinition {
  /** The tool's name on the server. */
  readonly name: string;
  /** The server's `title`, when it sent one. */
  readonly title?: string;
  /** The server's description (`""` when absent). */
  readonly description: string;
  /** The input schema. */
  readonly inputSchema: Readonly<JsonObject>;
  /** The output schema, or `null`. */
  readonly outputSchema: Readonly<JsonObject> | null;
  /** The annotations, or `null`. */
  readonly annotations: Readonly<JsonObject> | null;
  /** The `execution` object, when the server sent one. */
  readonly execution?: Readonly<JsonObject>;
}

/**
 * The definition recorded in a snapshot entry.
 *
 * @example
 * ```ts
 * import { definitionOfEntry } from "@sluice/mcp";
 * const entry = {
 *   localName: "docs__search", remoteName: "search", description: "Search",
 *   inputSchema: { type: "object" }, outputSchema: null, annotations: null,
 *   policy: { title: "Search" }, concurrencySafe: true,
 * };
 * const definition = definitionOfEntry(entry);
 * console.assert(definition.name === "search" && !("localName" in definition));
 * ```
 *
 * @param entry a read or write snapshot entry
 *
 * @category Discovery and calls
 */
export function definitionOfEntry(
  entry: Omit<SnapshotEntryBase, "policy" | "concurrencySafe">,
): ToolDefinition {
  return {
    name: entry.remoteName,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    annotations: entry.annotations,
    ...(entry.execution !== undefined ? { execution: entry.execution } : {}),
  };
}

/**
 * The definition of a tool as listed (a detached `tools/list` entry), normalised like a
 * snapshot entry. Fields of the wrong type are kept as listed (a diff still shows them);
 * discovery refuses such a tool on its own.
 *
 * @example
 * ```ts
 * import { definitionOfListed } from "@sluice/mcp";
 * const definition = definitionOfListed({ name: "echo", inputSchema: { type: "object" } });
 * console.assert(definition.description === "" && definition.outputSchema === null);
 * ```
 *
 * @param tool one detached tool of a listing
 *
 * @category Discovery and calls
 */
export function definitionOfListed(tool: Readonly<Record<string, unknown>>): ToolDefinition {
  const object = (value: unknown) => (value === undefined ? null : value) as JsonObject | null;
  return {
    name: String(tool.name),
    ...(tool.title !== undefined ? { title: tool.title as string } : {}),
    description: (tool.description ?? "") as string,
    inputSchema: (tool.inputSchema ?? null) as JsonObject,
    outputSchema: object(tool.outputSchema),
    annotations: object(tool.annotations),
    ...(tool.execution !== undefined ? { execution: tool.execution as JsonObject } : {}),
  };
}

/**
 * The entry digest of a definition: `sha256:<hex>` of its JCS canonical JSON.
 *
 * @example
 * ```ts
 * import { definitionDigest } from "@sluice/mcp";
 * const d = await definitionDigest({
 *   name: "echo", description: "", inputSchema: { type: "object" },
 *   outputSchema: null, annotations: null,
 * });
 * console.assert(d.startsWith("sha256:"));
 * ```
 *
 * @param definition the tool's definition
 *
 * @category Discovery and calls
 */
export function definitionDigest(definition: ToolDefinition): Promise<string> {
  return digest(definition as unknown as JsonValue);
}

/**
 * One difference at a JSON Pointer path: a value absent on one side has no key there.
 *
 * @category Discovery and calls
 */
export interface JsonChange {
  /** JSON Pointer (RFC 6901, escaped) into the field's value; `""` is the whole value. */
  readonly path: string;
  /** The value before, when there was one. */
  readonly before?: JsonValue;
  /** The value after, when there is one. */
  readonly after?: JsonValue;
}

/**
 * The differences between two JSON values as JSON Pointer paths, depth first, object keys in
 * UTF-16 order. Objects are compared key by key, arrays index by index; anything else (a
 * change of type too) is one change at its path.
 *
 * @example
 * ```ts
 * import { diffJson } from "@sluice/mcp";
 * const changes = diffJson(
 *   { properties: { to: { type: "string" } } },
 *   { properties: { to: { type: "string" }, bcc: { type: "string" } } },
 * );
 * console.assert(changes.length === 1 && changes[0].path === "/properties/bcc");
 * ```
 *
 * @param before the earlier value (`undefined` when absent)
 * @param after the later value (`undefined` when absent)
 *
 * @category Discovery and calls
 */
export function diffJson(before: unknown, after: unknown): JsonChange[] {
  const changes: JsonChange[] = [];
  walk(before, after, [], changes);
  return changes;
}

function walk(before: unknown, after: unknown, at: (string | number)[], out: JsonChange[]) {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) walk(before[key], after[key], [...at, key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      walk(before[i], after[i], [...at, i], out);
    }
    return;
  }
  if (sameJson(before, after)) return;
  out.push({
    path: toPointer(at),
    ...(before !== undefined ? { before: before as JsonValue } : {}),
    ...(after !== undefined ? { after: after as JsonValue } : {}),
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A tool only one side has.
 *
 * @category Discovery and calls
 */
export interface ToolPresence {
  /** The tool's name on the server. */
  readonly tool: string;
  /** Its entry digest. */
  readonly digest: string;
}

/**
 * A tool both sides have, with different definitions.
 *
 * @category Discovery and calls
 */
export interface ChangedTool {
  /** The tool's name on the server. */
  readonly tool: string;
  /** The entry digest before. */
  readonly beforeDigest: string;
  /** The entry digest after. */
  readonly afterDigest: string;
  /** The fields that changed, in {@link DEFINITION_FIELDS} order. */
  readonly fields: readonly DefinitionField[];
  /** Each changed field's differences as JSON Pointer paths into the field's value. */
  readonly changes: Readonly<Partial<Record<DefinitionField, readonly JsonChange[]>>>;
  /**
   * When the change changes the poisoning screen's findings (each side read alone): what it
   * adds and removes, codes and pointers. A change that adds a finding says so here.
   */
  readonly screen?: ScreenChange;
}

/**
 * A structured diff between two lists of tool definitions, each part sorted by name.
 *
 * @category Discovery and calls
 */
export interface CatalogDiff {
  /** Tools only the later list has. */
  readonly added: readonly ToolPresence[];
  /** Tools only the earlier list has. */
  readonly removed: readonly ToolPresence[];
  /** Tools whose definition changed. */
  readonly changed: readonly ChangedTool[];
  /** Tools whose entry digest is the same on both sides. */
  readonly unchanged: readonly ToolPresence[];
}

/**
 * Diffs two lists of tool definitions by name: which tools were added, removed, changed
 * (with the fields and JSON Pointer paths) or kept, each with its entry digest.
 *
 * @example
 * ```ts
 * import { diffDefinitions } from "@sluice/mcp";
 * const base = { inputSchema: { type: "object" }, outputSchema: null, annotations: null };
 * const diff = await diffDefinitions(
 *   [{ name: "echo", description: "Echo", ...base }],
 *   [{ name: "echo", description: "Echo it", ...base }, { name: "add", description: "", ...base }],
 * );
 * console.assert(diff.changed[0].fields[0] === "description" && diff.added[0].tool === "add");
 * ```
 *
 * @param before the earlier definitions
 * @param after the later definitions
 *
 * @category Discovery and calls
 */
export async function diffDefinitions(
  before: Iterable<ToolDefinition>,
  after: Iterable<ToolDefinition>,
): Promise<CatalogDiff> {
  const earlier = new Map([...before].map((definition) => [definition.name, definition]));
  const later = new Map([...after].map((definition) => [definition.name, definition]));
  const added: ToolPresence[] = [];
  const removed: ToolPresence[] = [];
  const changed: ChangedTool[] = [];
  const unchanged: ToolPresence[] = [];
  const names = [...new Set([...earlier.keys(), ...later.keys()])].sort();
  for (const name of names) {
    const a = earlier.get(name);
    const b = later.get(name);
    if (a === undefined) {
      added.push({ tool: name, digest: await definitionDigest(b!) });
      continue;
    }
    if (b === undefined) {
      removed.push({ tool: name, digest: await definitionDigest(a) });
      continue;
    }
    const change = await compareDefinitions(a, b);
    if (change === undefined) unchanged.push({ tool: name, digest: await definitionDigest(a) });
    else changed.push(change);
  }
  return { added, removed, changed, unchanged };
}

/**
 * Compares two definitions of one tool: `undefined` when their entry digests are equal,
 * otherwise what changed.
 *
 * @example
 * ```ts
 * import { compareDefinitions } from "@sluice/mcp";
 * const base = { name: "echo", inputSchema: { type: "object" }, outputSchema: null, annotations: null };
 * const same = await compareDefinitions({ ...base, description: "" }, { ...base, description: "" });
 * console.assert(same === undefined);
 * ```
 *
 * @param before the earlier definition
 * @param after the later definition (same name)
 *
 * @category Discovery and calls
 */
export async function compareDefinitions(
  before: ToolDefinition,
  after: ToolDefinition,
): Promise<ChangedTool | undefined> {
  const beforeDigest = await definitionDigest(before);
  const afterDigest = await definitionDigest(after);
  if (beforeDigest === afterDigest) return undefined;
  const fields: DefinitionField[] = [];
  const changes: Partial<Record<DefinitionField, readonly JsonChange[]>> = {};
  for (const field of DEFINITION_FIELDS) {
    const found = diffJson(before[field], after[field]);
    if (found.length === 0) continue;
    fields.push(field);
    changes[field] = found;
  }
  const screen = screenChange(screenOf(before), screenOf(after));
  return {
    tool: after.name,
    beforeDigest,
    afterDigest,
    fields,
    changes,
    ...(screen !== undefined ? { screen } : {}),
  };
}

/** A definition's findings read alone (null schemas are absent to the screen). */
function screenOf(definition: ToolDefinition) {
  return screenTool({
    ...definition,
    outputSchema: definition.outputSchema ?? undefined,
    annotations: definition.annotations ?? undefined,
  }, { otherToolNames: [] });
}
