/**
 * Tool-definition diffs as text for people (a review, a CLI, a log): descriptions as a line
 * diff, schemas and other fields as JSON Pointer paths with before and after. Remote text is
 * shown, with control characters escaped so it cannot drive a terminal.
 *
 * @module
 */
import type { CatalogDiff, ChangedTool, JsonChange } from "./revisions.ts";
import type { LockMismatch } from "./lock.ts";
import type { ScreenChange } from "./screening.ts";

/** Escapes control characters (C0, DEL, C1, bidi overrides) of remote text as `\u{..}`. */
function printable(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

function json(value: unknown): string {
  return value === undefined ? "(absent)" : printable(JSON.stringify(value));
}

/** A line diff (longest common subsequence) of two texts, `-`/`+`/` ` prefixed. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${printable(a[i++])}`);
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(`+ ${printable(b[j++])}`);
    } else out.push(`- ${printable(a[i++])}`);
  }
  return out;
}

/** A schema property added or removed at `/properties/<name>` (nested too), said in words. */
function propertyNote(change: JsonChange): string | undefined {
  const match = /(?:^|\/)properties\/([^/]+)$/.exec(change.path);
  if (match === null) return undefined;
  const name = printable(match[1].replaceAll("~1", "/").replaceAll("~0", "~"));
  if (change.before === undefined) return `a new \`${name}\` property was added`;
  if (change.after === undefined) return `the \`${name}\` property was removed`;
  return undefined;
}

/**
 * One changed tool as text: its name and digests, then each changed field.
 *
 * @example
 * ```ts
 * import { renderChange } from "@sluice/mcp";
 * const text = renderChange({
 *   tool: "send_mail", beforeDigest: "sha256:aa", afterDigest: "sha256:bb",
 *   fields: ["inputSchema"],
 *   changes: { inputSchema: [{ path: "/properties/bcc", after: { type: "string" } }] },
 * });
 * console.assert(text.includes("a new `bcc` property was added to send_mail"));
 * ```
 *
 * @param change the changed tool
 *
 * @category Discovery and calls
 */
export function renderChange(change: ChangedTool): string {
  const tool = printable(change.tool);
  const lines = [`~ ${tool} (${change.beforeDigest} -> ${change.afterDigest})`];
  for (const field of change.fields) {
    const found = change.changes[field] ?? [];
    if (field === "description" && found.length === 1 && found[0].path === "") {
      lines.push(`  description:`);
      const before = typeof found[0].before === "string" ? found[0].before : "";
      const after = typeof found[0].after === "string" ? found[0].after : "";
      for (const line of lineDiff(before, after)) lines.push(`    ${line}`);
      continue;
    }
    lines.push(`  ${field}:`);
    for (const item of found) {
      const note = propertyNote(item);
      if (note !== undefined) lines.push(`    ${note} to ${tool}`);
      lines.push(
        `    ${item.path === "" ? "(whole value)" : printable(item.path)}: ${
          json(item.before)
        } -> ${json(item.after)}`,
      );
    }
  }
  if (change.screen !== undefined) lines.push(...screenLines(change.screen));
  return lines.join("\n");
}

/** What a change does to the screen's findings, one line per finding added or removed. */
function screenLines(screen: ScreenChange): string[] {
  return [
    "  screen:",
    ...screen.added.map((f) => `    adds a finding: ${f.code} at ${printable(f.pointer)}`),
    ...screen.removed.map((f) => `    removes a finding: ${f.code} at ${printable(f.pointer)}`),
  ];
}

/**
 * A catalog diff as text: `+` added, `-` removed, `~` changed with their fields; unchanged
 * tools are counted, not listed. `"no changes"` when nothing changed.
 *
 * @example
 * ```ts
 * import { renderDiff } from "@sluice/mcp";
 * const text = renderDiff({
 *   added: [{ tool: "add", digest: "sha256:cc" }], removed: [], changed: [], unchanged: [],
 * });
 * console.assert(text.startsWith("+ add"));
 * ```
 *
 * @param diff the diff
 *
 * @category Discovery and calls
 */
export function renderDiff(diff: CatalogDiff): string {
  const parts: string[] = [];
  for (const item of diff.added) parts.push(`+ ${printable(item.tool)} (${item.digest})`);
  for (const item of diff.removed) parts.push(`- ${printable(item.tool)} (${item.digest})`);
  for (const item of diff.changed) parts.push(renderChange(item));
  if (parts.length === 0) return "no changes";
  if (diff.unchanged.length > 0) parts.push(`(${diff.unchanged.length} unchanged)`);
  return parts.join("\n");
}

/**
 * Lock mismatches as text: changed tools with their diff, unlocked and missing ones by name.
 * `"matches the lock"` when there are none.
 *
 * @param mismatches what `compareLock` found
 *
 * @category Discovery and calls
 */
export function renderLockMismatches(mismatches: readonly LockMismatch[]): string {
  if (mismatches.length === 0) return "matches the lock";
  return mismatches.map((item) => {
    const tool = printable(item.tool);
    if (item.kind === "changed" && item.change) {
      // The lock's verdict, not the diff's: what differs from what was reviewed.
      const { screen: _, ...rest } = item.change;
      return renderChange(item.screen ? { ...rest, screen: item.screen } : rest);
    }
    if (item.kind === "screen" && item.screen) {
      return [
        `! ${tool}: the same definition, another screen verdict than the lock's`,
        ...screenLines(item.screen),
      ].join("\n");
    }
    if (item.kind === "unlocked") return `? ${tool} is not in the lock`;
    return `- ${tool} is locked but no longer listed`;
  }).join("\n");
}
