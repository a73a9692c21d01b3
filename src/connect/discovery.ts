import { canonicalize, utf8Length } from "../identity/mod.ts";
import type { ResolvedBinding } from "../catalog/bindings.ts";
import { listBoundTools, type Selected, selectTool } from "../catalog/discover.ts";
import { DiscoveryError } from "../catalog/errors.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import { buildSnapshot, type ReadSnapshot } from "../catalog/snapshot.ts";
import { createRegistration, type ToolRegistration } from "../calls/registration.ts";
import { sessionFromClient } from "../calls/session.ts";
import type { AllowedTool, ResolvedServer } from "./config.ts";
import { type ApprovalPolicy, approvalPolicy } from "./governance.ts";
import { serverSkipReason, type SkippedTool, toolSkipReason } from "./report.ts";
import { type ServerSession, SessionSetupError } from "./session.ts";

/** One callable tool of a server catalog. */
export interface ConnectedTool {
  readonly allowed: AllowedTool;
  readonly registration: ToolRegistration;
  readonly policy: ApprovalPolicy;
  readonly source: "server" | "owner_spec";
}

/** What discovering one server produced. */
export interface ServerCatalog {
  readonly snapshot: ReadSnapshot | null;
  readonly tools: readonly ConnectedTool[];
  readonly skipped: readonly SkippedTool[];
  /** Set when the session or the tool list failed (tools with owner specs may still be ready). */
  readonly errorCode?: string;
}

/** The snapshot's protocol version for a server not contacted at setup (owner specs only). */
export const NOT_NEGOTIATED = "not-negotiated";

function bindingFor(tool: AllowedTool): ResolvedBinding {
  return {
    remoteName: tool.tool,
    localName: tool.localName,
    policy: Object.freeze({ mode: "read" as const, title: `${tool.server}.${tool.tool}` }),
    scope: null,
    concurrencySafe: false,
  };
}

function measure(value: unknown): number | undefined {
  try {
    return typeof value === "string" ? utf8Length(value) : utf8Length(canonicalize(value));
  } catch {
    return undefined;
  }
}

function failureCode(error: unknown): string {
  if (error instanceof SessionSetupError || error instanceof DiscoveryError) return error.code;
  return "mcp_transport_error";
}

/**
 * Discovers the allowed tools of one server: lists once (unless every allowed tool has an
 * owner spec), then checks each tool on its own with the read path's per-tool checks,
 * collecting failures as skipped tools instead of failing the others.
 */
export async function discoverServer(
  server: ResolvedServer,
  session: ServerSession,
  limits: ToolLimits,
  signal: AbortSignal | undefined,
): Promise<ServerCatalog> {
  const generation = session.monitor.generation;
  const toList = server.tools.filter((tool) => tool.spec === undefined);
  let listed = new Map<string, Record<string, unknown>>();
  let errorCode: string | undefined;
  if (toList.length > 0) {
    try {
      await session.ready(signal);
      session.takeTransportFailure();
      const bindings = new Map(toList.map((tool) => [tool.tool, bindingFor(tool)]));
      listed = await listBoundTools(sessionFromClient(session), bindings, limits, signal);
    } catch (error) {
      errorCode = failureCode(error);
      // Name the transport's own cause (byte cap, deadline, ...) instead of the generic code.
      if (errorCode === "mcp_transport_error") {
        errorCode = session.takeTransportFailure() ?? errorCode;
      }
    }
  }
  const selected: { tool: AllowedTool; item: Selected }[] = [];
  const skipped: SkippedTool[] = [];
  for (const tool of server.tools) {
    const skip = (code: string, reason: string) =>
      skipped.push({ name: tool.localName, server: tool.server, tool: tool.tool, code, reason });
    if (tool.spec === undefined && errorCode !== undefined) {
      skip(errorCode, serverSkipReason(errorCode));
      continue;
    }
    // An owner spec goes through exactly the same checks as a listed tool.
    const raw = tool.spec === undefined
      ? listed.get(tool.tool)
      : { name: tool.tool, description: tool.spec.description, inputSchema: tool.spec.inputSchema };
    try {
      if (raw === undefined) {
        throw new DiscoveryError("mcp_tool_missing", "not listed", { tool: tool.tool });
      }
      selected.push({ tool, item: selectTool(bindingFor(tool), raw, limits) });
    } catch (error) {
      if (!(error instanceof DiscoveryError)) throw error;
      const size = error.code === "mcp_description_too_large"
        ? measure(raw?.description)
        : error.code === "mcp_schema_too_large"
        ? measure(raw?.[`${error.schema ?? "input"}Schema`])
        : undefined;
      skip(error.code, toolSkipReason(error, limits, size));
    }
  }
  if (selected.length === 0) return { snapshot: null, tools: [], skipped, errorCode };
  const snapshot = await buildSnapshot({
    serverId: server.id,
    protocolVersion: session.protocolVersion ?? NOT_NEGOTIATED,
    changeDetection: session.monitor.changeDetection,
    entries: selected.map(({ item }) => item.entry),
  });
  const mcpSession = sessionFromClient(session);
  const byLocal = new Map(selected.map((pair) => [pair.tool.localName, pair]));
  const tools = snapshot.entries.map((entry): ConnectedTool => {
    const { tool, item } = byLocal.get(entry.localName)!;
    return {
      allowed: tool,
      registration: createRegistration({
        entry,
        session: mcpSession,
        monitor: session.monitor,
        generation,
        limits,
        scope: null,
        validateInput: item.validateInput,
        validateOutput: item.validateOutput,
      }),
      policy: approvalPolicy(tool.preApproved, server.trustReadOnlyHint, entry.annotations),
      source: tool.spec === undefined ? "server" : "owner_spec",
    };
  });
  return { snapshot, tools, skipped, errorCode };
}
