import { canonicalize, utf8Length } from "../identity/mod.ts";
import type { ScopeValidator } from "../catalog/bindings.ts";
import {
  listBoundTools,
  type SelectableBinding,
  type Selected,
  selectTool,
} from "../catalog/discover.ts";
import type { WriteToolRegistration } from "../catalog/discover_write.ts";
import { DiscoveryError } from "../catalog/errors.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import {
  buildSnapshot,
  buildWriteSnapshot,
  type ReadSnapshot,
  type SnapshotEntry,
  type WriteSnapshot,
  type WriteSnapshotEntry,
} from "../catalog/snapshot.ts";
import type { WriteEffect } from "../catalog/write_bindings.ts";
import {
  attachCallInternals,
  type CallInternals,
  callInternals,
  createCallLayers,
  createRegistration,
  type ToolRegistration,
} from "../calls/registration.ts";
import { type McpSession, sessionFromClient } from "../calls/session.ts";
import type { CatalogMonitor } from "../catalog/monitor.ts";
import type { AllowedTool, ResolvedServer } from "./config.ts";
import { type ApprovalPolicy, approvalPolicy } from "./governance.ts";
import { serverSkipReason, type SkippedTool, toolSkipReason } from "./report.ts";
import { type ServerSession, SessionSetupError } from "./session.ts";

/** One callable tool of a server catalog. */
export interface ConnectedTool {
  readonly allowed: AllowedTool;
  readonly policy: ApprovalPolicy;
  readonly source: "server" | "owner_spec";
  /** The model-facing description (the owner's for an owner spec). */
  readonly description: string;
  /** The input schema as discovered (or the owner's). */
  readonly inputSchema: SnapshotEntry["inputSchema"];
  /**
   * A read registration (no approval, or approval by the inline callback), or a write
   * registration run only through the gate (deferred approvals in the store).
   */
  readonly registration: ToolRegistration | WriteToolRegistration;
  /** Whether calls go through the gate's deferred approval. */
  readonly deferred: boolean;
  /** The admit/dispatch layers of the registration. */
  readonly layers: CallInternals;
  /** `revisionDigest` of the catalog this tool belongs to. */
  readonly catalogDigest: string;
}

/** What discovering one server produced. */
export interface ServerCatalog {
  /** The read catalog (tools that need no approval, or approval by the callback). */
  readonly snapshot: ReadSnapshot | null;
  /** The write catalog of tools deferred to the gate (`schemaVersion: 2`), if any. */
  readonly writeSnapshot: WriteSnapshot | null;
  readonly tools: readonly ConnectedTool[];
  readonly skipped: readonly SkippedTool[];
  /** Set when the session or the tool list failed (tools with owner specs may still be ready). */
  readonly errorCode?: string;
}

/** The snapshot's protocol version for a server not contacted at setup (owner specs only). */
export const NOT_NEGOTIATED = "not-negotiated";

/** connect() has no host scope: the allowlist and the approval are the authorization. */
const NO_SCOPE: ScopeValidator = () => undefined;

/** The authorization identity connect() records for a deferred tool (owner config is it). */
const CONNECT_REVISION = "connect/v1";

function bindingFor(tool: AllowedTool): SelectableBinding {
  return { remoteName: tool.tool, localName: tool.localName, scope: null };
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
  deferFlagged: boolean,
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
  const selected: {
    tool: AllowedTool;
    item: Selected<SelectableBinding>;
    policy: ApprovalPolicy;
  }[] = [];
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
      const item = selectTool(bindingFor(tool), raw, limits);
      const policy = approvalPolicy(
        tool.preApproved,
        server.trustReadOnlyHint,
        item.base.annotations,
      );
      selected.push({ tool, item, policy });
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
  const context: CatalogContext = {
    server,
    mcpSession: sessionFromClient(session),
    monitor: session.monitor,
    generation,
    limits,
    protocolVersion: session.protocolVersion ?? NOT_NEGOTIATED,
    changeDetection: session.monitor.changeDetection,
  };
  const toGate = (pair: (typeof selected)[number]) => deferFlagged && pair.policy.requiresApproval;
  const read = await readCatalog(context, selected.filter((pair) => !toGate(pair)));
  const write = await writeCatalog(context, selected.filter(toGate));
  const tools = [...read.tools, ...write.tools];
  return { snapshot: read.snapshot, writeSnapshot: write.snapshot, tools, skipped, errorCode };
}

interface CatalogContext {
  readonly server: ResolvedServer;
  readonly mcpSession: McpSession;
  readonly monitor: CatalogMonitor;
  readonly generation: number;
  readonly limits: ToolLimits;
  readonly protocolVersion: string;
  readonly changeDetection: CatalogMonitor["changeDetection"];
}

type Pair = { tool: AllowedTool; item: Selected<SelectableBinding>; policy: ApprovalPolicy };

function layersFor(
  context: CatalogContext,
  entry: SnapshotEntry | WriteSnapshotEntry,
  item: Selected<SelectableBinding>,
  scope: ScopeValidator | null,
): CallInternals {
  return createCallLayers({
    entry,
    session: context.mcpSession,
    monitor: context.monitor,
    generation: context.generation,
    limits: context.limits,
    scope,
    validateInput: item.validateInput,
    validateOutput: item.validateOutput,
  });
}

async function readCatalog(context: CatalogContext, pairs: Pair[]) {
  if (pairs.length === 0) return { snapshot: null, tools: [] as ConnectedTool[] };
  const snapshot = await buildSnapshot({
    serverId: context.server.id,
    protocolVersion: context.protocolVersion,
    changeDetection: context.changeDetection,
    entries: pairs.map(({ tool, item }): SnapshotEntry => ({
      ...item.base,
      policy: Object.freeze({ mode: "read" as const, title: `${tool.server}.${tool.tool}` }),
      concurrencySafe: false,
    })),
  });
  const byLocal = new Map(pairs.map((pair) => [pair.tool.localName, pair]));
  const tools = snapshot.entries.map((entry): ConnectedTool => {
    const pair = byLocal.get(entry.localName)!;
    const registration = createRegistration({
      ...contextFields(context),
      entry,
      scope: null,
      validateInput: pair.item.validateInput,
      validateOutput: pair.item.validateOutput,
    });
    return connected(pair, entry, registration, false, snapshot.revisionDigest);
  });
  return { snapshot, tools };
}

function contextFields(context: CatalogContext) {
  return {
    session: context.mcpSession,
    monitor: context.monitor,
    generation: context.generation,
    limits: context.limits,
  };
}

function connected(
  pair: Pair,
  entry: SnapshotEntry | WriteSnapshotEntry,
  registration: ToolRegistration | WriteToolRegistration,
  deferred: boolean,
  catalogDigest: string,
  layers?: CallInternals,
): ConnectedTool {
  return {
    allowed: pair.tool,
    policy: pair.policy,
    source: pair.tool.spec === undefined ? "server" : "owner_spec",
    description: entry.description,
    inputSchema: entry.inputSchema,
    registration,
    deferred,
    layers: layers ?? callInternalsOf(registration),
    catalogDigest,
  };
}

async function writeCatalog(context: CatalogContext, pairs: Pair[]) {
  if (pairs.length === 0) return { snapshot: null, tools: [] as ConnectedTool[] };
  const effectOf = (pair: Pair): WriteEffect =>
    pair.policy.reason === "destructive_hint" ? "destructive" : "write";
  const snapshot = await buildWriteSnapshot({
    serverId: context.server.id,
    protocolVersion: context.protocolVersion,
    changeDetection: context.changeDetection,
    entries: pairs.map(({ tool, item }, index): WriteSnapshotEntry => {
      const effect = effectOf(pairs[index]);
      return {
        ...item.base,
        policy: Object.freeze({
          mode: "confirm" as const,
          title: `${tool.server}.${tool.tool}`,
          effect,
        }),
        concurrencySafe: false,
        authorization: {
          bindingId: `${tool.server}.${tool.tool}`,
          bindingRevision: CONNECT_REVISION,
          scopeId: `connect:${tool.server}`,
          scopeRevision: CONNECT_REVISION,
          effect,
        },
      };
    }),
  });
  const byLocal = new Map(pairs.map((pair) => [pair.tool.localName, pair]));
  const tools = snapshot.entries.map((entry): ConnectedTool => {
    const pair = byLocal.get(entry.localName)!;
    // The same shape write discovery gives the gate: no `call`, only the gate runs it.
    const registration: WriteToolRegistration = Object.freeze({
      localName: entry.localName,
      remoteName: entry.remoteName,
      serverId: context.server.id,
      title: entry.policy.title,
      description: entry.description,
      inputSchema: entry.inputSchema,
      outputSchema: entry.outputSchema,
      policy: entry.policy,
      concurrencySafe: false,
      approvalBinding: Object.freeze({
        bindingId: entry.authorization.bindingId,
        bindingRevision: snapshot.revisionDigest,
        scopeId: entry.authorization.scopeId,
        scopeRevision: entry.authorization.scopeRevision,
        effect: entry.authorization.effect,
      }),
    });
    const layers = layersFor(context, entry, pair.item, NO_SCOPE);
    attachCallInternals(registration, layers);
    return connected(pair, entry, registration, true, snapshot.revisionDigest, layers);
  });
  return { snapshot, tools };
}

function callInternalsOf(registration: object): CallInternals {
  const layers = callInternals(registration);
  if (layers === undefined) throw new Error("registration without call layers");
  return layers;
}
