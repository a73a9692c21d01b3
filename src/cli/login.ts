/**
 * `sluice login <url> --db <file>`: an operator authorizes sluice at an OAuth-protected MCP
 * server once; later `connect()`s that open the same token store (`LibsqlTokenStore` with the
 * same key) find the tokens, and refresh them with the client registration that obtained them.
 * The same code on Deno, Node and Bun: the redirect listener is `node:http` on loopback. A
 * sign-in that fails leaves no file: a database that did not exist is created only once the
 * tokens are there to write.
 *
 * @module
 */
import { unlink } from "node:fs/promises";
import { OAuthClient } from "../auth/oauth_client.ts";
import { LibsqlTokenStore } from "../auth/libsql_token_store.ts";
import { MemoryTokenStore, type TokenStore } from "../auth/token_store.ts";
import { codeOf } from "../codes.ts";
import { SluiceError } from "../errors.ts";
import { DEFAULT_TIMEOUT_MS, type SecureFetchOptions } from "../transport/secure_fetch.ts";
import type { CliOutput } from "./store_command.ts";
import { printRefusal, printServerRefusal } from "./errors.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from "./exit_codes.ts";
import { parseFlags, UsageError } from "./flags.ts";
import { listenOnLoopback, type LoopbackServer } from "./serve_node.ts";
import { localDbFile, refuseTokenInUrl } from "./store.ts";
import { terminalSafe } from "./terminal.ts";

/**
 * Usage text of `sluice login`.
 *
 * @category CLI
 */
export const LOGIN_USAGE =
  `usage: sluice login <url> --db <file> [--allow-loopback] [--port N] [--scope s] [--timeout ms]
  signs sluice in at an OAuth-protected MCP server once, in your browser (authorization code
  flow with PKCE), and stores the tokens, encrypted, in <file> for later connect()s.
  <url>             the MCP server's Streamable HTTP endpoint
  --db <file>       the token database (a path or file: URL; the approval store's file may be
                    used): created only once the sign-in succeeded
  --allow-loopback  the server and its authorization server run on this machine: allow
                    loopback addresses and plain http to them (local development only)
  --port N          the redirect listener's port, http://127.0.0.1:N/callback (default 0: any
                    free port; fix one when the authorization server wants a known redirect URI)
  --scope <s>       the scope to ask for (default: what the server lists, and offline_access
                    when the authorization server offers it, for a refresh token)
  --timeout <ms>    deadline of each request (default ${DEFAULT_TIMEOUT_MS})
environment:
  SLUICE_TOKEN_KEY  required: the base64 of 32 random bytes; the tokens are encrypted under it
                    and every process that reads them needs the same key. Make one with
                      openssl rand -base64 32
${EXIT_CODES_TEXT}`;

/** What to do about a missing or unusable key; never repeats the key. */
const KEY_HELP = "SLUICE_TOKEN_KEY is the key the tokens are encrypted under in --db: the " +
  "base64 of 32 random bytes, which every process that reads the tokens needs too " +
  "(LibsqlTokenStore.open(db, { key })). Make one and keep it outside the database:\n" +
  '  export SLUICE_TOKEN_KEY="$(openssl rand -base64 32)"\n' +
  "  (without openssl: node -e \"console.log(require('node:crypto').randomBytes(32)" +
  ".toString('base64'))\")\n";

/**
 * The 32 key bytes of `SLUICE_TOKEN_KEY`, or what is wrong with it.
 *
 * @param text the variable's value
 */
function tokenKey(text: string | undefined): Uint8Array | string {
  if (text === undefined || text.trim() === "") return "SLUICE_TOKEN_KEY is not set";
  const value = text.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
    return "SLUICE_TOKEN_KEY is not base64";
  }
  const bytes = Uint8Array.from(atob(value), (char) => char.charCodeAt(0));
  return bytes.byteLength === 32
    ? bytes
    : `SLUICE_TOKEN_KEY decodes to ${bytes.byteLength} bytes, not 32`;
}

/**
 * Options of {@link login}.
 *
 * @category CLI
 */
export interface LoginOptions {
  /** The MCP server's URL. */
  readonly url: string;
  /** Where the tokens go: the store later `connect()`s use. */
  readonly store: TokenStore;
  /** Where the URL to open and the outcome are written (never a token). */
  readonly output: CliOutput;
  /** The loopback port of the redirect listener. Default 0 (any free port). */
  readonly port?: number;
  /** The scope requested. Default: what the server lists. */
  readonly scope?: string;
  /** The hardened fetch's options (`dangerouslyAllowLoopback` for `--allow-loopback`). */
  readonly transport?: SecureFetchOptions;
  /** Aborts the wait for the browser. */
  readonly signal?: AbortSignal;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "sluice-login", version: "0.1.0" },
  },
});

/**
 * Runs the authorization code flow for an operator: listens on `http://127.0.0.1:<port>/callback`,
 * prints the authorization URL to open, waits for the browser to come back, exchanges the code
 * and stores the tokens. Returns the exit code (0 stored, 1 refused), printing a refusal as
 * `refused: <code>: <message>` with a `hint:` line where sluice knows what to change.
 *
 * @example
 * ```ts
 * import { login } from "./login.ts";
 * import { MemoryTokenStore } from "@sluice/mcp";
 * const code = await login({
 *   url: "https://mcp.example.com/mcp",
 *   store: new MemoryTokenStore(),
 *   output: { stdout: (t) => console.log(t.trimEnd()), stderr: (t) => console.error(t.trimEnd()) },
 * });
 * ```
 *
 * @param options the server, the store, the output and the listener's port
 * @returns the process exit code
 *
 * @category CLI
 */
export async function login(options: LoginOptions): Promise<number> {
  const { output } = options;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    output.stderr("refused: transport_url_invalid: the URL does not parse\n");
    return EXIT_REFUSED;
  }
  let arrived!: (callbackUrl: string) => void;
  const callback = new Promise<string>((resolve) => arrived = resolve);
  let listener: LoopbackServer;
  try {
    listener = await listenOnLoopback(
      (request) => {
        if (new URL(request.url).pathname !== "/callback") {
          return Promise.resolve(new Response("not found", { status: 404 }));
        }
        arrived(request.url);
        return Promise.resolve(
          new Response("sluice: authorization received; you may close this page.", {
            headers: { "content-type": "text/plain; charset=utf-8" },
          }),
        );
      },
      { hostname: "127.0.0.1", port: options.port ?? 0 },
      { code: "cli_login_listen_failed", stopOnSignals: false },
    );
  } catch (error) {
    return printRefusal(output, error);
  }
  const aborted = new Promise<never>((_, reject) => {
    options.signal?.addEventListener(
      "abort",
      () => reject(new SluiceError("transport_aborted", "the sign-in was aborted")),
      { once: true },
    );
  });
  aborted.catch(() => {});
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
    const auth = new OAuthClient({
      store: options.store,
      redirectUri,
      redirect: (authorization) =>
        output.stdout(
          `sluice login: waiting for the browser on ${redirectUri}\n` +
            `Open this URL to authorize:\n${authorization.href}\n`,
        ),
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
    });
    const fetch = auth.fetchFor(url, options.transport ?? {});
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: INITIALIZE,
      });
      await response.body?.cancel();
      if (!response.ok) {
        throw new SluiceError(
          "mcp_handshake_failed",
          `the server answered HTTP ${response.status}`,
        );
      }
      const stored = await options.store.get(`tokens ${url.href}`);
      output.stdout(
        stored === undefined
          ? "sluice login: the server answered without a token: it needs no sign-in\n"
          : "sluice login: a stored token already works for this server\n",
      );
      return EXIT_OK;
    } catch (error) {
      if (codeOf(error) !== "auth_authorization_required") throw error;
    }
    await auth.finish(await Promise.race([callback, aborted]));
    output.stdout("sluice login: signed in; tokens stored\n");
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof SluiceError)) throw error;
    return printServerRefusal(output, error.code, error.message, url);
  } finally {
    await listener.close();
  }
}

/** Removes a database file a failed login created, with the journal files beside it. */
async function removeCreated(path: string): Promise<void> {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) {
    await unlink(path + suffix).catch(() => {});
  }
}

/**
 * Runs `sluice login <argv>`: checks the command line and `SLUICE_TOKEN_KEY` (exit 2, with how
 * to make a key), refuses a `--db` that is no regular file or carries a credential, runs
 * {@link login}, and writes the tokens into the database. A `--db` file that does not exist yet
 * is created only after the sign-in succeeded (until then the tokens are in memory), and
 * removed again if writing them fails.
 *
 * @param argv the arguments after `login`
 * @param host output and the environment
 * @returns the exit code
 *
 * @category CLI
 */
export async function runLoginCli(
  argv: readonly string[],
  host: CliOutput & { env(name: string): string | undefined },
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    host.stdout(LOGIN_USAGE + "\n");
    return EXIT_OK;
  }
  let url: string;
  let db: string;
  let port: number;
  let timeoutMs: number;
  let flags: Map<string, string>;
  try {
    const parsed = parseFlags(argv, {
      values: ["db", "port", "scope", "timeout"],
      booleans: ["allow-loopback"],
      command: "login",
    });
    flags = parsed.flags;
    if (parsed.positional.length !== 1) throw new UsageError("login takes exactly one URL");
    url = parsed.positional[0];
    if (!URL.canParse(url)) throw new UsageError("the URL does not parse");
    const chosen = flags.get("db");
    if (chosen === undefined) throw new UsageError("--db <file> is required: where the tokens go");
    db = chosen;
    port = Number(flags.get("port") ?? 0);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError("--port must be an integer from 0 to 65535");
    }
    timeoutMs = Number(flags.get("timeout") ?? DEFAULT_TIMEOUT_MS);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) {
      throw new UsageError("--timeout must be a whole number of milliseconds, 1 to 600000");
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    host.stderr(`${terminalSafe(error.message)}\n${LOGIN_USAGE}\n`);
    return EXIT_USAGE;
  }
  const key = tokenKey(host.env("SLUICE_TOKEN_KEY"));
  if (typeof key === "string") {
    host.stderr(`sluice login: ${key}.\n${KEY_HELP}`);
    return EXIT_USAGE;
  }
  let file: Awaited<ReturnType<typeof localDbFile>>;
  let durable: LibsqlTokenStore | undefined;
  try {
    refuseTokenInUrl(db);
    file = await localDbFile(db);
    // An existing database (or a server) is read and written in place; a new file waits.
    if (file === undefined || file.exists) durable = await LibsqlTokenStore.open(db, { key });
  } catch (error) {
    return printRefusal(host, error);
  }
  const staged = durable === undefined ? new MemoryTokenStore() : undefined;
  try {
    const code = await login({
      url,
      store: durable ?? staged!,
      output: host,
      port,
      ...(flags.has("scope") ? { scope: flags.get("scope")! } : {}),
      transport: {
        timeoutMs,
        ...(flags.has("allow-loopback") ? { dangerouslyAllowLoopback: true } : {}),
      },
    });
    if (code !== EXIT_OK || staged === undefined) return code;
    const records = staged.entries();
    if (records.length === 0) return code; // nothing to keep: no file
    try {
      durable = await LibsqlTokenStore.open(db, { key });
      for (const [name, record] of records) await durable.set(name, record);
    } catch (error) {
      durable?.close();
      durable = undefined;
      await removeCreated(file!.path);
      return printRefusal(host, error);
    }
    host.stdout(`sluice login: tokens written to ${terminalSafe(db)}\n`);
    return code;
  } finally {
    durable?.close();
  }
}
