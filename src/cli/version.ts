/**
 * The version `sluice --version` prints; `tests/cli/cli_test.ts` keeps it equal to deno.json's.
 *
 * @module
 */

/**
 * The package version.
 *
 * @category CLI
 */
export const VERSION = "0.1.0";
