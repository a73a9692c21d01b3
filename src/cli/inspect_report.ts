/**
 * What `sluice inspect` reports about one server, built from the raw tool list and a discovery
 * of every listed tool with `onUnfit: "skip"`: per tool its annotations as received, schema
 * sizes, and whether it fits the profile (or the code, keyword and path of why not); the
 * negotiated protocol version and era; and digests of the list and of the fitting catalog. Also
 * the text and `--init` renderings. Every string the server wrote is escaped when printed.
 *
 * @module
 */
import { canonicalize, isRecord, utf8Length } from "../identity/mod.ts";
import type { ReadSnapshot } from "../catalog/snapshot.ts";
import type { UnfitTool } from "../catalog/selection.ts";
import type { ScreenFinding } from "../screen/findings.ts";
import { terminalSafe, terminalSafeJson } from "./terminal.ts";

/**
 * Why a tool does not fit the profile.
 *
 * @category CLI
 */
export interface InspectProblem {
  /** The stable code, for example `schema_keyword_unsupported`. */
  readonly code: string;
  /** Which schema (`input` or `output`), when a schema failed. */
  readonly schema?: string;
  /** The offending keyword, when known. */
  readonly keyword?: string;
  /** JSON Pointer to it inside the schema, when known. */
  readonly path?: string;
}

/**
 * One listed tool.
 *
 * @category CLI
 */
export interface InspectedTool {
  /** Its name on the server. */
  readonly name: string;
  /** Its title, when the server gave one. */
  readonly title?: string;
  /** Its description, when the server gave one. */
  readonly description?: string;
  /** Its annotations exactly as listed (`readOnlyHint`, `destructiveHint`, ...), or `{}`. */
  readonly annotations: Readonly<Record<string, unknown>>;
  /** UTF-8 size of the canonical input schema, in bytes (0 when absent). */
  readonly inputSchemaBytes: number;
  /** UTF-8 size of the canonical output schema, in bytes; `null` when it has none. */
  readonly outputSchemaBytes: number | null;
  /** Whether sluice can bind it as it is. */
  readonly fits: boolean;
  /** Why not, when it does not fit. */
  readonly problem?: InspectProblem;
  /**
   * The poisoning screen's findings on the tool as listed (`[]`: clean), for the operator:
   * with `decoded`, the hidden message a Tag-character finding carries (escaped when printed).
   */
  readonly screen: readonly ScreenFinding[];
}

/**
 * The whole report (`--json` prints exactly this).
 *
 * @category CLI
 */
export interface InspectReport {
  /** The URL or the stdio command inspected. */
  readonly target: string;
  /** `http` or `stdio`. */
  readonly transport: "http" | "stdio";
  /** The protocol version the handshake negotiated. */
  readonly protocolVersion: string | null;
  /** `2026-07-28` or `legacy` (a 2025 revision). */
  readonly era: string | null;
  /** The schema profile tools were checked against. */
  readonly profile: string;
  /** Every listed tool, in the server's order. */
  readonly tools: readonly InspectedTool[];
  /** How many fit. */
  readonly fitting: number;
  /** sha256 over the canonical JSON of the whole listed tool array. */
  readonly listDigest: string;
  /** `revisionDigest` of the read catalog of the fitting tools. */
  readonly catalogDigest: string;
}

/** The UTF-8 size of a schema's canonical form, or null when it is absent or not plain JSON. */
function schemaBytes(schema: unknown): number | null {
  if (schema === undefined) return null;
  try {
    return utf8Length(canonicalize(schema));
  } catch {
    return null;
  }
}

const text = (value: unknown): string | undefined => typeof value === "string" ? value : undefined;

/**
 * Builds the report from the listed tools and the discovery of them.
 *
 * @category CLI
 */
export function inspectReport(input: {
  target: string;
  transport: "http" | "stdio";
  era: string | null;
  tools: readonly Record<string, unknown>[];
  listDigest: string;
  snapshot: ReadSnapshot;
  skipped: readonly UnfitTool[];
  profile: string;
  /** The screen's findings on each listed tool, same order as `tools`. */
  screen: readonly (readonly ScreenFinding[])[];
}): InspectReport {
  const unfit = new Map(input.skipped.map((tool) => [tool.remoteName, tool.error]));
  const tools = input.tools.map((tool, index): InspectedTool => {
    const name = String(tool.name);
    const error = unfit.get(name);
    const title = text(tool.title) ?? text(isRecord(tool.annotations) && tool.annotations.title);
    const description = text(tool.description);
    const problem: InspectProblem | undefined = error === undefined ? undefined : {
      code: error.code,
      ...(error.schema === undefined ? {} : { schema: error.schema }),
      ...(error.keyword === undefined ? {} : { keyword: error.keyword }),
      ...(error.path === undefined ? {} : { path: error.path }),
    };
    return {
      name,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      annotations: isRecord(tool.annotations) ? tool.annotations : {},
      inputSchemaBytes: schemaBytes(tool.inputSchema) ?? 0,
      outputSchemaBytes: schemaBytes(tool.outputSchema),
      fits: problem === undefined,
      ...(problem === undefined ? {} : { problem }),
      screen: input.screen[index] ?? [],
    };
  });
  return {
    target: input.target,
    transport: input.transport,
    protocolVersion: input.snapshot.protocolVersion,
    era: input.era,
    profile: input.profile,
    tools,
    fitting: tools.filter((tool) => tool.fits).length,
    listDigest: input.listDigest,
    catalogDigest: input.snapshot.revisionDigest,
  };
}

/** The annotation hints worth a glance, as `readOnly destructive ...`. */
function hints(annotations: Readonly<Record<string, unknown>>): string {
  const words: string[] = [];
  for (
    const [key, word] of [
      ["readOnlyHint", "read-only"],
      ["destructiveHint", "destructive"],
      ["idempotentHint", "idempotent"],
      ["openWorldHint", "open-world"],
    ] as const
  ) {
    if (annotations[key] === true) words.push(word);
    if (annotations[key] === false) words.push(`not ${word}`);
  }
  return words.join(", ");
}

/**
 * One finding as a line for the operator: code, pointer (`key` when it is a name), the code
 * point, the names it imitates or mentions, and the decoded hidden message, all escaped.
 *
 * @param finding the finding
 *
 * @category CLI
 */
export function findingLine(finding: ScreenFinding): string {
  const safe = terminalSafe;
  const parts = [
    `${finding.code} at ${safe(finding.pointer)}${finding.on === "key" ? " (name)" : ""}`,
  ];
  if (finding.class === "hidden") {
    if (finding.codePoint !== undefined) parts.push(finding.codePoint);
    if (finding.imitates !== undefined) parts.push(`imitates ${safe(finding.imitates)}`);
    if (finding.decoded !== undefined) {
      parts.push(
        `hidden message: ${
          JSON.stringify(finding.decoded).replace(/[^\x20-\x7e]/g, (c) => safe(c))
        }`,
      );
    }
  }
  if (finding.class === "shadowing" && finding.mentions !== undefined) {
    parts.push(`mentions ${safe(finding.mentions)}`);
  }
  return parts.join("; ");
}

/**
 * The report as text for a terminal; every server-written field is escaped.
 *
 * @category CLI
 */
export function renderReport(report: InspectReport): string {
  const safe = terminalSafe;
  const lines = [
    `server:         ${safe(report.target)} (${report.transport})`,
    `protocol:       ${safe(report.protocolVersion ?? "-")} (era ${safe(report.era ?? "-")})`,
    `profile:        ${report.profile}`,
    `tools:          ${report.tools.length} listed, ${report.fitting} fit`,
    `list digest:    ${report.listDigest}`,
    `catalog digest: ${report.catalogDigest} (the fitting tools)`,
    "",
  ];
  for (const tool of report.tools) {
    const verdict = tool.fits
      ? "fits"
      : `does not fit: ${tool.problem!.code}${
        tool.problem!.keyword === undefined ? "" : ` keyword ${safe(tool.problem!.keyword)}`
      }${
        tool.problem!.path === undefined
          ? ""
          : ` at ${tool.problem!.schema ?? "schema"} ${safe(tool.problem!.path)}`
      }`;
    lines.push(`${tool.fits ? "+" : "-"} ${safe(tool.name)}  ${verdict}`);
    if (tool.title !== undefined) lines.push(`    title:       ${safe(tool.title)}`);
    if (tool.description !== undefined) {
      const description = tool.description.length > 200
        ? `${tool.description.slice(0, 200)}...`
        : tool.description;
      lines.push(`    description: ${safe(description)}`);
    }
    for (const finding of tool.screen) lines.push(`    screen:      ${findingLine(finding)}`);
    const hinted = hints(tool.annotations);
    lines.push(`    annotations: ${hinted === "" ? "none" : hinted}`);
    lines.push(
      `    schemas:     input ${tool.inputSchemaBytes} B, output ${
        tool.outputSchemaBytes === null ? "none" : `${tool.outputSchemaBytes} B`
      }`,
    );
  }
  return lines.join("\n");
}

/**
 * The starter configuration `--init` prints: data, before rendering.
 *
 * @category CLI
 */
export interface StarterConfig {
  /** A `connectAll()` configuration to edit: servers, allow list, an empty preApproved. */
  readonly config: {
    readonly servers: readonly { readonly id: string; readonly url: string }[];
    readonly allow: readonly string[];
    readonly preApproved: readonly string[];
    /** Set when the server is on this machine: the option connect() needs to reach it. */
    readonly transport?: { readonly dangerouslyAllowLoopback: true };
  };
  /** Suggestions only: tools the server annotated read-only. Annotations are claims. */
  readonly suggestions: { readonly preApproved: readonly string[]; readonly note: string };
  /** Tools left out because they do not fit, with the reason. */
  readonly leftOut: readonly { readonly tool: string; readonly problem: InspectProblem }[];
}

const SUGGESTION_NOTE =
  "suggested because the server annotates them readOnlyHint; annotations are the server's " +
  "claim, not a guarantee: move a tool into preApproved only after checking what it does";

/**
 * The starter configuration for `report`, with `serverId` as the server's id; with `loopback`
 * (the server was reached with `--allow-loopback` and needs it) it carries the loopback option.
 *
 * @category CLI
 */
export function starterConfig(
  report: InspectReport,
  serverId: string,
  options: { readonly loopback?: boolean } = {},
): StarterConfig {
  const fitting = report.tools.filter((tool) => tool.fits);
  return {
    config: {
      servers: report.transport === "http" ? [{ id: serverId, url: report.target }] : [],
      allow: fitting.map((tool) => `${serverId}.${tool.name}`),
      preApproved: [],
      ...(options.loopback === true
        ? { transport: { dangerouslyAllowLoopback: true as const } }
        : {}),
    },
    suggestions: {
      preApproved: fitting.filter((tool) => tool.annotations.readOnlyHint === true).map((
        tool,
      ) => `${serverId}.${tool.name}`),
      note: SUGGESTION_NOTE,
    },
    leftOut: report.tools.filter((tool) => !tool.fits).map((tool) => ({
      tool: tool.name,
      problem: tool.problem!,
    })),
  };
}

/**
 * The starter configuration as a TypeScript module to edit, escaped for the terminal.
 *
 * @category CLI
 */
export function renderStarterConfig(starter: StarterConfig, report: InspectReport): string {
  const quote = (value: string) => terminalSafeJson(value);
  const lines = [
    `// Starter configuration from \`sluice inspect\` of ${terminalSafe(report.target)}.`,
    "// Edit it before use: allow only the tools the agent needs.",
  ];
  if (report.transport === "stdio") {
    lines.push("// connect() speaks Streamable HTTP: add this server's https URL to servers.");
  }
  lines.push("export const config = {");
  lines.push(
    `  servers: [${
      starter.config.servers.map((server) =>
        `{ id: ${quote(server.id)}, url: ${quote(server.url)} }`
      )
        .join(", ")
    }],`,
  );
  lines.push("  allow: [");
  for (const entry of starter.config.allow) lines.push(`    ${quote(entry)},`);
  for (const left of starter.leftOut) {
    lines.push(
      `    // ${quote(left.tool)} does not fit: ${left.problem.code}${
        left.problem.keyword === undefined ? "" : ` keyword ${terminalSafe(left.problem.keyword)}`
      }${left.problem.path === undefined ? "" : ` at ${terminalSafe(left.problem.path)}`}`,
    );
  }
  lines.push("  ],");
  lines.push(`  // Suggestions: ${starter.suggestions.note}.`);
  lines.push("  preApproved: [");
  for (const entry of starter.suggestions.preApproved) lines.push(`    // ${quote(entry)},`);
  lines.push("  ],");
  if (starter.config.transport !== undefined) {
    lines.push("  // The server is on this machine (inspected with --allow-loopback): local");
    lines.push("  // development only; a deployed server has an https URL and needs no option.");
    lines.push("  transport: { dangerouslyAllowLoopback: true },");
  }
  lines.push("};");
  return lines.join("\n");
}
