/**
 * Refusals of the `sluice` command line that no library call makes: they protect an operator's
 * files and tokens before any store is opened.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";

/**
 * Codes of {@link CliError}.
 *
 * @category CLI
 */
export type CliErrorCode =
  | "cli_db_missing"
  | "cli_db_not_a_file"
  | "cli_db_not_a_store"
  | "cli_db_token_in_url"
  | "cli_db_unreadable"
  | "cli_inbox_listen_failed"
  | "cli_inspect_failed";

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
