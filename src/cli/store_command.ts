/**
 * What every command that works in an approval store shares: where it writes, how its host
 * opens the store named by `--db`, and reading a JSON object from a file named by a flag.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/types.ts";
import { readFile } from "node:fs/promises";
import type { JsonObject } from "../identity/mod.ts";
import { printRefusal } from "./errors.ts";
import { type ParsedFlags, UsageError } from "./flags.ts";
import type { CliStoreOptions } from "./store.ts";

/**
 * Where the CLI writes; each call is one chunk of text ending in a newline.
 *
 * @category CLI
 */
export interface CliOutput {
  /** Normal output. */
  stdout(text: string): void;
  /** Refusals and usage. */
  stderr(text: string): void;
}

/**
 * What the CLI needs from its host.
 *
 * @category CLI
 */
export interface ApprovalsCliOptions {
  /** Opens the store named by `--db`, with `--auth-token` and `--create`. */
  openStore(url: string, options: CliStoreOptions): Promise<ApprovalStore>;
  /** Token used when `--auth-token` is absent (for example `SLUICE_DB_AUTH_TOKEN`). */
  readonly defaultAuthToken?: string;
  /** Store URL used when `--db` is absent (for example from an environment variable). */
  readonly defaultDb?: string;
  /** Clock for "past expiry" hints; `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * Reads a file holding one JSON object; anything else is a usage error naming `flag`.
 *
 * @category CLI
 */
export async function readJsonObject(path: string, flag: string): Promise<JsonObject> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch {
    throw new UsageError(`${flag} must name a readable file holding JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${flag} must hold a JSON object`);
  }
  return value as JsonObject;
}

/**
 * Opens the store named by `db` (with `--create` and `--auth-token` from `flags`), runs `body`
 * on it and closes it; a sluice refusal is printed with its code and exits 1.
 *
 * @category CLI
 */
export async function withCliStore(
  flags: ParsedFlags["flags"],
  db: string,
  output: CliOutput,
  options: ApprovalsCliOptions,
  body: (store: ApprovalStore) => Promise<number>,
): Promise<number> {
  let store: ApprovalStore | undefined;
  try {
    const authToken = flags.get("auth-token") ?? options.defaultAuthToken;
    store = await options.openStore(db, {
      create: flags.has("create"),
      ...(authToken === undefined ? {} : { authToken }),
    });
    return await body(store);
  } catch (error) {
    return printRefusal(output, error);
  } finally {
    await store?.close();
  }
}
