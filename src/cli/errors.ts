/**
 * Refusals of the `sluice` command line that no library call makes: they protect an operator's
 * files and tokens before any store is opened.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import { failureHint, type FailureSettings } from "../connect/failure.ts";
import { EXIT_REFUSED } from "./exit_codes.ts";
import { terminalSafe } from "./terminal.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Codes of {@link CliError}.
 *
 * @category CLI
 */
export type CliErrorCode = CodeOf<"cli">;

/**
 * A refusal of the CLI, with a stable code; the message never holds the refused secret.
 *
 * @category CLI
 */
export class CliError extends SluiceError<CliErrorCode> {
  /**
   * Creates a CLI refusal.
   *
   * @param code stable error code
   * @param message explanation written by sluice
   */
  constructor(code: CliErrorCode, message: string) {
    super(code, message);
    this.name = "CliError";
  }
}

/**
 * Prints a sluice refusal as `refused: <code>: <message>` (terminal-safe) and returns the exit
 * code 1; rethrows anything that is not a `SluiceError`.
 *
 * @category CLI
 */
export function printRefusal(output: { stderr(text: string): void }, error: unknown): number {
  if (!(error instanceof SluiceError)) throw error;
  output.stderr(`refused: ${error.code}: ${terminalSafe(error.message)}\n`);
  return EXIT_REFUSED;
}

/**
 * The settings a server refusal's hint names, as the commands that reach servers spell them.
 *
 * @category CLI
 */
export const CLI_SETTINGS: FailureSettings = Object.freeze({
  loopback: "--allow-loopback",
  timeout: "--timeout <ms>",
});

/**
 * Prints the refusal of a server as `refused: <code>: <message>`, then, when sluice knows what
 * to check or change for that code, a `hint: ...` line naming the command's flags (a loopback
 * URL refused without `--allow-loopback` names it). Returns exit code 1.
 *
 * @param output where refusals go
 * @param code the stable code
 * @param message sluice's message
 * @param url the server's URL, when there is one (stdio has none)
 *
 * @category CLI
 */
export function printServerRefusal(
  output: { stderr(text: string): void },
  code: string,
  message: string,
  url: URL | undefined,
): number {
  output.stderr(`refused: ${code}: ${terminalSafe(message)}\n`);
  const hint = url === undefined ? undefined : failureHint(code, url, CLI_SETTINGS);
  if (hint !== undefined) output.stderr(`hint: ${terminalSafe(hint)}\n`);
  return EXIT_REFUSED;
}
