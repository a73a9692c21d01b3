/**
 * Why a stdio server's transport ended or refused a message, with what the operator needs to
 * see: the exit status and the escaped tail of its stderr (never shown to a model).
 *
 * @module
 */
import { TransportError, type TransportErrorCode } from "../errors.ts";
import type { ExitStatus } from "./spawn_types.ts";

/**
 * The codes of a stdio transport's own failures.
 *
 * @category Transport
 */
export type StdioErrorCode = Extract<TransportErrorCode, `stdio_${string}`>;

/**
 * A stdio server that could not be started, broke the framing, or ended. `exit` is its exit
 * status where it ended; `stderr` the escaped tail of what it wrote to stderr (bounded by
 * `maxStderrBytes`), for the operator's logs only.
 *
 * @category Transport
 */
export class StdioError extends TransportError {
  /** How the process ended, where it did. */
  readonly exit?: ExitStatus;
  /** The escaped, bounded tail of the server's stderr. */
  readonly stderr: string;

  /**
   * Creates the error.
   *
   * @param code stable error code
   * @param message fixed explanation written by sluice
   * @param details the exit status and the stderr tail
   */
  constructor(
    code: StdioErrorCode | "transport_response_too_large",
    message: string,
    details: { readonly exit?: ExitStatus; readonly stderr?: string } = {},
  ) {
    super(code, message);
    this.name = "StdioError";
    if (details.exit !== undefined) this.exit = details.exit;
    this.stderr = details.stderr ?? "";
  }
}

/**
 * "exited with status 3" or "was ended by SIGSEGV": the exit status in sluice's words.
 *
 * @param exit the exit status
 */
export function describeExit(exit: ExitStatus): string {
  if (exit.signal !== null) return `was ended by ${exit.signal}`;
  return exit.code === null ? "ended" : `exited with status ${exit.code}`;
}
