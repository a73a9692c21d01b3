/**
 * `sluice serve --config <file> --db <store> [--port N] [--host H] [--allow-loopback]`: the
 * governed toolkit as an MCP server (Streamable HTTP at `/mcp`). The config file is the JSON
 * form of `serve()`'s configuration: `connectAll`'s servers, allowlist and options, and under
 * `serve` the clients (each token given as `token` or, better, `tokenEnv`), limits and origins.
 * Audit events go to stdout as JSON lines. SIGINT or SIGTERM stops taking requests, lets calls
 * in flight end with their outcome, then closes every upstream session and the store.
 *
 * @module
 */
import type { ApprovalStore } from "../approvals/types.ts";
import type { ConnectAllConfig, ServerConfig } from "../connect/mod.ts";
import type { InboxHandler } from "../inbox/approval_inbox.ts";
import { serve, type ServeConfig } from "../serve/serve.ts";
import type { ServeClient } from "../serve/clients.ts";
import { recoverServedClaims } from "../serve/recover.ts";
import { oneTimeLogin } from "../inbox/one_time_login.ts";
import { serveToolkitStdio } from "../serve/stdio.ts";
import { connectRelayed } from "../serve/relay.ts";
import { CliError } from "./errors.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { parseFlags, UsageError } from "./flags.ts";
import {
  type ApprovalsCliOptions,
  type CliOutput,
  readJsonObject,
  withCliStore,
} from "./store_command.ts";
import { terminalSafe } from "./terminal.ts";
import { VERSION } from "./version.ts";

/**
 * A listening server, as the host's `listen` reports it.
 *
 * @category CLI
 */
export interface ServeCliServer {
  /** The port it listens on (the real one when 0 was asked for). */
  readonly port: number;
  /** Stops listening; resolves once closed. */
  close(): Promise<void>;
}

/**
 * What `sluice serve` needs from its host.
 *
 * @category CLI
 */
export interface ServeCliOptions
  extends Pick<ApprovalsCliOptions, "openStore" | "defaultAuthToken" | "defaultDb"> {
  /** Serves `handler` on `address`; a port it cannot listen on rejects `cli_serve_listen_failed`. */
  listen(handler: InboxHandler, address: { hostname: string; port: number }): Promise<
    ServeCliServer
  >;
  /** Settles when the process is asked to stop (SIGINT, SIGTERM). */
  stopped(): Promise<void>;
  /** Reads an environment variable (for `tokenEnv`). */
  env(name: string): string | undefined;
}

/**
 * Usage text of `sluice serve`.
 *
 * @category CLI
 */
export const SERVE_USAGE =
  `usage: sluice serve --config <file> --db <url> [--auth-token <t>] [--port N] [--host H] [--allow-loopback] [--inbox [--as <person>]]
       sluice serve --stdio [--client <name>] --config <file> --db <url> [--allow-loopback]
  serves the allowed tools of the configured servers as one governed MCP endpoint on
  http://<host>:<port>/mcp (default 127.0.0.1:8931; port 0 picks one), to the clients the
  config names (bearer tokens). Writes wait for approval in the --db store (decide with
  sluice approvals or sluice inbox). Audit events are printed as JSON lines.
  --allow-loopback lets upstream servers be plain http on loopback (tests, development).
  Stop it with Ctrl-C: calls in flight end with their outcome first.
  --inbox also mounts the approval inbox at /inbox on the same server (staged upstream changes
  to review and accept at /inbox/revisions) and prints a one-time login link; decisions are
  recorded as made by --as <person> (default: USER or LOGNAME).
  --stdio serves one client on stdin/stdout (a desktop client launches it); status and audit
  lines then go to stderr, and it ends when the client closes stdin.
--db and --auth-token as for sluice approvals (the store must exist already).`;

/**
 * The default port of `sluice serve`.
 *
 * @category CLI
 */
export const DEFAULT_SERVE_PORT = 8931;

/** The `connectAll` options a config file may set (functions and stores come from flags). */
const CONNECT_KEYS = new Set([
  "servers",
  "allow",
  "preApproved",
  "resendOnBrokenStream",
  "specs",
  "approvalTtlMs",
  "limits",
  "changeDetection",
  "minRelistIntervalMs",
  "requireAll",
  "serve",
]);
const SERVER_KEYS = new Set([
  "id",
  "url",
  "token",
  "tokenEnv",
  "trustReadOnlyHint",
  // A stdio server (docs/stdio.md).
  "transport",
  "command",
  "args",
  "env",
  "inheritEnv",
  "cwd",
  "maxFrameBytes",
  "maxStderrBytes",
  "closeTimeoutMs",
]);
const CLIENT_KEYS = new Set(["name", "token", "tokenEnv", "allow"]);
const SERVE_KEYS = new Set([
  "clients",
  "limits",
  "allowedOrigins",
  "oauth",
  "recover",
  "toolNames",
  "taskTools",
]);

/**
 * Runs `sluice serve <argv>`: serves until the host says stop, then returns the exit code (0
 * done, 1 refused with `refused: <code>: <message>` on stderr, 2 usage error).
 *
 * @param argv the arguments after `serve`
 * @param output where the URL, audit events and refusals go
 * @param options how to open the store, listen, wait for a stop and read the environment
 *
 * @category CLI
 */
export async function runServeCli(
  argv: readonly string[],
  output: CliOutput,
  options: ServeCliOptions,
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    output.stdout(SERVE_USAGE + "\n");
    return EXIT_OK;
  }
  let flags: Map<string, string>;
  let db: string;
  let port: number;
  let host: string;
  let file: Record<string, unknown>;
  try {
    const parsed = parseFlags(argv, {
      values: ["config", "db", "auth-token", "port", "host", "client", "as"],
      booleans: ["allow-loopback", "stdio", "inbox"],
      command: "serve",
    });
    if (parsed.positional.length > 0) {
      throw new UsageError(`unexpected argument ${parsed.positional[0]}`);
    }
    flags = parsed.flags;
    const config = flags.get("config");
    if (config === undefined) throw new UsageError("--config is required");
    const chosen = flags.get("db") ?? options.defaultDb;
    if (chosen === undefined) throw new UsageError("--db is required");
    db = chosen;
    port = Number(flags.get("port") ?? DEFAULT_SERVE_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError("--port must be an integer from 0 to 65535");
    }
    host = flags.get("host") ?? "127.0.0.1";
    if (flags.has("stdio") && (flags.has("port") || flags.has("host"))) {
      throw new UsageError("--stdio serves on stdin and stdout: no --port or --host");
    }
    if (flags.has("inbox") && flags.has("stdio")) {
      throw new UsageError("--inbox mounts the inbox on the HTTP endpoint: not with --stdio");
    }
    if (flags.has("as") && !flags.has("inbox")) {
      throw new UsageError("--as names who decides in the inbox: it needs --inbox");
    }
    if (flags.has("client") && !flags.has("stdio")) {
      throw new UsageError("--client names the stdio client: it needs --stdio");
    }
    file = await readJsonObject(config, "--config");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${SERVE_USAGE}\n`);
    return EXIT_USAGE;
  }
  if (flags.has("stdio")) {
    return await withCliStore(flags, db, output, options, async (store) => {
      const config = configFromFile(file, options.env, true);
      return await serveStdio(config, store, flags, output, options);
    });
  }
  return await withCliStore(
    flags,
    db,
    output,
    options,
    (store) => serveHttp(file, store, flags, { db, host, port }, output, options),
  );
}

/** Serves over HTTP on `host:port` until `options.stopped()` resolves. */
async function serveHttp(
  file: Record<string, unknown>,
  store: ServeConfig["store"],
  flags: Map<string, string>,
  where: { readonly db: string; readonly host: string; readonly port: number },
  output: CliOutput,
  options: ServeCliOptions,
): Promise<number> {
  const { db, host, port } = where;
  const config: ServeConfig = {
    ...configFromFile(file, options.env, false),
    store,
    transport: { dangerouslyAllowLoopback: flags.has("allow-loopback") },
  };
  const person = flags.get("as") ?? options.env("USER") ?? options.env("LOGNAME") ?? "operator";
  const login = flags.has("inbox") ? oneTimeLogin({ person, basePath: "/inbox" }) : undefined;
  const served = await serve({
    ...config,
    serve: {
      ...config.serve,
      serverInfo: { name: "sluice", version: VERSION },
      onEvent: (event) => output.stdout(JSON.stringify(event) + "\n"),
      ...(login ? { inbox: { authorize: login.authorize } } : {}),
    },
  });
  const handler = login === undefined
    ? served.fetch
    : (request: Request) => login.handle(request) ?? served.fetch(request);
  // Heard from before the first request can arrive: a supervisor may stop the process as soon
  // as it reads the URL line, and calls in flight then end with their outcome.
  const stopped = options.stopped();
  let server: ServeCliServer;
  try {
    server = await options.listen(handler, { hostname: host, port });
  } catch (error) {
    await served.close();
    throw error;
  }
  if (served.recovered.length > 0) {
    output.stderr(
      `recovered ${served.recovered.length} claimed writes a stopped process left: recorded ` +
        `unknown (${served.recovered.join(", ")})\n`,
    );
  }
  const shown = host.includes(":") ? `[${host}]` : host;
  const report = served.connection.report();
  output.stdout(
    terminalSafe(
      `sluice serve: ${report.ready.length} tools for ${served.handler.clients} ` +
        `clients on http://${shown}:${server.port}/mcp, approvals in ${db}`,
    ) + "\n",
  );
  if (login !== undefined) {
    output.stdout(
      terminalSafe(
        `inbox: decided as ${person} on http://${shown}:${server.port}/inbox/ ` +
          `(staged upstream changes: /inbox/revisions)`,
      ) +
        `\nopen this link once to sign in: http://${shown}:${server.port}${login.loginPath}\n`,
    );
  }
  for (const skipped of report.skipped) {
    output.stderr(
      terminalSafe(
        `skipped ${skipped.server}.${skipped.tool}: ${skipped.code}: ${skipped.reason}`,
      ) +
        "\n",
    );
  }
  if (!isLoopback(host)) {
    output.stderr(
      "warning: listening beyond loopback over plain http: bearer tokens cross the network " +
        "in the clear; put a TLS-terminating proxy in front\n",
    );
  }
  await stopped;
  await served.close();
  await server.close();
  return EXIT_OK;
}

/**
 * `--stdio`: the one client is whoever launched the process (`--client <name>`, default
 * `stdio`; a configured client of that name lends its allowlist). stdout carries MCP only, so
 * the status line and audit events go to stderr. Ends when the client closes stdin or on a
 * stop signal, after the calls in flight end with their outcome.
 */
async function serveStdio(
  config: ServeConfig,
  store: ApprovalStore,
  flags: Map<string, string>,
  output: CliOutput,
  options: ServeCliOptions,
): Promise<number> {
  const name = flags.get("client") ?? "stdio";
  const allow = config.serve.clients?.find((client) => client.name === name)?.allow;
  const { serve: section, ...connectConfig } = config;
  if (section.recover !== false) await recoverServedClaims(store, section.recover);
  // The upstreams' requests for input reach the launching client, as over HTTP.
  const { connection, relay } = await connectRelayed({
    ...connectConfig,
    store,
    transport: { dangerouslyAllowLoopback: flags.has("allow-loopback") },
  });
  try {
    // Heard from before the first message is read (as over HTTP).
    const stopped = options.stopped();
    const served = await serveToolkitStdio(connection.toolkit, {
      client: { name, ...(allow === undefined ? {} : { allow }) },
      inputRelay: relay,
      ...(section.limits ? { limits: section.limits } : {}),
      serverInfo: { name: "sluice", version: VERSION },
      onEvent: (event) => output.stderr(JSON.stringify(event) + "\n"),
    });
    output.stderr(
      terminalSafe(
        `sluice serve: ${connection.report().ready.length} tools for ${name} over stdio`,
      ) + "\n",
    );
    await Promise.race([served.closed, stopped]);
    await served.close();
    return EXIT_OK;
  } finally {
    await connection.close();
  }
}

/** The serve configuration a file describes, tokens read from the environment. */
function configFromFile(
  file: Record<string, unknown>,
  env: (name: string) => string | undefined,
  stdio: boolean,
): ServeConfig {
  only(file, CONNECT_KEYS, "the config");
  const servers = list(file.servers, "servers").map((server, index) => {
    const entry = object(server, `servers[${index}]`);
    only(entry, SERVER_KEYS, `servers[${index}]`);
    const { tokenEnv: _tokenEnv, ...rest } = entry;
    const token = secret(entry, `servers[${index}]`, env, false);
    return { ...rest, ...(token === undefined ? {} : { token }) } as unknown as ServerConfig;
  });
  // Over stdio the clients section is optional: the one client is the process's launcher.
  const section = stdio && file.serve === undefined ? {} : object(file.serve, "serve");
  only(section, SERVE_KEYS, "serve");
  // As an OAuth protected resource, static clients are optional too.
  const optional = stdio || section.oauth !== undefined;
  const listed = optional && section.clients === undefined ? [] : section.clients;
  const clients = list(listed, "serve.clients").map((client, index) => {
    const entry = object(client, `serve.clients[${index}]`);
    only(entry, CLIENT_KEYS, `serve.clients[${index}]`);
    const { tokenEnv: _tokenEnv, ...rest } = entry;
    return { ...rest, token: secret(entry, `serve.clients[${index}]`, env, true) } as ServeClient;
  });
  return {
    ...(file as unknown as ConnectAllConfig),
    servers,
    serve: { ...(section as object), clients },
  };
}

/** `token` or `tokenEnv` of an entry (exactly one when `required`). */
function secret(
  entry: Record<string, unknown>,
  where: string,
  env: (name: string) => string | undefined,
  required: boolean,
): string | undefined {
  if (entry.token !== undefined && entry.tokenEnv !== undefined) {
    throw invalid(`${where} has both token and tokenEnv: give one`);
  }
  if (entry.tokenEnv !== undefined) {
    if (typeof entry.tokenEnv !== "string") throw invalid(`${where}.tokenEnv must be a name`);
    const value = env(entry.tokenEnv);
    if (value === undefined || value === "") {
      throw invalid(`${where}.tokenEnv names ${entry.tokenEnv}, which is not set`);
    }
    return value;
  }
  if (entry.token !== undefined && typeof entry.token !== "string") {
    throw invalid(`${where}.token must be a string`);
  }
  if (required && entry.token === undefined) throw invalid(`${where} needs token or tokenEnv`);
  return entry.token as string | undefined;
}

function only(entry: Record<string, unknown>, keys: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(entry)) {
    if (!keys.has(key)) throw invalid(`${where} has an unknown key "${key}"`);
  }
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(`${where} must be a list`);
  return value;
}

function invalid(message: string): CliError {
  return new CliError("cli_serve_config_invalid", `sluice serve: --config: ${message}`);
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}
