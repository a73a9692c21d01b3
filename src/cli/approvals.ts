/**
 * The people's side of approvals: `sluice approvals list | show | approve | deny | reconcile`
 * against a store URL. The logic is a function of argv and output callbacks so it is tested in
 * process; `src/cli/main.ts` dispatches to it and opens the store through `openCliStore`.
 *
 * @module
 */
import { ApprovalError } from "../approvals/errors.ts";
import { APPROVAL_STATES } from "../approvals/machine.ts";
import type {
  ApprovalEvent,
  ApprovalRecord,
  ApprovalState,
  ApprovalStore,
} from "../approvals/types.ts";
import { readFile } from "node:fs/promises";
import type { JsonObject } from "../identity/mod.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { printRefusal } from "./errors.ts";
import { type ParsedFlags, parseFlags, UsageError } from "./flags.ts";
import type { CliStoreOptions } from "./store.ts";
import { terminalSafe, terminalSafeJson } from "./terminal.ts";

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

const iso = (ms: number) => new Date(ms).toISOString();

function expiryText(record: ApprovalRecord, now: number): string {
  const open = record.state === "pending" || record.state === "approved";
  return iso(record.expiresAt) + (open && record.expiresAt <= now ? " (past expiry)" : "");
}

function listLine(record: ApprovalRecord, now: number): string {
  return [
    record.id,
    record.state.padEnd(11),
    record.effect.padEnd(11),
    `${record.serverId}/${record.toolName}`,
    `expires ${expiryText(record, now)}`,
  ].map(terminalSafe).join("  ");
}

/**
 * The full description of one approval, as people see it before deciding.
 *
 * @category CLI
 */
export function describeApproval(
  record: ApprovalRecord,
  events: readonly ApprovalEvent[],
  now: number,
): string {
  const lines: [string, string][] = [
    ["approval", record.id],
    ["state", record.state],
    ["server", record.serverId],
    ["tool", `${record.toolName} (remote ${record.remoteToolName})`],
    ["effect", record.effect],
    ["catalog digest", record.catalogDigest],
    ["binding", record.bindingId],
    ["scope", `${record.scopeId} (revision ${record.scopeRevision})`],
    ["expires", expiryText(record, now)],
    ["created", iso(record.createdAt)],
  ];
  if (record.runId !== undefined) lines.push(["run / call", `${record.runId} / ${record.callId}`]);
  if (record.decision !== undefined) {
    const note = record.decision.note === undefined ? "" : ` (${record.decision.note})`;
    lines.push([
      "decision",
      `${record.decision.decision} by ${record.decision.by} at ${iso(record.decision.at)}${note}`,
    ]);
  }
  if (record.claimedAt !== undefined) lines.push(["claimed", iso(record.claimedAt)]);
  if (record.refusal !== undefined) lines.push(["refused", record.refusal.code]);
  if (record.receipt !== undefined) {
    lines.push(["receipt", `${record.receipt.resultDigest} at ${iso(record.receipt.at)}`]);
  }
  if (record.outcomeReason !== undefined) lines.push(["outcome reason", record.outcomeReason]);
  if (record.supersededBy !== undefined) lines.push(["superseded by", record.supersededBy]);
  if (record.supersedes !== undefined) lines.push(["edit of", record.supersedes]);
  if (record.grantId !== undefined) lines.push(["grant", record.grantId]);
  if (record.reconciliation !== undefined) {
    const r = record.reconciliation;
    lines.push(["reconciled", `${r.outcome} by ${r.by} at ${iso(r.at)}: ${r.evidence}`]);
  }
  lines.push(["arguments digest", record.argumentsDigest]);
  // Every field is escaped on its own, so a newline or U+2028 in a name, note or argument can
  // never start a line of its own; only the layout below breaks lines.
  const out = lines.map(([key, value]) => `${(key + ":").padEnd(18)}${terminalSafe(value)}`);
  out.push("arguments:", terminalSafeJson(record.arguments, 2));
  out.push("history:");
  for (const event of events) {
    const by = event.by === undefined ? "" : ` by ${event.by}`;
    const detail = event.detail === undefined ? "" : ` (${event.detail})`;
    out.push(terminalSafe(`  ${iso(event.at)}  ${event.from ?? "-"} -> ${event.to}${by}${detail}`));
  }
  return out.join("\n");
}

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
    const state = parsed.flags.get("state");
    if (state !== undefined && !APPROVAL_STATES.includes(state as ApprovalState)) {
      throw new UsageError(`--state must be one of ${APPROVAL_STATES.join(", ")}`);
    }
    const outcome = parsed.flags.get("outcome");
    if (outcome !== undefined && outcome !== "committed" && outcome !== "not_started") {
      throw new UsageError("--outcome must be committed or not_started");
    }
    const chosen = parsed.flags.get("db") ?? options.defaultDb;
    if (chosen === undefined) throw new UsageError("--db is required");
    db = chosen;
    if (parsed.command === "approve" || parsed.command === "deny") required(parsed, "by");
    const by = parsed.flags.get("by");
    if (by !== undefined && by.trim() === "") throw new UsageError("--by must name someone");
    if (parsed.command === "reconcile") {
      for (const name of ["outcome", "evidence", "by"]) required(parsed, name);
    }
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
  return await withCliStore(parsed.flags, db, output, options, async (store) => {
    const id = parsed.positional[0];
    const json = parsed.flags.has("json");
    const show = async (record: ApprovalRecord) => {
      const events = await store.events(record.id);
      output.stdout(
        (json ? terminalSafeJson({ record, events }) : describeApproval(record, events, now())) +
          "\n",
      );
    };
    switch (parsed.command) {
      case "list": {
        const state = parsed.flags.get("state") as ApprovalState | undefined;
        const records = await store.list(state === undefined ? {} : { state });
        if (json) {
          output.stdout(terminalSafeJson(records) + "\n");
          return EXIT_OK;
        }
        output.stdout(
          records.length === 0
            ? "no approvals\n"
            : records.map((record) => listLine(record, now())).join("\n") + "\n",
        );
        return EXIT_OK;
      }
      case "show": {
        const record = await store.get(id);
        if (record === undefined) {
          throw new ApprovalError("approval_not_found", `no approval ${id}`);
        }
        await show(record);
        return EXIT_OK;
      }
      case "approve":
      case "deny": {
        const input = {
          by: parsed.flags.get("by")!,
          ...(parsed.flags.has("note") ? { note: parsed.flags.get("note")! } : {}),
        };
        if (edits !== undefined) {
          const { original, approval } = await store.approveWithEdits(id, {
            ...input,
            arguments: edits,
          });
          await show(original);
          await show(approval);
          return EXIT_OK;
        }
        const record = parsed.command === "approve"
          ? await store.approve(id, input)
          : await store.deny(id, input);
        await show(record);
        return EXIT_OK;
      }
      case "reconcile": {
        const record = await store.reconcile(id, {
          outcome: parsed.flags.get("outcome") as "committed" | "not_started",
          evidence: parsed.flags.get("evidence")!,
          by: parsed.flags.get("by")!,
        });
        await show(record);
        return EXIT_OK;
      }
    }
    return EXIT_USAGE;
  });
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
