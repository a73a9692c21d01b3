/**
 * Standing grants from the command line: `sluice grants list | create | revoke` against a store
 * URL. A grant is made from a pending approval's tool (`--from <approval id>`), for its run
 * (`--this-run`), until a time (`--until <ISO time>`), or both, for at most `--uses N` calls,
 * optionally only for arguments matching `--schema-file` (sluice's schema profile).
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { ApprovalError } from "../approvals/errors.ts";
import { grantStatus } from "../approvals/grants.ts";
import type { ApprovalGrant } from "../approvals/types.ts";
import { createGrant, grantScopeOf } from "../gate/grants.ts";
import {
  type ApprovalsCliOptions,
  type CliOutput,
  readJsonObject,
  withCliStore,
} from "./store_command.ts";
import { EXIT_CODES_TEXT, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { type ParsedFlags, parseFlags, UsageError } from "./flags.ts";
import { terminalSafe, terminalSafeJson } from "./terminal.ts";

/**
 * Usage text of `sluice grants`.
 *
 * @category CLI
 */
export const GRANTS_USAGE = `usage: sluice grants <command> [--db <url>] [--json]
  list                                   grants, oldest first, with their status and uses
  create --from <approval id> --uses <n> --by <name> [--this-run] [--until <ISO time>]
         [--schema-file <f.json>] [--note <t>]
                                         let the tool of that approval run up to n calls
                                         without asking (its run, until the time, or both);
                                         with a schema, only calls whose arguments match it
  revoke <grant id> --by <name>          the grant approves nothing afterwards
--db, --auth-token and --create as for sluice approvals.
${EXIT_CODES_TEXT}`;

const COMMON = ["db", "auth-token"];
const FLAGS: Record<string, readonly string[]> = {
  list: COMMON,
  create: [...COMMON, "from", "uses", "by", "until", "schema-file", "note"],
  revoke: [...COMMON, "by"],
};

function grantLine(grant: ApprovalGrant, now: number): string {
  return [
    grant.id,
    grantStatus(grant, now).padEnd(9),
    `${grant.uses}/${grant.maxUses} used`,
    `${grant.serverId}/${grant.toolName}`,
    grant.runId === undefined ? "" : `run ${grant.runId}`,
    grant.expiresAt === undefined ? "" : `until ${new Date(grant.expiresAt).toISOString()}`,
    grant.argumentsSchema === undefined ? "" : "schema",
    `by ${grant.grantedBy}`,
  ].filter((part) => part !== "").map(terminalSafe).join("  ");
}

function parse(argv: readonly string[]): ParsedFlags & { command: string } {
  const [command, ...rest] = argv;
  if (command === undefined || !Object.hasOwn(FLAGS, command)) {
    throw new UsageError(command === undefined ? "missing command" : `unknown command ${command}`);
  }
  const parsed = parseFlags(rest, {
    values: FLAGS[command],
    booleans: ["create", "json", ...(command === "create" ? ["this-run"] : [])],
    command,
  });
  const wantsId = command === "revoke";
  if (parsed.positional.length !== (wantsId ? 1 : 0)) {
    throw new UsageError(wantsId ? "revoke takes exactly one grant id" : `${command} takes no id`);
  }
  for (
    const name of command === "create" ? ["from", "uses", "by"] : command === "revoke" ? ["by"] : []
  ) {
    if (!parsed.flags.has(name)) throw new UsageError(`${command} needs --${name}`);
  }
  const by = parsed.flags.get("by");
  if (by !== undefined && by.trim() === "") throw new UsageError("--by must name someone");
  if (command === "create") {
    if (!/^[1-9][0-9]{0,8}$/.test(parsed.flags.get("uses")!)) {
      throw new UsageError("--uses must be a positive whole number");
    }
    const until = parsed.flags.get("until");
    if (until !== undefined && !Number.isFinite(Date.parse(until))) {
      throw new UsageError("--until must be an ISO 8601 time");
    }
    if (until === undefined && !parsed.flags.has("this-run")) {
      throw new UsageError("create needs --this-run, --until, or both");
    }
  }
  return { command, ...parsed };
}

/**
 * Runs `sluice grants <argv>` and returns the exit code: 0 done, 1 refused (with the code on
 * stderr), 2 usage error.
 *
 * @category CLI
 */
export async function runGrantsCli(
  argv: readonly string[],
  output: CliOutput,
  options: ApprovalsCliOptions,
): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "help")) {
    output.stdout(GRANTS_USAGE + "\n");
    return EXIT_OK;
  }
  let parsed: ReturnType<typeof parse>;
  let schema: JsonObject | undefined;
  try {
    parsed = parse(argv);
    const file = parsed.flags.get("schema-file");
    if (file !== undefined) schema = await readJsonObject(file, "--schema-file");
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr(`${terminalSafe(error.message)}\n${GRANTS_USAGE}\n`);
    return EXIT_USAGE;
  }
  const db = parsed.flags.get("db") ?? options.defaultDb;
  if (db === undefined) {
    output.stderr(`--db is required\n${GRANTS_USAGE}\n`);
    return EXIT_USAGE;
  }
  const now = options.now ?? Date.now;
  const json = parsed.flags.has("json");
  const show = (grant: ApprovalGrant) =>
    output.stdout((json ? terminalSafeJson(grant) : grantLine(grant, now())) + "\n");
  return await withCliStore(parsed.flags, db, output, options, async (store) => {
    switch (parsed.command) {
      case "list": {
        const grants = await store.listGrants();
        if (json) output.stdout(terminalSafeJson(grants) + "\n");
        else if (grants.length === 0) output.stdout("no grants\n");
        else for (const grant of grants) show(grant);
        return EXIT_OK;
      }
      case "create": {
        const from = parsed.flags.get("from")!;
        const approval = await store.get(from);
        if (approval === undefined) {
          throw new ApprovalError("approval_not_found", `no approval ${from}`);
        }
        const until = parsed.flags.get("until");
        if (parsed.flags.has("this-run") && approval.runId === undefined) {
          throw new ApprovalError("approval_invalid_request", `approval ${from} has no run`);
        }
        show(
          await createGrant(store, {
            ...grantScopeOf(approval),
            ...(parsed.flags.has("this-run") ? { runId: approval.runId } : {}),
            ...(until === undefined ? {} : { expiresAt: Date.parse(until) }),
            maxUses: Number(parsed.flags.get("uses")),
            ...(schema === undefined ? {} : { argumentsSchema: schema }),
            by: parsed.flags.get("by")!,
            ...(parsed.flags.has("note") ? { note: parsed.flags.get("note")! } : {}),
          }),
        );
        return EXIT_OK;
      }
      case "revoke":
        show(await store.revokeGrant(parsed.positional[0], { by: parsed.flags.get("by")! }));
        return EXIT_OK;
    }
    return EXIT_USAGE;
  });
}
