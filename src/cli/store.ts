/**
 * Opens the approval store an operator names with `--db`, refusing what the library would
 * otherwise do silently: a token written into the URL (it would be sent, and end up in shell
 * history), a path that does not exist (a typo would create an empty database), a path that is
 * no regular file (reading a named pipe waits for a writer forever; a directory fails deep in
 * the driver), and a database that is not a sluice approval store (opening it would migrate it
 * and switch it to WAL). The checks read the database without writing; only then is the store
 * opened through `LibsqlApprovalStore.open`.
 *
 * @module
 */
import { loadOptional } from "../optional_packages.ts";
import type { Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { ApprovalError } from "../approvals/errors.ts";
import { LibsqlApprovalStore } from "../approvals/libsql/store.ts";
import { resolveStoreUrl } from "../approvals/libsql/url.ts";
import { openStoreByUrl } from "./open_store.ts";
import type { ApprovalStore } from "../approvals/types.ts";
import { CliError } from "./errors.ts";

/**
 * How the CLI opens a store.
 *
 * @category CLI
 */
export interface CliStoreOptions {
  /** Token for a `libsql:` / `https:` server (`--auth-token` or `SLUICE_DB_AUTH_TOKEN`). */
  readonly authToken?: string;
  /** `--create`: an absent or empty database may be created. */
  readonly create?: boolean;
  /** The PostgreSQL password (`SLUICE_APPROVALS_DB_PASSWORD`; never in the URL). */
  readonly password?: string;
}

/** Query parameter names that carry credentials (`authToken`, `token`, `jwt`, `key`, ...). */
const SECRET_PARAM = /auth|token|jwt|key|secret|pass|cred/i;

/** The tables every sluice approval store has, whatever its schema version. */
const STORE_TABLES = ["schema_version", "approvals"];

/** The 16-byte header every SQLite database file starts with. */
const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * Refuses a URL with user info, a credential-like query parameter or a fragment, before any
 * connection. A database URL has no use for a fragment, and one can hold a token bare
 * (`postgres://host/db#secret`), so any fragment is refused; the message never repeats it.
 *
 * @category CLI
 */
export function refuseTokenInUrl(db: string): void {
  // A scheme (not a Windows drive letter, not a local file: URL) makes it a server URL.
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(db) || /^[a-zA-Z]:[\\/]/.test(db) || /^file:/i.test(db)) {
    return;
  }
  let url: URL;
  try {
    url = new URL(db);
  } catch {
    return; // resolveStoreUrl refuses it with its own code
  }
  const secretParam = [...url.searchParams.keys()].find((name) => SECRET_PARAM.test(name));
  // A PostgreSQL role name is no secret (its password comes from SLUICE_APPROVALS_DB_PASSWORD).
  const roleOnly = /^postgres(ql)?:$/i.test(url.protocol) && url.password === "";
  const where = (url.username !== "" && !roleOnly) || url.password !== ""
    ? "user info"
    : secretParam !== undefined
    ? `query parameter ${secretParam}`
    : url.hash !== ""
    ? "a fragment after #"
    : undefined;
  if (where !== undefined) {
    throw new CliError(
      "cli_db_token_in_url",
      `the --db URL carries a credential (${where}); pass it with --auth-token or SLUICE_DB_AUTH_TOKEN instead`,
    );
  }
}

/** The local file a `file:` store URL or plain path names. */
function filePath(url: string): string {
  const path = url.slice("file:".length).replace(/^\/\/(localhost)?(?=\/)/, "");
  return decodeURIComponent(path.replace(/[?#].*$/, ""));
}

/** The system's code of a failed file operation (`ENOENT`, `EACCES`, ...). */
const systemCode = (error: unknown) => String((error as { code?: unknown }).code ?? "unknown");

/** What a path that is no regular file is, for the refusal. */
function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * Whether a regular file exists at `path` (links followed), looked at without opening it:
 * `false` when nothing is there, a refusal when something else is.
 *
 * @throws {CliError} `cli_db_not_a_file` or `cli_db_unreadable`
 */
async function isRegularFile(path: string): Promise<boolean> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = systemCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw new CliError("cli_db_unreadable", `cannot examine ${path} (${code})`);
  }
  if (!info.isFile()) {
    throw new CliError("cli_db_not_a_file", `${path} is ${kindOf(info)}, not a database file`);
  }
  return true;
}

/**
 * Refuses a `--db` that names a local path (a path or `file:` URL) that exists and is no
 * regular file, before anything opens it; server URLs and `:memory:` pass.
 *
 * @throws {CliError} `cli_db_not_a_file` or `cli_db_unreadable`
 *
 * @category CLI
 */
export async function refuseNonFileDb(db: string): Promise<void> {
  await localDbFile(db);
}

/**
 * The local file `db` names (a path or `file:` URL) and whether it exists now, looked at
 * without opening it; `undefined` for a server URL, `:memory:` or a URL the store refuses.
 *
 * @throws {CliError} `cli_db_not_a_file` or `cli_db_unreadable` for something else at the path
 *
 * @category CLI
 */
export async function localDbFile(
  db: string,
): Promise<{ readonly path: string; readonly exists: boolean } | undefined> {
  let location;
  try {
    location = resolveStoreUrl(db);
  } catch {
    return undefined; // the store's open refuses it with its own code
  }
  if (location.kind !== "file") return undefined;
  const path = filePath(location.url);
  return { path, exists: await isRegularFile(path) };
}

/** The file's first bytes, or undefined when it does not exist. */
async function fileStart(path: string): Promise<Uint8Array | undefined> {
  if (!(await isRegularFile(path))) return undefined;
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new CliError("cli_db_unreadable", `cannot read ${path} (${systemCode(error)})`);
  }
  try {
    const buffer = new Uint8Array(16);
    const { bytesRead } = await handle.read(buffer, 0, 16, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Names of the tables in the database at `url`, read without writing. */
async function tableNames(url: string, authToken: string | undefined): Promise<string[]> {
  const { createClient } = await loadOptional("@libsql/client", () => import("@libsql/client"));
  try {
    const client = createClient({ url, ...(authToken === undefined ? {} : { authToken }) });
    try {
      const result = await client.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
      );
      return result.rows.map((row) => String(row[0]));
    } finally {
      client.close();
    }
  } catch {
    // The driver's text can hold the server's words; sluice says what failed in its own.
    throw new ApprovalError("approval_store_error", "could not read the database at --db");
  }
}

/**
 * Opens the store named by `db` after the CLI's checks: no credential in the URL, an existing
 * file unless `create`, and either a sluice approval store or (with `create`) an empty one.
 *
 * @throws {CliError} `cli_db_token_in_url`, `cli_db_missing`, `cli_db_not_a_file`,
 *   `cli_db_unreadable` or `cli_db_not_a_store`
 * @throws {ApprovalError} what `resolveStoreUrl` and `LibsqlApprovalStore.open` refuse
 *
 * @category CLI
 */
export async function openCliStore(
  db: string,
  options: CliStoreOptions = {},
): Promise<ApprovalStore> {
  refuseTokenInUrl(db);
  // PostgreSQL: the store's own open check refuses a database whose schema is not its own.
  if (/^postgres(ql)?:/.test(db)) return await openStoreByUrl(db, options.password);
  const location = resolveStoreUrl(db);
  if (location.kind === "file") {
    const path = filePath(location.url);
    const start = await fileStart(path);
    if (start === undefined) {
      if (!options.create) {
        throw new CliError(
          "cli_db_missing",
          `no approval database at ${path}; pass --create to create one`,
        );
      }
    } else if (start.length > 0) {
      if (new TextDecoder().decode(start) !== SQLITE_HEADER) {
        throw new CliError("cli_db_not_a_store", `${path} is not a SQLite database`);
      }
    }
  }
  if (location.kind !== "memory") {
    const tables = await tableNames(location.url, options.authToken);
    const isStore = STORE_TABLES.every((name) => tables.includes(name));
    if (tables.length > 0 && !isStore) {
      throw new CliError(
        "cli_db_not_a_store",
        `the database at --db is not a sluice approval store (it has ${tables.length} other tables); nothing was changed`,
      );
    }
    if (tables.length === 0 && !options.create) {
      throw new CliError(
        "cli_db_missing",
        "the database at --db is empty, not an approval store; pass --create to create one",
      );
    }
  }
  return await LibsqlApprovalStore.open(
    db,
    options.authToken === undefined ? {} : { authToken: options.authToken },
  );
}
