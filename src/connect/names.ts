import { LOCAL_NAME, MAX_LOCAL_NAME_LENGTH } from "../catalog/bindings.ts";
import { ConnectConfigError } from "./errors.ts";

/**
 * The model-facing name of `server`'s `tool`: `<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_` (per UTF-16 code unit, so the length is predictable).
 * Returns `undefined` when the result would exceed 64 characters: truncating could make two
 * tools collide silently, so such a tool is refused instead.
 *
 * @param server the owner's server id
 * @param tool the remote tool name
 *
 * @category Agent developers: connect()
 */
export function localToolName(server: string, tool: string): string | undefined {
  const name = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  return LOCAL_NAME.test(name) ? name : undefined;
}

/**
 * Maps every allowed `(server, tool)` pair to its local name; two pairs sharing one local
 * name is an error, never a silent overwrite.
 *
 * @param pairs the allowed tools in allowlist order
 * @returns pair → local name
 *
 * @category Agent developers: connect()
 */
export function assignLocalNames<T extends { server: string; tool: string }>(
  pairs: readonly T[],
): Map<T, string> {
  const byName = new Map<string, T>();
  const names = new Map<T, string>();
  for (const pair of pairs) {
    const name = localToolName(pair.server, pair.tool);
    if (name === undefined) {
      throw new ConnectConfigError(
        "connect_allow_invalid",
        `the local name for "${pair.server}.${pair.tool}" would exceed ` +
          `${MAX_LOCAL_NAME_LENGTH} characters: shorten the server id`,
      );
    }
    const other = byName.get(name);
    if (other !== undefined) {
      throw new ConnectConfigError(
        "connect_name_collision",
        `"${other.server}.${other.tool}" and "${pair.server}.${pair.tool}" both map to the ` +
          `local name "${name}"`,
      );
    }
    byName.set(name, pair);
    names.set(pair, name);
  }
  return names;
}
