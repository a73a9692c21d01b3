/**
 * `sluice inbox --db <url> [--auth-token <t>] [--port N] [--as <person>]`: serves the approval
 * inbox on loopback and prints a one-time login link (a random token the first browser to open
 * it exchanges for a session cookie). The store is opened with the same checks as
 * `sluice approvals` (never created), and every refusal is printed as `refused: <code>: ...`.
 * The logic is a function of argv, output callbacks and a `serve` the host provides, so it runs
 * in process in tests.
 *
 * @module
 */
import { approvalInbox, type InboxHandler } from "../inbox/approval_inbox.ts";
import { oneTimeLogin } from "../inbox/one_time_login.ts";
import { type ApprovalsCliOptions, type CliOutput, withCliStore } from "./store_command.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { parseFlags, UsageError } from "./flags.ts";
import { terminalSafe } from "./terminal.ts";

/**
 * A running server, as the host's `serve` reports it.
 *
 * @category CLI
 */
export interface InboxServer {
  /** The port it listens on (the real one when 0 was asked for). */
  readonly port: number;
  /** Settles when the server has stopped (the host stops it on a signal). */
  readonly finished: Promise<void>;
}

/**
 * What `sluice inbox` needs from its host.
 *
 * @category CLI
 */
export interface InboxCliOptions
  extends Pick<ApprovalsCliOptions, "openStore" | "defaultAuthToken" | "defaultDb"> {
  /**
   * Serves `handler` on `127.0.0.1:port` (0: any free port); a port it cannot listen on rejects
   * with a `SluiceError` (`cli_inbox_listen_failed`), which is printed as a refusal.
   */
  serve(handler: InboxHandler, address: { hostname: "127.0.0.1"; port: number }): Promise<
    InboxServer
  >;
  /** The person recorded as decider when `--as` is absent (for example the login name). */
  readonly defaultPerson?: string;
}

/**
 * Usage text of `sluice inbox`.
 *
 * @category CLI
 */
export const INBOX_USAGE =
  `usage: sluice inbox --db <url> [--auth-token <t>] [--port N] [--as <person>]
  serves the approval inbox on http://127.0.0.1:<port>/ (default port 8787; 0 picks one)
  and prints a one-time login link; decisions are recorded as made by <person>
  (default: your login name: USER, LOGNAME or USERNAME, else the system account).
  Stop it with Ctrl-C.
--db and --auth-token as for sluice approvals (the store must exist already).`;

/**
 * The default port of `sluice inbox`.
 *
 * @category CLI
 */
export const DEFAULT_INBOX_PORT = 8787;

/**
 * Runs `sluice inbox <argv>`: serves until the host stops the server, then returns the exit
 * code (0 done, 1 refused with `refused: <code>: <message>` on stderr, 2 usage error).
 *
 * @example
 * ```ts
 * import { runInboxCli } from "./inbox.ts";
 * import { openCliStore } from "./store.ts";
 * const io = { stdout: (t: string) => console.log(t), stderr: (t: string) => console.error(t) };
 *
 * const code = await runInboxCli(["--db", "approvals.db", "--port", "8787"], io, {
 *   openStore: (url, options) => openCliStore(url, options),
 *   serve: async (handler, address) => {
 *     const server = Deno.serve({ ...address, onListen() {} }, handler);
 *     return { port: server.addr.port, finished: server.finished };
 *   },
 * });
 * ```
 *
 * @category CLI
 */
export async function runInboxCli(
  argv: readonly string[],
  output: CliOutput,
  options: InboxCliOptions,
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    output.stdout(INBOX_USAGE + "\n");
    return EXIT_OK;
  }
  let flags: Map<string, string>;
  let db: string;
  let port: number;
  let person: string;
  try {
    const parsed = parseFlags(argv, {
      values: ["db", "auth-token", "port", "as"],
      booleans: [],
      command: "inbox",
    });
    if (parsed.positional.length > 0) {
      throw new UsageError(`unexpected argument ${parsed.positional[0]}`);
    }
    flags = parsed.flags;
    const chosen = flags.get("db") ?? options.defaultDb;
    if (chosen === undefined) throw new UsageError("--db is required");
    db = chosen;
    port = Number(flags.get("port") ?? DEFAULT_INBOX_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError("--port must be an integer from 0 to 65535");
    }
    const as = flags.get("as") ?? options.defaultPerson;
    if (as === undefined || as.trim() === "") {
      throw new UsageError(
        flags.has("as")
          ? "--as needs a name"
          : "no login name found (USER, LOGNAME, USERNAME, the system account): pass --as <person>",
      );
    }
    person = as;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${INBOX_USAGE}\n`);
    return EXIT_USAGE;
  }
  return await withCliStore(flags, db, output, options, async (store) => {
    const login = oneTimeLogin({ person });
    const inbox = approvalInbox({ store, authorize: login.authorize });
    const server = await options.serve(
      (request) => login.handle(request) ?? inbox(request),
      { hostname: "127.0.0.1", port },
    );
    const origin = `http://127.0.0.1:${server.port}`;
    output.stdout(
      terminalSafe(`sluice inbox: approvals from ${db}, decided as ${person}, on ${origin}/`) +
        `\nopen this link once to sign in: ${origin}${login.loginPath}\n`,
    );
    await server.finished;
    return EXIT_OK;
  });
}
