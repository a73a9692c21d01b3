/**
 * What a provider's grammar compiler checks of a whole schema rather than keyword by keyword:
 * definitions no `$ref` reaches (dropped, since a strict compiler checks every definition),
 * `$ref` cycles among definitions (refused where recursion is not supported), and the size it
 * counts (`enum` values and text).
 *
 * @module
 */
import { isRecord, type JsonObject, type JsonValue, toPointer } from "../identity/mod.ts";
import { resolveRef } from "./disjoint.ts";

/** Every `$ref` string inside `value` (a property named `$ref` holds a schema, not a ref). */
function collectRefs(value: JsonValue, into: string[], inProperties = false): void {
  if (Array.isArray(value)) value.forEach((item) => collectRefs(item, into));
  else if (isRecord(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (!inProperties && key === "$ref" && typeof member === "string") into.push(member);
      else collectRefs(member, into, !inProperties && key === "properties");
    }
  }
}

/**
 * The schema without definitions no `$ref` reaches from the root (they take no part in what
 * the schema accepts, like an annotation), and the pointers of those dropped. A strict grammar
 * compiler checks every definition, used or not.
 */
export function withoutUnusedDefinitions(root: JsonObject): [JsonObject, string[]] {
  const reached = new Set<string>();
  const pending: string[] = [];
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  collectRefs(body, pending);
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (reached.has(ref)) continue;
    reached.add(ref);
    const target = resolveRef(root, ref);
    if (target !== undefined) collectRefs(target, pending);
  }
  const out: JsonObject = { ...root };
  const dropped: string[] = [];
  for (const container of ["$defs", "definitions"]) {
    const defs = root[container];
    if (!isRecord(defs)) continue;
    const kept = Object.entries(defs).filter(([name]) => {
      const used = reached.has(`#/${container}/${name}`);
      if (!used) dropped.push(toPointer([container, name]));
      return used;
    });
    if (kept.length > 0) out[container] = Object.fromEntries(kept);
    else delete out[container];
  }
  return [out, dropped];
}

/**
 * What a grammar compiler counts in a schema: `enum` values, and the characters of property
 * names, definition names and `enum` / `const` strings.
 */
export function sizeOf(schema: JsonValue): { enumValues: number; text: number } {
  const size = { enumValues: 0, text: 0 };
  const strings = (value: JsonValue) => {
    if (typeof value === "string") size.text += value.length;
  };
  const visit = (node: JsonValue): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isRecord(node)) return;
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "enum" && Array.isArray(value)) {
        size.enumValues += value.length;
        value.forEach(strings);
      } else if (keyword === "const") strings(value);
      else if (["properties", "$defs", "definitions"].includes(keyword) && isRecord(value)) {
        for (const [name, member] of Object.entries(value)) {
          size.text += name.length;
          visit(member);
        }
      } else if (isRecord(value) || Array.isArray(value)) visit(value);
    }
  };
  visit(schema);
  return size;
}

/** The pointer of the first definition a `$ref` cycle among definitions comes back to. */
export function refCycle(root: JsonObject): string | undefined {
  const edges = new Map<string, string[]>();
  for (const container of ["$defs", "definitions"]) {
    const defs = root[container];
    if (!isRecord(defs)) continue;
    for (const [name, body] of Object.entries(defs)) {
      const refs: string[] = [];
      collectRefs(body, refs);
      edges.set(`#/${container}/${name}`, refs);
    }
  }
  const state = new Map<string, "open" | "done">();
  const visit = (node: string): string | undefined => {
    if (state.get(node) === "open") return node;
    if (state.get(node) === "done") return undefined;
    state.set(node, "open");
    for (const next of edges.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of edges.keys()) {
    const found = visit(node);
    if (found) return found.slice(1);
  }
  return undefined;
}
