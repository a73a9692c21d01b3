/**
 * The process seam's contract: what the stdio transport needs from a child process, whichever
 * runtime spawns it (`deno_process.ts`, `node_process.ts`; `process.ts` chooses).
 *
 * @module
 */

/**
 * What to start: an executable and its arguments, never a shell; the environment is exactly
 * `env` (nothing inherited).
 */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/**
 * How a child process ended: its exit code, or the signal that ended it.
 *
 * @category Agent developers: connect()
 */
export interface ExitStatus {
  /** The exit code (`null` when a signal ended it). */
  readonly code: number | null;
  /** The signal that ended it (`"SIGKILL"`, ...), or `null`. */
  readonly signal: string | null;
}

/** What the transport is told as the child runs. */
export interface ProcessListener {
  stdout(chunk: Uint8Array): void;
  /** Its stdout reached its end (every writer closed it). */
  stdoutEnd(): void;
  stderr(chunk: Uint8Array): void;
  exit(status: ExitStatus): void;
}

/** A running child process: in its own process group where the platform has them. */
export interface ChildProcessHandle {
  readonly pid: number;
  /** Writes to its stdin; resolves once the bytes are taken (backpressure). */
  write(bytes: Uint8Array): Promise<void>;
  /** Closes its stdin (the MCP stdio rule's first step of a shutdown). */
  endInput(): void;
  /** Sends `signal` to its whole process group (POSIX), or to the child alone. Never throws. */
  kill(signal: "SIGTERM" | "SIGKILL"): void;
}

/** Why a spawn failed: the command is missing, or the runtime refused to run it. */
export type SpawnFailure = "not_found" | "permission" | "failed";

/** Starts child processes on one runtime. */
export interface Spawner {
  /** The runtime spawning. */
  readonly runtime: "deno" | "node";
  /** The host's environment variable `name` (for `inheritEnv`), if readable. */
  hostEnv(name: string): string | undefined;
  /** Starts the child; rejects with a {@link SpawnError}. */
  spawn(spec: ProcessSpec, listener: ProcessListener): Promise<ChildProcessHandle>;
}

/** A child that could not be started, and why. */
export class SpawnError extends Error {
  /** Why. */
  readonly reason: SpawnFailure;

  /**
   * Creates the error.
   *
   * @param reason why the spawn failed
   * @param cause the runtime's error
   */
  constructor(reason: SpawnFailure, cause: unknown) {
    super(`spawn failed (${reason})`, { cause });
    this.name = "SpawnError";
    this.reason = reason;
  }
}
