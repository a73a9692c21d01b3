/**
 * `sluice inbox --db <url> [--port N] [--as <person>]`: serves the approval inbox on loopback
 * and prints a one-time login link (a random token the first browser to open it exchanges for a
 * session cookie). The logic is a function of argv, output callbacks and a `serve` the host
 * provides, so it runs in process in tests; `scripts/inbox.ts` is the runnable Deno entry.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/types.ts";
import { approvalInbox, type InboxHandler } from "../inbox/approval_inbox.ts";
import { oneTimeLogin } from "../inbox/one_time_login.ts";
import type { CliOutput } from "./approvals.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
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
export interface InboxCliOptions {
  /** Opens the store named by `--db`. */
  openStore(url: string): Promise<ApprovalStore>;
  /** Serves `handler` on `127.0.0.1:port` (0: any free port). */
  serve(handler: InboxHandler, address: { hostname: "127.0.0.1"; port: number }): Promise<
    InboxServer
  >;
  /** Store URL used when `--db` is absent. */
  readonly defaultDb?: string;
  /** The person recorded as decider when `--as` is absent (for example the login name). */
  readonly defaultPerson?: string;
}

/**
 * Usage text of `sluice inbox`.
 *
 * @category CLI
 */
export const INBOX_USAGE = `usage: sluice inbox --db <url> [--port N] [--as <person>]
  serves the approval inbox on http://127.0.0.1:<port>/ (default port 8787; 0 picks one)
  and prints a one-time login link; decisions are recorded as made by <person>
  (default: your login name). Stop it with Ctrl-C.`;

/**
 * The default port of `sluice inbox`.
 *
 * @category CLI
 */
export const DEFAULT_INBOX_PORT = 8787;

function parse(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!["db", "port", "as"].includes(name)) throw new Error(`unknown option --${name}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new Error(`--${name} needs a value`);
    if (flags.has(name)) throw new Error(`--${name} given twice`);
    flags.set(name, value);
  }
  return flags;
}

/**
 * Runs `sluice inbox <argv>`: serves until the host stops the server, then returns the exit
 * code (0 done, 2 usage error).
 *
 * @example
 * ```ts ignore
 * const code = await runInboxCli(["--db", "approvals.db", "--port", "8787"], io, {
 *   openStore: (url) => LibsqlApprovalStore.open(url),
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
  let db: string;
  let port: number;
  let person: string;
  try {
    const flags = parse(argv);
    const chosen = flags.get("db") ?? options.defaultDb;
    if (chosen === undefined) throw new Error("--db is required");
    db = chosen;
    port = Number(flags.get("port") ?? DEFAULT_INBOX_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error("--port must be an integer from 0 to 65535");
    }
    const as = flags.get("as") ?? options.defaultPerson;
    if (as === undefined || as.trim() === "") throw new Error("--as is required");
    person = as;
  } catch (error) {
    output.stderr(`${terminalSafe((error as Error).message)}\n${INBOX_USAGE}\n`);
    return EXIT_USAGE;
  }
  const store = await options.openStore(db);
  try {
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
  } finally {
    await store.close();
  }
}
