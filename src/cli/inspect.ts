/**
 * `sluice inspect`: what an MCP server offers and what of it fits the schema profile, before
 * anyone writes an `allow` list. Over Streamable HTTP it uses connect()'s own session on the
 * hardened fetch (https only, loopback only with `--allow-loopback`, the token sent only to the
 * URL's origin); with `--stdio -- <command>` it starts a local server through the official
 * SDK's stdio transport. Either way it lists every tool, discovers all of them as read tools
 * with `onUnfit: "skip"`, and prints the report (or `--json`, or `--init`'s starter config).
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { discoverTools } from "../calls/discover.ts";
import { LOCAL_NAME, type ReadToolBindings } from "../catalog/bindings.ts";
import { DEFAULT_TOOL_LIMITS } from "../catalog/limits.ts";
import { ServerSession } from "../session/server_session.ts";
import { SluiceError } from "../errors.ts";
import { digest, isRecord, type JsonObject } from "../identity/mod.ts";
import { SCHEMA_PROFILE } from "../schema/types.ts";
import { screenTools } from "../screen/screen.ts";
import type { ScreenableTool } from "../screen/findings.ts";
import { sessionFromClient } from "../session/from_client.ts";
import type { McpSession } from "../session/session.ts";
import { DEFAULT_TIMEOUT_MS, secureFetch } from "../transport/secure_fetch.ts";
import { CatalogMonitor } from "../catalog/monitor.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from "./exit_codes.ts";
import {
  inspectReport,
  renderReport,
  renderStarterConfig,
  starterConfig,
} from "./inspect_report.ts";
import { parseFlags, UsageError } from "./flags.ts";
import { printServerRefusal } from "./errors.ts";
import { needsLoopbackOption } from "../transport/policy.ts";
import { inspectLock, renderLockOutcome } from "./inspect_lock.ts";
import { terminalSafe, terminalSafeJson, terminalSafeLines } from "./terminal.ts";

/**
 * Where `sluice inspect` writes.
 *
 * @category CLI
 */
export interface InspectOutput {
  /** Normal output. */
  stdout(text: string): void;
  /** Refusals and usage. */
  stderr(text: string): void;
  /** Reads an environment variable (`SLUICE_INSPECT_TOKEN`). */
  env(name: string): string | undefined;
}

/**
 * Usage text of `sluice inspect`.
 *
 * @category CLI
 */
export const INSPECT_USAGE = `usage: sluice inspect <url> [options]
       sluice inspect --stdio [options] -- <command> [args...]
  <url>              a Streamable HTTP endpoint (https; http only to loopback with
                     --allow-loopback)
  --stdio -- <cmd>   start a local server and speak stdio to it
  --token <t>        bearer token, sent only to the URL's origin (default SLUICE_INSPECT_TOKEN)
  --allow-loopback   allow loopback addresses and plain http to them (local servers only)
  --server-id <id>   the id used in --init's configuration (default "server")
  --timeout <ms>     deadline of each request (default ${DEFAULT_TIMEOUT_MS})
  --json             print the report as JSON
  --init             print a starter configuration (allow list; preApproved suggestions)
  --lock <file>      like a package lock: write every listed tool's definition and digest to
                     <file> when it is absent; when present, check the server against it and
                     exit 1 with the diff when a tool no longer matches (catalog_lock_mismatch)
  --diff             with --lock: print the field-level diff from the lock to what the server
                     lists now instead of the report (exit 1 when there is any change)
Every string the server wrote is printed escaped.
${EXIT_CODES_TEXT}`;

interface InspectArgs {
  url?: string;
  command?: string[];
  token?: string;
  allowLoopback: boolean;
  serverId: string;
  timeoutMs: number;
  json: boolean;
  init: boolean;
  lock?: string;
  diff: boolean;
}

const FLAGS = {
  values: ["token", "server-id", "timeout", "lock"],
  booleans: ["stdio", "allow-loopback", "json", "init", "diff"],
  command: "inspect",
};

function parseArgs(argv: readonly string[]): InspectArgs {
  const dash = argv.indexOf("--");
  const { positional, flags } = parseFlags(dash < 0 ? argv : argv.slice(0, dash), FLAGS);
  const stdio = flags.has("stdio");
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  if (stdio) {
    if (command.length === 0) throw new UsageError("--stdio needs -- <command> [args...]");
    if (positional.length > 0) throw new UsageError("--stdio takes no URL");
    for (const name of ["token", "allow-loopback"]) {
      if (flags.has(name)) throw new UsageError(`--${name} is for HTTP servers, not --stdio`);
    }
  } else {
    if (dash >= 0) throw new UsageError("a command after -- needs --stdio");
    if (positional.length !== 1) throw new UsageError("inspect takes exactly one URL");
  }
  const timeout = flags.get("timeout");
  const timeoutMs = timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) {
    throw new UsageError("--timeout must be a whole number of milliseconds, 1 to 600000");
  }
  const lock = flags.get("lock");
  if (flags.has("diff") && lock === undefined) throw new UsageError("--diff needs --lock <file>");
  if (lock !== undefined && (flags.has("json") || flags.has("init"))) {
    throw new UsageError("--lock prints text: leave out --json and --init");
  }
  if (lock === "") throw new UsageError("--lock needs a file name");
  const serverId = flags.get("server-id") ?? "server";
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(serverId)) {
    throw new UsageError("--server-id must be 1 to 32 characters of [A-Za-z0-9_-]");
  }
  return {
    ...(stdio ? { command } : { url: positional[0] }),
    ...(flags.has("token") ? { token: flags.get("token")! } : {}),
    allowLoopback: flags.has("allow-loopback"),
    serverId,
    timeoutMs,
    json: flags.has("json"),
    init: flags.has("init"),
    ...(lock !== undefined ? { lock } : {}),
    diff: flags.has("diff"),
  };
}

/** A connected session to inspect, and how to end it. */
interface Target {
  session: McpSession;
  monitor: CatalogMonitor;
  era(): string | null;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

function httpTarget(url: URL, args: InspectArgs, token: string | undefined): Target {
  const fetch = secureFetch({
    timeoutMs: args.timeoutMs,
    ...(args.allowLoopback ? { dangerouslyAllowLoopback: true } : {}),
    ...(token === undefined ? {} : { token, tokenOrigin: url.origin }),
  });
  const monitor = new CatalogMonitor();
  const session = new ServerSession({ url, fetch, timeoutMs: args.timeoutMs, observer: monitor });
  // One pinned connection for the whole inspection, not a new tunnel per request.
  const release = fetch.hold();
  return {
    session,
    monitor,
    era: () => session.era ?? null,
    protocolVersion: () => session.protocolVersion,
    close: () => session.close().finally(release),
  };
}

async function stdioTarget(command: string[]): Promise<Target> {
  const transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    stderr: "ignore",
  });
  const monitor = new CatalogMonitor();
  transport.onmessage = monitor.onMessage;
  const client = new Client({ name: "sluice-inspect", version: "0.1.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => {});
    throw new SluiceError(
      "mcp_handshake_failed",
      "the stdio server did not complete the handshake",
      {
        cause: error,
      },
    );
  }
  const version = client.getNegotiatedProtocolVersion();
  monitor.acceptProtocolVersion(version);
  return {
    session: sessionFromClient(client),
    monitor,
    era: () => version === undefined ? null : version === "2026-07-28" ? "2026-07-28" : "legacy",
    protocolVersion: () => version,
    close: async () => {
      monitor.close();
      await client.close();
    },
  };
}

/** Every tool the server lists, page by page, under the tool-count and page budgets. */
async function listAll(session: McpSession, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const tools: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < DEFAULT_TOOL_LIMITS.maxPages; page++) {
    const params: JsonObject = cursor === undefined ? {} : { cursor };
    const result = await session.request("tools/list", params, { timeoutMs });
    if (!isRecord(result) || !Array.isArray(result.tools)) {
      throw new SluiceError("mcp_protocol_error", "tools/list did not return a tool array");
    }
    for (const tool of result.tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") {
        throw new SluiceError("mcp_protocol_error", "tools/list returned a tool without a name");
      }
      tools.push(tool);
    }
    if (tools.length > DEFAULT_TOOL_LIMITS.maxTools) {
      throw new SluiceError("mcp_too_many_tools", "the server lists too many tools");
    }
    cursor = typeof result.nextCursor === "string" && result.nextCursor !== ""
      ? result.nextCursor
      : undefined;
    if (cursor === undefined) return tools;
  }
  throw new SluiceError("mcp_too_many_pages", "the server lists too many pages of tools");
}

/** A binding for every listed tool; a name no model could carry gets a placeholder local name. */
function bindingsFor(tools: readonly Record<string, unknown>[]): ReadToolBindings {
  const bindings: Record<string, ReadToolBindings[string]> = {};
  tools.forEach((tool, index) => {
    const name = String(tool.name);
    bindings[name] = {
      localName: LOCAL_NAME.test(name) ? name : `tool_${index}`,
      policy: { mode: "read", title: `inspect ${index}` },
      scope: null,
      concurrencySafe: false,
    };
  });
  return bindings;
}

/**
 * Runs `sluice inspect <argv>` and resolves to the exit code: 0 reported, 1 the server could
 * not be inspected (the code is printed), 2 usage error.
 *
 * @example
 * ```ts
 * import { runInspectCli } from "./inspect.ts";
 * const code = await runInspectCli(["https://mcp.example.com/mcp", "--json"], {
 *   stdout: (t) => console.log(t), stderr: (t) => console.error(t), env: () => undefined,
 * });
 * ```
 *
 * @category CLI
 */
export async function runInspectCli(
  argv: readonly string[],
  output: InspectOutput,
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    output.stdout(INSPECT_USAGE + "\n");
    return EXIT_OK;
  }
  let args: InspectArgs;
  let url: URL | undefined;
  try {
    args = parseArgs(argv);
    if (args.url !== undefined) {
      try {
        url = new URL(args.url);
      } catch {
        throw new UsageError("the URL does not parse");
      }
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${INSPECT_USAGE}\n`);
    return EXIT_USAGE;
  }
  const token = args.token ?? output.env("SLUICE_INSPECT_TOKEN");
  let target: Target | undefined;
  try {
    target = url !== undefined ? httpTarget(url, args, token) : await stdioTarget(args.command!);
    const tools = await listAll(target.session, args.timeoutMs);
    const { snapshot, skipped } = await discoverTools(
      target.session,
      args.serverId,
      bindingsFor(tools),
      { monitor: target.monitor, onUnfit: "skip", limits: { timeoutMs: args.timeoutMs } },
    );
    const report = inspectReport({
      target: url?.href ?? args.command!.join(" "),
      transport: url === undefined ? "stdio" : "http",
      era: target.era(),
      tools,
      listDigest: await digest(tools),
      snapshot,
      skipped,
      profile: SCHEMA_PROFILE,
      // Every listed tool, read together, as the operator sees the list.
      screen: screenTools(tools as unknown as ScreenableTool[], { otherToolNames: [] }),
    });
    if (args.lock !== undefined) {
      const outcome = await inspectLock(
        args.lock,
        args.serverId,
        target.protocolVersion() ?? "",
        tools,
        report.tools.map((tool) => tool.screen),
      );
      const lockText = terminalSafeLines(renderLockOutcome(args.lock, outcome));
      if (args.diff) {
        output.stdout(
          (outcome.kind === "checked" ? terminalSafeLines(outcome.diff) : lockText) + "\n",
        );
      } else output.stdout(renderReport(report) + "\n" + lockText + "\n");
      if (outcome.kind === "written" || outcome.mismatches.length === 0) return EXIT_OK;
      output.stderr(
        `refused: catalog_lock_mismatch: the server's tools do not match ${
          terminalSafe(args.lock)
        }: review the diff, then delete the file and run again to lock the new definitions\n`,
      );
      return EXIT_REFUSED;
    }
    if (args.init) {
      // The configuration connects the way this inspection did: the loopback option only when
      // the URL is refused without it.
      const loopback = args.allowLoopback && url !== undefined && needsLoopbackOption(url);
      const starter = starterConfig(report, args.serverId, { loopback });
      output.stdout(
        (args.json ? terminalSafeJson(starter, 2) : renderStarterConfig(starter, report)) + "\n",
      );
    } else {
      output.stdout((args.json ? terminalSafeJson(report, 2) : renderReport(report)) + "\n");
    }
    return EXIT_OK;
  } catch (error) {
    const code = error instanceof SluiceError ? error.code : "cli_inspect_failed";
    const message = error instanceof SluiceError
      ? error.message
      : "the server could not be inspected";
    return printServerRefusal(output, code, message, url);
  } finally {
    await target?.close().catch(() => {});
  }
}
