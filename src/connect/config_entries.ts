/**
 * The checks every list of a `connectAll` configuration shares: exact `"server.tool"` entries,
 * lists of strings, and the error a malformed field is.
 *
 * @module
 */
import { ConnectConfigError } from "./errors.ts";

/** A malformed configuration field. */
export function invalid(message: string): ConnectConfigError {
  return new ConnectConfigError("connect_config_invalid", message);
}

/** `value` as a list of strings (none when absent). */
export function stringList(value: unknown, field: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw invalid(`${field} must be an array of strings`);
  }
  return value;
}

/** Parses one exact `"server.tool"` entry against the known servers. */
export function parseEntry(
  entry: string,
  servers: ReadonlySet<string>,
  field: string,
): { server: string; tool: string } {
  // A wildcard anywhere is refused outright: the list must name every tool exactly.
  if (entry.includes("*")) {
    throw new ConnectConfigError("connect_allow_invalid", `${field}: wildcards are not allowed`);
  }
  const dot = entry.indexOf(".");
  const server = dot < 0 ? "" : entry.slice(0, dot);
  const tool = dot < 0 ? "" : entry.slice(dot + 1);
  if (server === "" || tool === "" || /\s/.test(entry) || !entry.isWellFormed()) {
    throw new ConnectConfigError(
      "connect_allow_invalid",
      `${field}: every entry must be an exact "server.tool"`,
    );
  }
  if (!servers.has(server)) {
    throw new ConnectConfigError(
      "connect_allow_invalid",
      `${field}: "${server.slice(0, 48)}" is not a configured server id`,
    );
  }
  return { server, tool };
}
