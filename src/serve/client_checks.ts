/**
 * The checks every kind of served client shares (bearer-token, OAuth, stdio): its name and its
 * allowlist of served tools.
 *
 * @module
 */
import { ServeError } from "./errors.ts";

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const LOCAL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `name` when it is 1 to 64 characters of `[A-Za-z0-9_.-]`; throws `serve_config_invalid`.
 *
 * @param name the configured name
 * @param where the configuration path, for the message
 *
 * @category sluice serve
 */
export function checkedName(name: unknown, where: string): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw invalid(`${where}.name must be 1 to 64 characters of [A-Za-z0-9_.-]`);
  }
  return name;
}

/**
 * A frozen copy of an allowlist of local tool names, or `undefined` when there is none; throws
 * `serve_config_invalid` for one that is not a list of local names.
 *
 * @param allow the configured allowlist
 * @param where the configuration path, for the message
 *
 * @category sluice serve
 */
export function checkedAllow(allow: unknown, where: string): readonly string[] | undefined {
  if (allow === undefined) return undefined;
  if (!Array.isArray(allow)) throw invalid(`${where}.allow must be a list`);
  for (const name of allow) {
    if (typeof name !== "string" || !LOCAL_NAME.test(name)) {
      throw invalid(`${where}.allow holds an entry that is not a local tool name`);
    }
  }
  return Object.freeze([...allow]);
}

function invalid(message: string): ServeError {
  return new ServeError("serve_config_invalid", `sluice serve: ${message}`);
}
