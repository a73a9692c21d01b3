/**
 * The `cli` stage of the code catalog (the `sluice` command); `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `cli` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const CLI_CODES = {
  cli_db_missing: {
    stage: "cli",
    meaning:
      "The `--db` file does not exist, or is an empty database, and `--create` was not given.",
  },
  cli_db_not_a_store: {
    stage: "cli",
    meaning: "The `--db` database is not a sluice approval store; it was left untouched.",
  },
  cli_db_not_a_file: {
    stage: "cli",
    meaning:
      "The `--db` path names a directory, a named pipe (FIFO), a socket or a device, not a database file.",
  },
  cli_db_unreadable: {
    stage: "cli",
    meaning: "The `--db` path cannot be examined or read (permissions, a symbolic-link loop, ...).",
  },
  cli_db_token_in_url: {
    stage: "cli",
    meaning:
      "The `--db` URL carries a credential (user info, a token query parameter, or a fragment).",
  },
  cli_inbox_listen_failed: {
    stage: "cli",
    meaning: "`sluice inbox` could not listen on its loopback port (in use, or not allowed).",
  },
  cli_login_listen_failed: {
    stage: "cli",
    meaning:
      "`sluice login` could not listen for the browser's redirect on its loopback port (in use, or not allowed).",
  },
  cli_inspect_failed: {
    stage: "cli",
    meaning: "`sluice inspect` failed for a reason that has no code of its own.",
  },
  cli_lock_unreadable: {
    stage: "cli",
    meaning: "The `--lock` file exists but cannot be read (or written, when absent).",
  },
  cli_serve_listen_failed: {
    stage: "cli",
    meaning: "`sluice serve` could not listen on its host and port (in use, or not allowed).",
  },
  cli_serve_config_invalid: {
    stage: "cli",
    meaning:
      "The `sluice serve --config` file is not a serve configuration: an unknown key, a value of the wrong type, or a `tokenEnv` that is not set.",
  },
} as const satisfies StageCodes<"cli">;
