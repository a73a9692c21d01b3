/**
 * `sluice inspect --lock <file>`: like a package lock. Without the file, lock every tool the
 * server lists (protocol version, catalog digest, each tool's entry digest and definition) and
 * write it; with it, compare what the server lists now against it and say what changed.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import {
  compareLock,
  createLock,
  type LockMismatch,
  lockServer,
  parseLock,
  serializeLock,
} from "../catalog/lock.ts";
import { renderDiff, renderLockMismatches } from "../catalog/render_diff.ts";
import { definitionOfListed, diffDefinitions, type ToolDefinition } from "../catalog/revisions.ts";
import { SluiceError } from "../errors.ts";
import type { ScreenFinding } from "../screen/findings.ts";

/**
 * What `--lock` found: the lock written, or the listing checked against it.
 *
 * @category CLI
 */
export type InspectLockOutcome =
  | { readonly kind: "written"; readonly tools: number }
  | {
    readonly kind: "checked";
    /** Listed or locked tools that do not match, sorted by name. */
    readonly mismatches: readonly LockMismatch[];
    /** The field-level diff from the locked definitions to the listed ones, rendered. */
    readonly diff: string;
  };

/** Whether `error` says the file does not exist. */
function isMissing(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === "ENOENT";
}

/**
 * Writes or checks the lock at `path` for one server's listed tools.
 *
 * @param path the lock file
 * @param serverId the id the lock records the server under (`--server-id`)
 * @param protocolVersion the negotiated protocol version
 * @param tools every tool the server listed, as received
 * @param screen the screen's findings on each listed tool, same order (recorded in the lock,
 *   and compared with it)
 * @throws {SluiceError} `cli_lock_unreadable` when the file exists but cannot be read (or
 *   cannot be written when absent), or a
 *   `LockError` for a lock `parseLock` refuses
 *
 * @category CLI
 */
export async function inspectLock(
  path: string,
  serverId: string,
  protocolVersion: string,
  tools: readonly Record<string, unknown>[],
  screen: readonly (readonly ScreenFinding[])[],
): Promise<InspectLockOutcome> {
  const listed: ToolDefinition[] = tools.map(definitionOfListed);
  const screens = new Map(
    listed.map((definition, index) => [definition.name, screen[index] ?? []]),
  );
  let text: string | undefined;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (!isMissing(error)) {
      throw new SluiceError("cli_lock_unreadable", "the lock file cannot be read", {
        cause: error,
      });
    }
  }
  if (text === undefined) {
    const lock = createLock({ [serverId]: await lockServer(protocolVersion, listed, screens) });
    try {
      await writeFile(path, serializeLock(lock), { flag: "wx" });
    } catch (error) {
      throw new SluiceError("cli_lock_unreadable", "the lock file cannot be written", {
        cause: error,
      });
    }
    return { kind: "written", tools: listed.length };
  }
  const lock = await parseLock(text);
  const locked = Object.hasOwn(lock.servers, serverId) ? lock.servers[serverId] : undefined;
  const lockedDefinitions = Object.values(locked?.tools ?? {}).map((tool) => tool.definition);
  const names = new Set([...listed, ...lockedDefinitions].map((definition) => definition.name));
  const { mismatches } = await compareLock(locked, protocolVersion, names, listed, screens);
  const diff = renderDiff(await diffDefinitions(lockedDefinitions, listed));
  return { kind: "checked", mismatches, diff };
}

/**
 * The outcome as text for people: what was written, or the mismatches with their diff.
 *
 * @param path the lock file
 * @param outcome what {@link inspectLock} found
 *
 * @category CLI
 */
export function renderLockOutcome(path: string, outcome: InspectLockOutcome): string {
  if (outcome.kind === "written") {
    return `lock: wrote ${path} (${outcome.tools} tools); review it and commit it`;
  }
  if (outcome.mismatches.length === 0) return `lock: ${path}: every listed tool matches the lock`;
  return `lock: ${path}: ${outcome.mismatches.length} tools do not match the lock\n` +
    renderLockMismatches(outcome.mismatches);
}
