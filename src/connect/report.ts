import type { StdioDiagnostics } from "../session/stdio_types.ts";
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "../catalog/limits.ts";
import type { DiscoveryError } from "../catalog/errors.ts";
import type { LockComparison, LockMismatch } from "../catalog/lock.ts";
import type { DefinitionField } from "../catalog/revisions.ts";
import type { StaleReason } from "../catalog/monitor.ts";
import type { ApprovalDecider } from "../catalog/bindings.ts";
import type { TransportReport } from "../transport/secure_fetch.ts";
import type { Era } from "../session/era.ts";
import type { ApprovalReason } from "./governance.ts";
import type {
  ProviderExportReport,
  ProviderReports,
  ProviderToolSource,
} from "../providers/mod.ts";
import { REPORT_MODES, type ReportMode } from "../providers/reports.ts";
import { deepFreeze } from "../identity/mod.ts";
import { keywordRule } from "../schema/keywords.ts";
import { positionalPointer } from "./positions.ts";
import type { ScreenClass, ScreenFinding } from "../screen/findings.ts";
import { isRecord } from "../identity/mod.ts";

/**
 * A tool the model can call.
 *
 * @category Agent developers: connect()
 */
export interface ReadyTool {
  /** The model-facing name (`<server>__<tool>`). */
  readonly name: string;
  /** Server id. */
  readonly server: string;
  /** Remote tool name. */
  readonly tool: string;
  /** Whether calls need an approval. */
  readonly requiresApproval: boolean;
  /** Why (see `approvalPolicy`). */
  readonly approvalReason: ApprovalReason;
  /** Where the model-facing description and schema come from. */
  readonly source: "server" | "owner_spec";
  /** Tools that need approval: who decides (as the write catalog records it). */
  readonly decidedBy?: ApprovalDecider;
  /** Whether calls go to the approval store (`approval_pending`, then `resume`). */
  readonly deferred: boolean;
  /**
   * The poisoning screen's findings the policy reports (`[]`: clean; absent: not screened),
   * codes and positional pointers only (see {@link ReportedFinding}).
   */
  readonly screen?: readonly ReportedFinding[];
}

/**
 * One finding of the poisoning screen as `report()` shows it: class, code, and where, never
 * the server's text (no `decoded` message: `sluice inspect` shows it to the operator). The
 * pointer is into the tool as the model would see it, every segment the server chose written
 * as its position (`/inputSchema/properties/[2]/description`).
 *
 * @category Agent developers: connect()
 */
export interface ReportedFinding {
  /** The finding's class. */
  readonly class: ScreenClass;
  /** Its stable code (`screen_*`). */
  readonly code: ScreenFinding["code"];
  /** Where, positional (see above). */
  readonly pointer: string;
  /** `"key"`: the pointer's last segment itself (a property name); `"value"`: the string there. */
  readonly on: "key" | "value";
}

/** The tool-level fields a finding's pointer starts with that sluice names (not the server). */
const TOOL_FIELDS = new Set(["name", "title", "description"]);

/**
 * The findings as `report()` shows them: class, code, positional pointer (into `tool`, what the
 * model would see of it), nothing else.
 *
 * @param findings the screen's findings on the tool
 * @param tool the tool as the screen read it (the listed entry, or the owner spec)
 *
 * @category Agent developers: connect()
 */
export function reportedFindings(
  findings: readonly ScreenFinding[],
  tool: unknown,
): ReportedFinding[] {
  return findings.map((finding) => {
    const [, first = "", ...rest] = finding.pointer.split("/");
    const field = first.replaceAll("~1", "/").replaceAll("~0", "~");
    const inner = isRecord(tool) ? tool[field] : undefined;
    const pointer = TOOL_FIELDS.has(field) && rest.length === 0
      ? `/${field}`
      : ["inputSchema", "outputSchema", "annotations", "execution"].includes(field)
      ? `/${field}${positionalPointer(inner, rest.length === 0 ? "" : `/${rest.join("/")}`)}`
      : "/[?]";
    return { class: finding.class, code: finding.code, pointer, on: finding.on };
  });
}

/**
 * An allowed tool that is not available, with the setting to change.
 *
 * @category Agent developers: connect()
 */
export interface SkippedTool {
  /** The model-facing name it would have had. */
  readonly name: string;
  /** Server id. */
  readonly server: string;
  /** Remote tool name. */
  readonly tool: string;
  /** Stable code (`mcp_schema_too_large`, `transport_timeout`, ...). */
  readonly code: string;
  /**
   * sluice's own explanation, with the setting to change: no text of the server (a schema
   * location is a JSON Pointer whose server-chosen segments are positions, `[i]`).
   */
  readonly reason: string;
  /** For a tool the screen read: its findings, as {@link ReadyTool.screen}. */
  readonly screen?: readonly ReportedFinding[];
}

/**
 * How connect() hears of a server's tool list changes (with `changeDetection`):
 * - `"subscription"`: 2026-07-28, a `subscriptions/listen` stream for tool list changes is open;
 * - `"get_stream"`: 2025 revisions, the standalone GET stream on the MCP endpoint is open;
 * - `"ttl"`: no stream; the last listing carried a `ttlMs` hint and connect() lists again
 *   after it (at least 1 s, at most 1 h apart), comparing digests;
 * - `"notifications"`: 2025 without a GET stream or hint: only the `list_changed` a server
 *   sends on its replies;
 * - `"none"`: 2026-07-28 without a listen stream or hint: only `refresh()` finds changes.
 *
 * @category Agent developers: connect()
 */
export type ChangeMechanism = "subscription" | "get_stream" | "ttl" | "notifications" | "none";

/**
 * One server's state.
 *
 * @category Agent developers: connect()
 */
export interface ServerReport {
  /** Server id. */
  readonly id: string;
  /** `"ready"`, `"deferred"` (owner specs only: not contacted yet) or `"failed"`. */
  readonly status: "ready" | "deferred" | "failed";
  /** The era found, once contacted. */
  readonly era?: Era;
  /** The negotiated protocol version, once contacted. */
  readonly protocolVersion?: string;
  /** The failure code when `status` is `"failed"`. */
  readonly errorCode?: string;
  /**
   * When `status` is `"failed"`: sluice's explanation, naming what to check or the setting to
   * change (`nothing answered at http://127.0.0.1:9 …: check that the server is running`).
   * Then `connection.reconnect(id)` retries the server.
   */
  readonly reason?: string;
  /** `revisionDigest` of its read catalog, or `null` when it has no such tool. */
  readonly catalogDigest: string | null;
  /** `revisionDigest` of its write catalog (tools that need approval), or `null`. */
  readonly writeCatalogDigest: string | null;
  /** What the hardened fetch enforces for this server (never the token). */
  readonly transport: TransportReport;
  /** Handshakes so far (a recovered expired session adds one). */
  readonly handshakes: number;
  /**
   * Set when the server announced a change while connect() was listing it: its catalogs are
   * stale from the start (calls answer `mcp_catalog_stale`); connect again.
   */
  readonly stale?: StaleReason;
  /**
   * Ready tools (remote names) that answer `mcp_catalog_stale` now: changed and not yet
   * accepted, or a change heard and not yet listed again. Absent when none.
   */
  readonly staleTools?: readonly string[];
  /**
   * How this server's tool list changes reach the connection now (with `changeDetection`;
   * see {@link ChangeMechanism}).
   */
  readonly changeDetection?: ChangeMechanism;
  /**
   * With `connect({ lock })`: which allowed tools match the lock, and for each mismatch its
   * digests and changed fields (the diff itself is `connection.lockComparison(id)`).
   */
  readonly lock?: LockReport;
  /**
   * A stdio server's process id, exit status and the escaped, bounded tail of its stderr, for
   * the operator (never shown to a model; docs/stdio.md).
   */
  readonly stdio?: StdioDiagnostics;
}

/**
 * One allowed tool that does not match the lock, as `report()` shows it: digests and field
 * names, never the definitions.
 *
 * @category Agent developers: connect()
 */
export interface ReportedLockMismatch {
  /** Remote tool name (an allowlist or lock entry). */
  readonly tool: string;
  /**
   * `changed`, `unlocked` (listed, not in the lock), `missing` (locked, not listed) or `screen`
   * (the same definition, another screen verdict).
   */
  readonly kind: LockMismatch["kind"];
  /** The lock's entry digest, when locked. */
  readonly lockedDigest?: string;
  /** The listed definition's entry digest, when listed. */
  readonly digest?: string;
  /** For `changed`: the fields that differ, in definition order. */
  readonly fields?: readonly DefinitionField[];
  /**
   * For `screen` (and a `changed` tool whose findings changed too): the codes of the findings
   * added and removed against the lock's verdict (their pointers are in
   * `connection.lockComparison(id)`, they may name the server's properties).
   */
  readonly screen?: { readonly added: readonly string[]; readonly removed: readonly string[] };
}

/**
 * A server's lock comparison as `report()` shows it.
 *
 * @category Agent developers: connect()
 */
export interface LockReport {
  /** Allowed tools whose definition matches the lock. */
  readonly matched: readonly string[];
  /** Allowed tools that do not. */
  readonly mismatches: readonly ReportedLockMismatch[];
  /** Whether the negotiated protocol version differs from the locked one. */
  readonly protocolVersionChanged: boolean;
}

/**
 * The report of one provider export as `report()` shows it: the export's report with every
 * schema location positional (server-chosen segments as `[i]`, see docs/connect.md) and
 * without the strict transform's record of property names (`nullable`).
 *
 * @category Agent developers: connect()
 */
export type ReportedExport = Omit<ProviderExportReport, "nullable">;

/**
 * `report().providers`: every export mode's {@link ReportedExport}.
 *
 * @category Agent developers: connect()
 */
export type ReportedProviders = { readonly [mode in keyof ProviderReports]: ReportedExport };

/**
 * What `connection.report()` returns.
 *
 * @category Agent developers: connect()
 */
export interface ConnectReport {
  /** Callable tools. */
  readonly ready: readonly ReadyTool[];
  /** Allowed tools that are not callable, each with why and what to change. */
  readonly skipped: readonly SkippedTool[];
  /** One entry per server. */
  readonly servers: readonly ServerReport[];
  /** Per provider export mode: which tools go as they are, transformed, lossy or refused. */
  readonly providers: ReportedProviders;
}

const number = (value: number) => value.toLocaleString("en-US");

function raiseOrSpec(
  limits: ToolLimits,
  key: "maxSchemaBytes" | "maxDescriptionBytes",
  what: string,
  size: number | undefined,
): string {
  const measured = size === undefined ? `${what} is too large` : `${what} is ${number(size)} bytes`;
  if (limits[key] < DEFAULT_TOOL_LIMITS[key]) {
    return `${measured}: raise limits.${key} (at most ${number(DEFAULT_TOOL_LIMITS[key])})`;
  }
  return `${measured}, over limits.${key} (${number(limits[key])}, the maximum): ` +
    `give the tool an owner spec in specs`;
}

/** A pointer segment for `text`, escaped (RFC 6901). */
function segment(text: string): string {
  return text.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Where `keyword` of the subschema at `path` is, without server text: the keyword as it is
 * when the profile knows it and it stands where a keyword does, else its position; the path
 * positional (`positionalPointer`).
 */
function located(schema: unknown, keyword: string, path: string) {
  const full = positionalPointer(schema, `${path}/${segment(keyword)}`);
  const cut = full.lastIndexOf("/");
  return { keyword: full.slice(cut + 1), path: full.slice(0, cut) };
}

/**
 * The provider reports as `report()` shows them: every keyword and path located without the
 * server's names, `nullable` left out. Each mode is computed when it is first read (from the
 * toolkit's own exports, made once per mode) and kept; `JSON.stringify` of a report reads them
 * all.
 *
 * @param report the export report of one mode, made when first asked for
 * @param tools the model-facing tools the exports are made from
 *
 * @category Agent developers: connect()
 */
export function reportedProviders(
  report: (mode: ReportMode) => ProviderExportReport,
  tools: readonly ProviderToolSource[],
): ReportedProviders {
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
  const providers = {};
  for (const mode of REPORT_MODES) {
    let shown: ReportedExport | undefined;
    Object.defineProperty(providers, mode, {
      enumerable: true,
      get: () => shown ??= deepFreeze(reportedExport(report(mode), schemas)),
    });
  }
  return Object.freeze(providers) as ReportedProviders;
}

/** One export's report, its locations without the server's names. */
function reportedExport(
  report: ProviderExportReport,
  schemas: ReadonlyMap<string, unknown>,
): ReportedExport {
  const refusal = (item: ProviderExportReport["refused"][number]) =>
    item.code === "provider_name_unsupported"
      ? item // "name" at the root: sluice's words about the host's own name
      : { ...item, ...located(schemas.get(item.tool), item.keyword, item.path) };
  return {
    provider: report.provider,
    strict: report.strict,
    tools: report.tools.map((line) => {
      const schema = schemas.get(line.tool);
      return {
        ...line,
        transforms: line.transforms.map((t) => ({ ...t, ...located(schema, t.keyword, t.path) })),
        lossy: line.lossy.map((loss) => located(schema, loss.keyword, loss.path)),
        refusals: line.refusals.map(refusal),
      };
    }),
    refused: report.refused.map(refusal),
    limits: report.limits,
  };
}

/**
 * A lock comparison as `report()` shows it: names, digests and changed fields, no definitions.
 *
 * @param comparison the comparison with its diffs
 *
 * @category Agent developers: connect()
 */
export function reportedLock(comparison: LockComparison): LockReport {
  return {
    matched: comparison.matched,
    mismatches: comparison.mismatches.map((mismatch) => ({
      tool: mismatch.tool,
      kind: mismatch.kind,
      ...(mismatch.lockedDigest !== undefined ? { lockedDigest: mismatch.lockedDigest } : {}),
      ...(mismatch.digest !== undefined ? { digest: mismatch.digest } : {}),
      ...(mismatch.change !== undefined ? { fields: mismatch.change.fields } : {}),
      ...(mismatch.screen !== undefined
        ? {
          screen: {
            added: mismatch.screen.added.map((finding) => finding.code),
            removed: mismatch.screen.removed.map((finding) => finding.code),
          },
        }
        : {}),
    })),
    protocolVersionChanged: comparison.protocolVersionChanged,
  };
}

/**
 * sluice's explanation of why one tool was skipped, naming the setting to change. It holds no
 * text of the server: a keyword the profile does not know is "an unknown keyword", and the
 * location is positional (`positionalPointer` over `schema`).
 *
 * @param error the per-tool discovery failure
 * @param limits the limits in force
 * @param size the measured size, for size failures
 * @param schema the schema `error` is about, as listed (for its location)
 *
 * @category Agent developers: connect()
 */
export function toolSkipReason(
  error: DiscoveryError,
  limits: ToolLimits,
  size: number | undefined,
  schema?: unknown,
): string {
  switch (error.code) {
    case "mcp_schema_too_large":
      return raiseOrSpec(limits, "maxSchemaBytes", `${error.schema ?? "input"} schema`, size);
    case "mcp_description_too_large":
      return raiseOrSpec(limits, "maxDescriptionBytes", "description", size);
    case "mcp_schema_unsupported": {
      const at = positionalPointer(schema, error.path ?? "");
      const keyword = error.keyword !== undefined && keywordRule(error.keyword) !== undefined &&
          at.endsWith(`/${error.keyword}`)
        ? `keyword "${error.keyword}"`
        : "an unknown keyword";
      const problem = /^[a-z0-9_]{1,48}$/.test(error.problem ?? "") ? ` (${error.problem})` : "";
      // Positions stand for the server's names; the operator's tool shows them.
      const names = at.includes("[") ? " (`sluice inspect` shows the names)" : "";
      const fix = "give the tool an owner spec in specs, or remove it from allow";
      if (error.problem === "schema_mcp_header_invalid") {
        return `${error.schema ?? "input"} schema has an x-mcp-header at "${at}"${names} that ` +
          `the specification does not allow (only on a string, integer or boolean property): ${fix}`;
      }
      return `${error.schema ?? "input"} schema uses ${keyword} at "${at}"${names}, outside the ` +
        `schema profile${problem}: ${fix}`;
    }
    case "mcp_tool_missing":
      return "the server does not list this tool: check the allow entry";
    case "catalog_lock_mismatch":
      return "the server's definition of this tool does not match the lock: review the diff " +
        "(connection.lockComparison(id), or sluice inspect --lock), then update the lock or " +
        "remove the tool from allow";
    case "mcp_tool_screen_refused":
      return `the poisoning screen refuses the tool's text (${
        /^screen_[a-z_]{1,48}$/.test(error.problem ?? "") ? error.problem : "a finding"
      }; see screen, and sluice inspect for the decoded text): give the tool an owner spec in ` +
        "specs, or remove it from allow";
    case "mcp_tool_task_required":
      return "the tool requires task-augmented execution, which sluice does not run: " +
        "remove it from allow";
    default:
      return `the server's entry for this tool is malformed (${error.code}): remove it from allow`;
  }
}
