/**
 * The people's side of approvals: `sluice approvals list | show | approve | deny | reconcile`
 * against a store URL. The logic is a function of argv and output callbacks so it is tested in
 * process; `scripts/sluice.ts` is a thin shim that opens the libSQL store.
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

/** Where the CLI writes; each call is one chunk of text ending in a newline. */
export interface CliOutput {
  /** Normal output. */
  stdout(text: string): void;
  /** Refusals and usage. */
  stderr(text: string): void;
}

/** What the CLI needs from its host. */
export interface ApprovalsCliOptions {
  /** Opens the store named by `--db`. */
  openStore(url: string): Promise<ApprovalStore>;
  /** Store URL used when `--db` is absent (for example from an environment variable). */
  readonly defaultDb?: string;
  /** Clock for "past expiry" hints; `Date.now` by default. */
  readonly now?: () => number;
}

/** Exit codes: 0 done, 1 refused (the code is printed), 2 usage error. */
export const EXIT_OK = 0;
/** A refusal: the store said no, with a code. */
export const EXIT_REFUSED = 1;
/** The command line was wrong. */
export const EXIT_USAGE = 2;

/** Usage text of `sluice approvals`. */
export const APPROVALS_USAGE = `usage: sluice approvals <command> [--db <url>]
  list [--state <state>]                 approvals, oldest first
  show <id>                              everything being approved, and its history
  approve <id> --by <name> [--note <t>]  approve a pending write
  deny <id> --by <name> [--note <t>]     deny a pending write
  reconcile <id> --outcome committed|not_started --evidence <text> --by <name>
                                         settle an unknown outcome with evidence
--db takes a path, a file: URL, a libsql:/https: server URL, or a postgres:// URL.
exit codes: 0 ok, 1 refused (code printed), 2 usage`;

class UsageError extends Error {}

const FLAGS: Record<string, readonly string[]> = {
  list: ["db", "state"],
  show: ["db"],
  approve: ["db", "by", "note"],
  deny: ["db", "by", "note"],
  reconcile: ["db", "outcome", "evidence", "by"],
};

interface Parsed {
  readonly command: string;
  readonly positional: string[];
  readonly flags: Map<string, string>;
}

function parse(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (command === undefined || !(command in FLAGS)) {
    throw new UsageError(command === undefined ? "missing command" : `unknown command ${command}`);
  }
  const allowed = FLAGS[command];
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name} for ${command}`);
    const value = eq < 0 ? rest[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    flags.set(name, value);
  }
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

/**
 * Escapes control and bidirectional-formatting characters so that stored text (arguments, names,
 * notes) cannot drive the terminal or disguise what is being approved.
 */
export function terminalSafe(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

function expiryText(record: ApprovalRecord, now: number): string {
  const open = record.state === "pending" || record.state === "approved";
  return iso(record.expiresAt) + (open && record.expiresAt <= now ? " (past expiry)" : "");
}

function listLine(record: ApprovalRecord, now: number): string {
  return terminalSafe(
    [
      record.id,
      record.state.padEnd(11),
      record.effect.padEnd(11),
      `${record.serverId}/${record.toolName}`,
      `expires ${expiryText(record, now)}`,
    ].join("  "),
  );
}

/** The full description of one approval, as people see it before deciding. */
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
  if (record.reconciliation !== undefined) {
    const r = record.reconciliation;
    lines.push(["reconciled", `${r.outcome} by ${r.by} at ${iso(r.at)}: ${r.evidence}`]);
  }
  lines.push(["arguments digest", record.argumentsDigest]);
  const out = lines.map(([key, value]) => `${(key + ":").padEnd(18)}${value}`);
  out.push("arguments:", JSON.stringify(record.arguments, null, 2));
  out.push("history:");
  for (const event of events) {
    const by = event.by === undefined ? "" : ` by ${event.by}`;
    const detail = event.detail === undefined ? "" : ` (${event.detail})`;
    out.push(`  ${iso(event.at)}  ${event.from ?? "-"} -> ${event.to}${by}${detail}`);
  }
  return terminalSafe(out.join("\n"));
}

/**
 * Runs `sluice approvals <argv>` and returns the exit code: 0 done, 1 refused (with the code on
 * stderr), 2 usage error.
 *
 * @example
 * ```ts ignore
 * const code = await runApprovalsCli(["approve", id, "--by", "alice", "--db", "a.db"], {
 *   stdout: (t) => console.log(t), stderr: (t) => console.error(t),
 * }, { openStore: (url) => LibsqlApprovalStore.open(url) });
 * ```
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
    if (parsed.command === "reconcile") {
      for (const name of ["outcome", "evidence", "by"]) required(parsed, name);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${APPROVALS_USAGE}\n`);
    return EXIT_USAGE;
  }
  const now = options.now ?? Date.now;
  let store: ApprovalStore | undefined;
  try {
    store = await options.openStore(db);
    const id = parsed.positional[0];
    const show = async (record: ApprovalRecord) =>
      output.stdout(describeApproval(record, await store!.events(record.id), now()) + "\n");
    switch (parsed.command) {
      case "list": {
        const state = parsed.flags.get("state") as ApprovalState | undefined;
        const records = await store.list(state === undefined ? {} : { state });
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
  } catch (error) {
    if (error instanceof ApprovalError) {
      output.stderr(`refused: ${error.code}: ${terminalSafe(error.message)}\n`);
      return EXIT_REFUSED;
    }
    throw error;
  } finally {
    await store?.close();
  }
}
