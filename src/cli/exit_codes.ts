/**
 * The exit codes of every `sluice` command, documented in `sluice --help` and docs/cli.md.
 *
 * @module
 */

/**
 * The command did what was asked.
 *
 * @category CLI
 */
export const EXIT_OK = 0;
/**
 * A refusal or failure with a stable code, printed as `refused: <code>: <message>`.
 *
 * @category CLI
 */
export const EXIT_REFUSED = 1;
/**
 * The command line was wrong (unknown command or option, missing value); usage is printed.
 *
 * @category CLI
 */
export const EXIT_USAGE = 2;

/**
 * The exit codes as `sluice --help` prints them.
 *
 * @category CLI
 */
export const EXIT_CODES_TEXT =
  "exit codes: 0 ok, 1 refused or failed (the code is printed), 2 usage error";
