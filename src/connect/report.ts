import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "../catalog/limits.ts";
import type { DiscoveryError } from "../catalog/errors.ts";
import type { LockComparison } from "../catalog/lock.ts";
import type { StaleReason } from "../catalog/monitor.ts";
import type { ApprovalDecider } from "../catalog/write_bindings.ts";
import type { TransportReport } from "../transport/secure_fetch.ts";
import type { Era } from "./era.ts";
import type { ApprovalReason } from "./governance.ts";
import type { ProviderReports } from "../providers/mod.ts";

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
  /** sluice's own explanation, with the setting to change. */
  readonly reason: string;
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
  /** With `connect({ lock })`: which allowed tools match the lock, and each mismatch's diff. */
  readonly lock?: LockComparison;
}

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
  readonly providers: ProviderReports;
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

/** Printable ASCII only and bounded, for schema keywords and pointers (which are remote). */
function safe(text: string | undefined, max: number): string {
  return (text ?? "").slice(0, max).replace(/[^\x20-\x7e]/g, "?").replace(/"/g, "'");
}

/**
 * sluice's explanation of why one tool was skipped, naming the setting to change.
 *
 * @param error the per-tool discovery failure
 * @param limits the limits in force
 * @param size the measured size, for size failures
 *
 * @category Agent developers: connect()
 */
export function toolSkipReason(
  error: DiscoveryError,
  limits: ToolLimits,
  size: number | undefined,
): string {
  switch (error.code) {
    case "mcp_schema_too_large":
      return raiseOrSpec(limits, "maxSchemaBytes", `${error.schema ?? "input"} schema`, size);
    case "mcp_description_too_large":
      return raiseOrSpec(limits, "maxDescriptionBytes", "description", size);
    case "mcp_schema_unsupported":
      return `${error.schema ?? "input"} schema uses keyword "${safe(error.keyword, 64)}" at ` +
        `"${safe(error.path, 128)}", outside the schema profile (${safe(error.problem, 48)}): ` +
        `give the tool an owner spec in specs, or remove it from allow`;
    case "mcp_tool_missing":
      return "the server does not list this tool: check the allow entry";
    case "catalog_lock_mismatch":
      return "the server's definition of this tool does not match the lock: review the diff in " +
        "report().servers[].lock, then update the lock or remove the tool from allow";
    case "mcp_tool_task_required":
      return "the tool requires task-augmented execution, which sluice does not run: " +
        "remove it from allow";
    default:
      return `the server's entry for this tool is malformed (${error.code}): remove it from allow`;
  }
}

const SERVER_HINTS: Record<string, string> = {
  transport_timeout: "raise transport.timeoutMs",
  mcp_timeout: "raise transport.timeoutMs",
  transport_response_too_large:
    "raise transport.maxResponseBytes, or give every allowed tool of this server an owner spec",
  mcp_catalog_too_large:
    "raise limits.maxCatalogBytes if lowered, or give every allowed tool an owner spec",
  mcp_too_many_tools: "raise limits.maxTools if lowered, or give every allowed tool an owner spec",
  mcp_too_many_pages: "raise limits.maxPages if lowered, or give every allowed tool an owner spec",
  mcp_protocol_version_unsupported:
    "the server speaks no protocol version this connection accepts (2026-07-28, 2025-11-25, " +
    "2025-06-18; add 2025-03-26 with legacyProtocolVersions)",
  transport_scheme_refused:
    "use an https URL (plain http only to loopback with transport.dangerouslyAllowLoopback)",
  transport_address_refused: "the host name resolves to a non-public address: use a public host",
  transport_tls_failed: "the server's certificate is not trusted or not valid for its host",
};

/**
 * sluice's explanation for a tool skipped because its whole server failed.
 *
 * @param code the server's failure code
 *
 * @category Agent developers: connect()
 */
export function serverSkipReason(code: string): string {
  const hint = SERVER_HINTS[code];
  return `the server could not be set up or listed (${code})` + (hint ? `: ${hint}` : "");
}
