/**
 * The people's side of approvals: `sluice approvals list | show | approve | deny | reconcile`
 * against a store URL. The logic is a function of argv and output callbacks so it is tested in
 * process; `src/cli/main.ts` dispatches to it and opens the store through `openCliStore`.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import { APPROVAL_STATES } from "../approvals/machine.ts";
import type { ApprovalRecord, ApprovalState, ApprovalStore } from "../approvals/types.ts";
import type { JsonObject } from "../identity/mod.ts";
import { describeApproval, listLine } from "./approval_text.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { type ParsedFlags, parseFlags, UsageError } from "./flags.ts";
import {
  type ApprovalsCliOptions,
  type CliOutput,
  readJsonObject,
  withCliStore,
} from "./store_command.ts";
import { terminalSafe, terminalSafeJson } from "./terminal.ts";

/**
 * Usage text of `sluice approvals`.
 *
 * @category CLI
 */
export const APPROVALS_USAGE = `usage: sluice approvals <command> [--db <url>] [--json]
  list [--state <state>]                 approvals, oldest first
  show <id>                              everything being approved, and its history
  approve <id> --by <name> [--note <t>] [--args-file <f.json>]
                                         approve a pending write; with --args-file, approve it
                                         with the edited arguments in the file (the original
                                         becomes superseded, a new approval runs the edit)
  deny <id> --by <name> [--note <t>]     deny a pending write
  reconcile <id> --outcome committed|not_started --evidence <text> --by <name>
                                         settle an unknown outcome with evidence
--db takes a path, a file: URL, or a libsql:/https: server URL (default SLUICE_APPROVALS_DB).
  A path that does not exist, or an empty database, is refused unless --create is given; a
  path that is no regular file (a directory, a named pipe) and a database that is not a sluice
  approval store are refused and left untouched.
--auth-token <t>  token for a libsql:/https: server (default SLUICE_DB_AUTH_TOKEN); a token in
                  the URL itself (user info, query or fragment) is refused before connecting
--json            print records as JSON (list: an array; the others: { record, events })
${EXIT_CODES_TEXT}`;

/** Flags every command takes; the booleans take no value. */
const COMMON = ["db", "auth-token"];
const BOOLEANS = ["create", "json"];

const FLAGS: Record<string, readonly string[]> = {
  list: [...COMMON, "state"],
  show: COMMON,
  approve: [...COMMON, "by", "note", "args-file"],
  deny: [...COMMON, "by", "note"],
  reconcile: [...COMMON, "outcome", "evidence", "by"],
};

interface Parsed extends ParsedFlags {
  readonly command: string;
}

function parse(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (command === undefined || !Object.hasOwn(FLAGS, command)) {
    throw new UsageError(command === undefined ? "missing command" : `unknown command ${command}`);
  }
  const { positional, flags } = parseFlags(rest, {
    values: FLAGS[command],
    booleans: BOOLEANS,
    command,
  });
  const wantsId = command !== "list";
  if (positional.length !== (wantsId ? 1 : 0)) {
    throw new UsageError(wantsId ? `${command} takes exactly one approval id` : "list takes no id");
  }
  return { command, positional, flags };
}

function required(parsed: Parsed, name: string): string {
  const value = parsed.flags.get(name);
  if (value === undefined) throw new UsageError(`${parsed.command} needs --${name}`);
  return value;
}

/** Checks what `parse` cannot: flag values, required flags, and a store to open. */
function checkArguments(parsed: Parsed, defaultDb: string | undefined): string {
  const state = parsed.flags.get("state");
  if (state !== undefined && !APPROVAL_STATES.includes(state as ApprovalState)) {
    throw new UsageError(`--state must be one of ${APPROVAL_STATES.join(", ")}`);
  }
  const outcome = parsed.flags.get("outcome");
  if (outcome !== undefined && outcome !== "committed" && outcome !== "not_started") {
    throw new UsageError("--outcome must be committed or not_started");
  }
  const db = parsed.flags.get("db") ?? defaultDb;
  if (db === undefined) throw new UsageError("--db is required");
  if (parsed.command === "approve" || parsed.command === "deny") required(parsed, "by");
  const by = parsed.flags.get("by");
  if (by !== undefined && by.trim() === "") throw new UsageError("--by must name someone");
  if (parsed.command === "reconcile") {
    for (const name of ["outcome", "evidence", "by"]) required(parsed, name);
  }
  return db;
}

/** One subcommand run on an open store, with the parsed arguments and the edits file read. */
interface Run {
  readonly parsed: Parsed;
  readonly store: ApprovalStore;
  readonly output: CliOutput;
  readonly now: () => number;
  readonly edits: JsonObject | undefined;
}

/** Prints `record` with its history (as JSON with `--json`). */
async function show(run: Run, record: ApprovalRecord): Promise<void> {
  const events = await run.store.events(record.id);
  run.output.stdout(
    (run.parsed.flags.has("json")
      ? terminalSafeJson({ record, events })
      : describeApproval(record, events, run.now())) + "\n",
  );
}

/** `list [--state <state>]`. */
async function listCommand(run: Run): Promise<number> {
  const state = run.parsed.flags.get("state") as ApprovalState | undefined;
  const records = await run.store.list(state === undefined ? {} : { state });
  if (run.parsed.flags.has("json")) {
    run.output.stdout(terminalSafeJson(records) + "\n");
    return EXIT_OK;
  }
  run.output.stdout(
    records.length === 0
      ? "no approvals\n"
      : records.map((record) => listLine(record, run.now())).join("\n") + "\n",
  );
  return EXIT_OK;
}

/** `show <id>`. */
async function showCommand(run: Run): Promise<number> {
  const id = run.parsed.positional[0];
  const record = await run.store.get(id);
  if (record === undefined) {
    throw new ApprovalError("approval_not_found", `no approval ${id}`);
  }
  await show(run, record);
  return EXIT_OK;
}

/** `approve <id>` (with `--args-file`: with edits) and `deny <id>`. */
async function decideCommand(run: Run): Promise<number> {
  const { parsed, store } = run;
  const id = parsed.positional[0];
  const input = {
    by: parsed.flags.get("by")!,
    ...(parsed.flags.has("note") ? { note: parsed.flags.get("note")! } : {}),
  };
  if (run.edits !== undefined) {
    const { original, approval } = await store.approveWithEdits(id, {
      ...input,
      arguments: run.edits,
    });
    await show(run, original);
    await show(run, approval);
    return EXIT_OK;
  }
  const record = parsed.command === "approve"
    ? await store.approve(id, input)
    : await store.deny(id, input);
  await show(run, record);
  return EXIT_OK;
}

/** `reconcile <id> --outcome --evidence --by`. */
async function reconcileCommand(run: Run): Promise<number> {
  const { flags, positional } = run.parsed;
  const record = await run.store.reconcile(positional[0], {
    outcome: flags.get("outcome") as "committed" | "not_started",
    evidence: flags.get("evidence")!,
    by: flags.get("by")!,
  });
  await show(run, record);
  return EXIT_OK;
}

const COMMANDS: Readonly<Record<string, (run: Run) => Promise<number>>> = {
  list: listCommand,
  show: showCommand,
  approve: decideCommand,
  deny: decideCommand,
  reconcile: reconcileCommand,
};

/**
 * Runs `sluice approvals <argv>` and returns the exit code: 0 done, 1 refused (with the code on
 * stderr), 2 usage error. With `--json` records are printed as terminal-safe JSON.
 *
 * @example
 * ```ts
 * import { runApprovalsCli } from "./approvals.ts";
 * import { openCliStore } from "./store.ts";
 * declare const id: string; // an approval's id
 *
 * const code = await runApprovalsCli(["approve", id, "--by", "alice", "--db", "a.db"], {
 *   stdout: (t) => console.log(t), stderr: (t) => console.error(t),
 * }, { openStore: openCliStore });
 * ```
 *
 * @category CLI
 */
export async function runApprovalsCli(
  argv: readonly string[],
  output: CliOutput,
  options: ApprovalsCliOptions,
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    output.stdout(APPROVALS_USAGE + "\n");
    return EXIT_OK;
  }
  let parsed: Parsed;
  let db: string;
  try {
    parsed = parse(argv);
    db = checkArguments(parsed, options.defaultDb);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${APPROVALS_USAGE}\n`);
    return EXIT_USAGE;
  }
  const now = options.now ?? Date.now;
  let edits: JsonObject | undefined;
  try {
    const file = parsed.flags.get("args-file");
    if (file !== undefined) edits = await readJsonObject(file, "--args-file");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n`);
    return EXIT_USAGE;
  }
  return await withCliStore(
    parsed.flags,
    db,
    output,
    options,
    (store) => COMMANDS[parsed.command]({ parsed, store, output, now, edits }),
  );
}
