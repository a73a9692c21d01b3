/**
 * The stdio form of a server entry: what the host gives (`StdioCommand`), checked, and resolved
 * into the process spec and bounds the stdio session runs with.
 *
 * @module
 */
import { isRecord } from "../identity/mod.ts";
import type { ProcessSpec } from "../transport/stdio/spawn_types.ts";
import { invalid, stringList } from "./config_entries.ts";

/**
 * A local MCP server started as a child process and spoken to over its stdin and stdout: an
 * executable and its arguments, never run through a shell. Its environment is exactly `env`
 * plus the host variables named in `inheritEnv` (nothing is inherited by default, not even
 * `PATH`; a bare command name is looked up on the `PATH` given here, else the host's).
 *
 * @example
 * ```ts
 * import type { StdioCommand } from "@sluice/mcp";
 * const filesystem: StdioCommand = {
 *   command: "/usr/bin/node",
 *   args: ["/opt/mcp/server-filesystem/dist/index.js", "/srv/notes"],
 *   env: { NODE_ENV: "production" },
 *   inheritEnv: ["HOME"],
 * };
 * ```
 *
 * @category Agent developers: connect()
 */
export interface StdioCommand {
  /** The executable: an absolute path, or a name looked up on `PATH`. */
  readonly command: string;
  /** Its arguments, passed as they are (no shell, no expansion). */
  readonly args?: readonly string[];
  /** Environment variables set for it (nothing else is set, unless named in `inheritEnv`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Names of the host's environment variables copied in where set (`env` wins). Default none. */
  readonly inheritEnv?: readonly string[];
  /** Working directory (default: the host's). */
  readonly cwd?: string;
  /**
   * The most bytes of one stdout line (one frame): a longer one ends the server with
   * `stdio_frame_too_large`. Default 4 MiB; each message is also bounded by
   * `transport.maxResponseBytes` (a response over it fails its call with
   * `transport_response_too_large`).
   */
  readonly maxFrameBytes?: number;
  /** The most bytes of the server's stderr kept for the operator (the tail). Default 16 KiB. */
  readonly maxStderrBytes?: number;
  /**
   * How long `close()` waits for the server to exit after closing its stdin, and again after
   * SIGTERM, before SIGKILL to its process group. Default 2 000 ms.
   */
  readonly closeTimeoutMs?: number;
}

/** A stdio entry after validation. */
export interface ResolvedStdio {
  readonly spec: ProcessSpec;
  readonly inheritEnv: readonly string[];
  readonly maxFrameBytes: number;
  readonly maxStderrBytes: number;
  readonly closeTimeoutMs: number;
}

/** Default cap of one stdout line. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Default bytes of stderr kept. */
export const DEFAULT_MAX_STDERR_BYTES = 16 * 1024;
/** Default wait of each step of a close. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const hasNul = (text: string) => text.includes("\0");

function bound(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw invalid(`${field} must be an integer from ${min} to ${max}`);
  }
  return value as number;
}

function envOf(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw invalid(`${where}: env must be an object of strings`);
  const env: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (!ENV_NAME.test(name) || typeof text !== "string" || hasNul(text)) {
      throw invalid(`${where}: env needs names of [A-Za-z0-9_] and string values without NUL`);
    }
    env[name] = text;
  }
  return env;
}

/**
 * Checks the stdio form of server entry `id` and resolves it. Throws `ConnectConfigError`.
 *
 * @param id the server's id (checked before)
 * @param entry the entry as the host gave it
 */
export function resolveStdio(id: string, entry: Record<string, unknown>): ResolvedStdio {
  const where = `server "${id}"`;
  for (const field of ["url", "token", "auth"]) {
    if (entry[field] !== undefined) throw invalid(`${where}: a stdio server takes no ${field}`);
  }
  const { command, cwd } = entry;
  if (typeof command !== "string" || command === "" || hasNul(command)) {
    throw invalid(`${where}: command must be a non-empty string`);
  }
  const args = stringList(entry.args, `${where}: args`);
  if (args.some(hasNul)) throw invalid(`${where}: args may not hold NUL`);
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "" || hasNul(cwd))) {
    throw invalid(`${where}: cwd must be a non-empty string`);
  }
  const inheritEnv = stringList(entry.inheritEnv, `${where}: inheritEnv`);
  if (!inheritEnv.every((name) => ENV_NAME.test(name))) {
    throw invalid(`${where}: inheritEnv names variables of [A-Za-z0-9_]`);
  }
  return {
    spec: {
      command,
      args: [...args],
      env: envOf(entry.env, where),
      ...(cwd !== undefined ? { cwd: cwd as string } : {}),
    },
    inheritEnv: [...inheritEnv],
    maxFrameBytes: bound(
      entry.maxFrameBytes,
      `${where}: maxFrameBytes`,
      DEFAULT_MAX_FRAME_BYTES,
      1024,
      256 * 1024 * 1024,
    ),
    maxStderrBytes: bound(
      entry.maxStderrBytes,
      `${where}: maxStderrBytes`,
      DEFAULT_MAX_STDERR_BYTES,
      0,
      16 * 1024 * 1024,
    ),
    closeTimeoutMs: bound(
      entry.closeTimeoutMs,
      `${where}: closeTimeoutMs`,
      DEFAULT_CLOSE_TIMEOUT_MS,
      0,
      60_000,
    ),
  };
}

/**
 * The URL that stands for a stdio server in messages and reports (`stdio:<id>`): it names no
 * network place, and the transport never reads it.
 *
 * @param id the server's id
 */
export function stdioUrl(id: string): URL {
  return new URL(`stdio:${id}`);
}
