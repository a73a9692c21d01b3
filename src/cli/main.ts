/**
 * The `sluice` command line: one dispatcher over a table of commands, the same code on Deno,
 * Node and Bun. The entry script (`cli.ts`, the npm package's `bin`) only connects
 * it to the process; everything here is a function of argv, the environment and two output
 * callbacks, so it is tested in process.
 *
 * @module
 */
import { userInfo } from "node:os";
import process from "node:process";
import { runApprovalsCli } from "./approvals.ts";
import type { ApprovalsCliOptions } from "./store_command.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { runGrantsCli } from "./grants.ts";
import { runInspectCli } from "./inspect.ts";
import { runInboxCli } from "./inbox.ts";
import { runLoginCli } from "./login.ts";
import { listenOnLoopback, serveOnNode } from "./serve_node.ts";
import { openCliStore } from "./store.ts";
import { terminalSafe } from "./terminal.ts";
import { VERSION } from "./version.ts";

/**
 * What a command needs from the process that runs it.
 *
 * @category CLI
 */
export interface CliHost {
  /** Writes normal output; each call is one chunk ending in a newline. */
  stdout(text: string): void;
  /** Writes refusals and usage. */
  stderr(text: string): void;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
}

/**
 * One `sluice` command: a line for `--help` and the function that runs it.
 *
 * @category CLI
 */
export interface CliCommand {
  /** One line for `sluice --help`. */
  readonly summary: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(argv: readonly string[], host: CliHost): Promise<number>;
}

/** How the approvals, grants and inbox commands open their store, from the environment. */
function storeOptions(host: CliHost): ApprovalsCliOptions {
  const defaultDb = host.env("SLUICE_APPROVALS_DB");
  const defaultAuthToken = host.env("SLUICE_DB_AUTH_TOKEN");
  const password = host.env("SLUICE_APPROVALS_DB_PASSWORD");
  return {
    openStore: (db, options) =>
      openCliStore(db, { ...options, ...(password === undefined ? {} : { password }) }),
    ...(defaultDb === undefined ? {} : { defaultDb }),
    ...(defaultAuthToken === undefined ? {} : { defaultAuthToken }),
  };
}

/**
 * The login name of the person running the command: `USER`, `LOGNAME` or `USERNAME` from the
 * environment, else the system's account name (containers and services often set no `USER`).
 */
function loginName(host: CliHost): string | undefined {
  const named = [host.env("USER"), host.env("LOGNAME"), host.env("USERNAME")]
    .find((value) => value !== undefined && value.trim() !== "");
  if (named !== undefined) return named;
  try {
    const name = userInfo().username;
    return name.trim() === "" ? undefined : name;
  } catch {
    return undefined; // no account entry for this user id
  }
}

/** Settles on the first SIGINT or SIGTERM (a long-running command's cue to shut down). */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/**
 * Every command, by name. A new command is one more entry.
 *
 * @category CLI
 */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  approvals: {
    summary:
      "list, show, approve (also with edits), deny and reconcile writes in an approval store",
    run: (argv, host) => runApprovalsCli(argv, host, storeOptions(host)),
  },
  grants: {
    summary: "list, create and revoke standing grants (a tool may run N calls without asking)",
    run: (argv, host) => runGrantsCli(argv, host, storeOptions(host)),
  },
  inspect: {
    summary: "what an MCP server offers, what of it fits the profile, and a starter config",
    run: (argv, host) => runInspectCli(argv, host),
  },
  login: {
    summary: "OAuth sign-in at a server, once: stores the tokens (encrypted) for later connect()s",
    run: (argv, host) => runLoginCli(argv, host),
  },
  serve: {
    summary: "serve the allowed tools as one governed MCP endpoint (bearer-token clients)",
    // Loaded when run: the server SDK it needs is an optional npm package.
    run: async (argv, host) =>
      (await import("./serve.ts")).runServeCli(argv, host, {
        ...storeOptions(host),
        env: (name) => host.env(name),
        listen: (handler, address) =>
          listenOnLoopback(handler, address, {
            code: "cli_serve_listen_failed",
            stopOnSignals: false,
          }),
        stopped: stopSignal,
      }),
  },
  inbox: {
    summary: "serve the approval inbox on loopback and print a one-time login link",
    run: (argv, host) => {
      const defaultPerson = loginName(host);
      return runInboxCli(argv, host, {
        ...storeOptions(host),
        serve: serveOnNode,
        ...(defaultPerson === undefined ? {} : { defaultPerson }),
      });
    },
  },
};

/**
 * `sluice --help`.
 *
 * @category CLI
 */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;
  const lines = Object.entries(COMMANDS).map(([name, command]) =>
    `  ${name.padEnd(width)}${command.summary}`
  );
  return [
    "usage: sluice <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "sluice <command> --help   options of one command",
    "sluice --version          the version",
    EXIT_CODES_TEXT,
  ].join("\n");
}

/**
 * Runs `sluice <argv>` and resolves to the exit code (see `exit_codes.ts`).
 *
 * @example
 * ```ts
 * import { runCli } from "./main.ts";
 * const code = await runCli(["--version"], {
 *   stdout: (text) => console.log(text.trimEnd()),
 *   stderr: (text) => console.error(text.trimEnd()),
 *   env: () => undefined,
 * });
 * ```
 *
 * @category CLI
 */
export async function runCli(argv: readonly string[], host: CliHost): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    host.stderr(usage() + "\n");
    return EXIT_USAGE;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    host.stdout(usage() + "\n");
    return EXIT_OK;
  }
  if (name === "--version" || name === "-V") {
    host.stdout(`sluice ${VERSION}\n`);
    return EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    host.stderr(`sluice: unknown command ${terminalSafe(JSON.stringify(name))}\n${usage()}\n`);
    return EXIT_USAGE;
  }
  return await command.run(rest, host);
}
