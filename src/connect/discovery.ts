/**
 * connect()'s discovery of one server: one listing decides each allowed tool's policy, the
 * allowlist and the owner's settings become read and write bindings, and one pass of
 * `discoverCatalogs` does the rest, skipping what does not fit.
 *
 * @module
 */
import { canonicalize, type JsonObject, utf8Length } from "../identity/mod.ts";
import { codeOf, type SluiceCode } from "../codes.ts";
import type {
  ApprovalDecider,
  ReadToolBinding,
  ScopeValidator,
  WriteEffect,
  WriteToolBinding,
} from "../catalog/bindings.ts";
import type { DiscoveryError } from "../catalog/errors.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import type { CatalogMonitor, StaleReason } from "../catalog/monitor.ts";
import { compareLock, type LockComparison, type LockedServer } from "../catalog/lock.ts";
import type { LockedFinding } from "../catalog/screening.ts";
import type { ScreenFinding } from "../screen/findings.ts";
import { definitionOfListed, type ToolDefinition } from "../catalog/revisions.ts";
import type { UnfitTool } from "../catalog/selection.ts";
import { byLocalName, type ReadSnapshot, type WriteSnapshot } from "../catalog/snapshot.ts";
import { discoverCatalogs, type DiscoveredCatalogs } from "../calls/discover.ts";
import { listNamedTools, type ToolListing } from "../catalog/listing.ts";
import type { ToolRegistration, WriteToolRegistration } from "../calls/registration.ts";
import type { CallPlan } from "../calls/call_plan.ts";
import type { AllowedTool, ResolvedServer } from "./config.ts";
import { type ApprovalPolicy, approvalPolicy } from "./governance.ts";
import {
  type ReportedFinding,
  reportedFindings,
  type SkippedTool,
  toolSkipReason,
} from "./report.ts";
import { serverSkipReason } from "./failure.ts";
import type { ConnectSession } from "../session/connect_session.ts";

/** A server's session and the monitor that hears it. */
export interface WatchedSession {
  readonly session: ConnectSession;
  readonly monitor: CatalogMonitor;
}

/**
 * One callable tool of a server catalog.
 *
 * @category Agent developers: connect()
 */
export interface ConnectedTool {
  readonly allowed: AllowedTool;
  readonly policy: ApprovalPolicy;
  readonly source: "server" | "owner_spec";
  /** A read registration (no approval) or a write registration (approval through the gate). */
  readonly registration: ToolRegistration | WriteToolRegistration;
  /** What the gate runs this tool's calls with. */
  readonly plan: CallPlan;
  /** `revisionDigest` of the catalog this tool belongs to. */
  readonly catalogDigest: string;
  /** The screen's findings as `report()` shows them (absent: not screened). */
  readonly screen?: readonly ReportedFinding[];
}

/**
 * What discovering one server produced.
 *
 * @category Agent developers: connect()
 */
export interface ServerCatalog {
  /** The read catalog (tools that need no approval), if any. */
  readonly snapshot: ReadSnapshot | null;
  /** The write catalog (tools that need an approval, `schemaVersion: 2`), if any. */
  readonly writeSnapshot: WriteSnapshot | null;
  readonly tools: readonly ConnectedTool[];
  readonly skipped: readonly SkippedTool[];
  /** Set when the session or the tool list failed (tools with owner specs may still be ready). */
  readonly errorCode?: SluiceCode;
  /** What was thrown with `errorCode` (for `ConnectError`'s cause and transport message). */
  readonly error?: unknown;
  /** Set when the server announced a change while it was being listed (see `DiscoveryResult`). */
  readonly staleReason?: StaleReason;
  /** The listing the catalogs were built from (absent when nothing was listed). */
  readonly listing?: ToolListing;
  /** The listed allowed tools' definitions, by remote name. */
  readonly definitions: ReadonlyMap<string, ToolDefinition>;
  /** With a lock: what matched it and what did not. */
  readonly lock?: LockComparison;
  /**
   * The poisoning screen's findings on each screened allowed tool, by remote name (`[]`:
   * clean), refused ones included. `decoded` is remote text: never for a model or a log.
   */
  readonly findings: ReadonlyMap<string, readonly ScreenFinding[]>;
}

/**
 * What connect() checks the listed tools of one server against.
 *
 * @category Agent developers: connect()
 */
export interface ServerExpectations {
  /** The connection's lock applies (a missing server then locks nothing in). */
  readonly locked: boolean;
  /** The locked server, if the lock has it. */
  readonly server?: LockedServer;
  /** A listing to build from instead of listing again (a staged revision's). */
  readonly listing?: ToolListing;
}

/** connect() has no host scope: the allowlist and the approval are the authorization. */
const NO_SCOPE: ScopeValidator = () => undefined;

/** The authorization identity connect() records for a tool that needs approval. */
const CONNECT_REVISION = "connect/v1";

function measure(value: unknown): number | undefined {
  try {
    return typeof value === "string" ? utf8Length(value) : utf8Length(canonicalize(value));
  } catch {
    return undefined;
  }
}

/** The listed size of what a size refusal concerns, for the report's reason. */
function measuredSize(error: DiscoveryError, raw: Record<string, unknown> | undefined) {
  if (error.code === "mcp_description_too_large") return measure(raw?.description);
  if (error.code === "mcp_schema_too_large") {
    return measure(raw?.[`${error.schema ?? "input"}Schema`]);
  }
  return undefined;
}

function annotationsOf(raw: Readonly<Record<string, unknown>> | undefined): JsonObject | null {
  const annotations = raw?.annotations;
  return typeof annotations === "object" && annotations !== null && !Array.isArray(annotations)
    ? annotations as JsonObject
    : null;
}

function readBinding(tool: AllowedTool): ReadToolBinding {
  return {
    localName: tool.localName,
    policy: { mode: "read", title: `${tool.server}.${tool.tool}` },
    scope: null,
    concurrencySafe: false,
    ...(tool.resendOnBrokenStream ? { resendOnBrokenStream: true } : {}),
    ...(tool.spec ? { spec: tool.spec } : {}),
  };
}

function writeBinding(
  tool: AllowedTool,
  policy: ApprovalPolicy,
  decidedBy: ApprovalDecider,
): WriteToolBinding {
  const effect: WriteEffect = policy.reason === "destructive_hint" ? "destructive" : "write";
  return {
    localName: tool.localName,
    policy: { mode: "confirm", title: `${tool.server}.${tool.tool}`, effect, decidedBy },
    effect,
    scope: NO_SCOPE,
    bindingId: `${tool.server}.${tool.tool}`,
    bindingRevision: CONNECT_REVISION,
    scopeId: `connect:${tool.server}`,
    scopeRevision: CONNECT_REVISION,
    ...(tool.spec ? { spec: tool.spec } : {}),
  };
}

/** The listing of a server's listed tools, or why it failed. */
async function listServer(
  { session, monitor }: WatchedSession,
  toList: readonly AllowedTool[],
  limits: ToolLimits,
  signal: AbortSignal | undefined,
): Promise<{ listing?: ToolListing; errorCode?: SluiceCode; error?: unknown }> {
  try {
    const names = toList.map((tool) => tool.tool);
    // Set up first: a change the server announces during its handshake predates the listing.
    await session.ready(signal);
    return {
      listing: await listNamedTools(session, monitor, new Set(names), limits, signal),
    };
  } catch (error) {
    return { errorCode: codeOf(error) ?? "mcp_transport_error", error };
  }
}

/** The entry digests a lock expects, by remote name (none without a lock). */
function expectedDigestsOf(
  expectations: ServerExpectations,
): Readonly<Record<string, string>> | undefined {
  if (!expectations.locked) return undefined;
  return Object.fromEntries(
    Object.entries(expectations.server?.tools ?? {}).map(([name, tool]) => [name, tool.digest]),
  );
}

/** The screen verdicts a lock expects, by remote name (none without a lock). */
function expectedScreensOf(
  expectations: ServerExpectations,
): Readonly<Record<string, readonly LockedFinding[]>> | undefined {
  if (!expectations.locked) return undefined;
  return Object.fromEntries(
    Object.entries(expectations.server?.tools ?? {}).map(([name, tool]) => [name, tool.screen]),
  );
}

/** What one discovery (read or write) found, as the connection collects it. */
interface FoundCatalog {
  readonly snapshot: ReadSnapshot | WriteSnapshot;
  readonly registrations: readonly (ToolRegistration | WriteToolRegistration)[];
  readonly calls: readonly CallPlan[];
  readonly skipped: readonly UnfitTool[];
  readonly findings: Readonly<Record<string, readonly ScreenFinding[]>>;
  readonly staleReason?: StaleReason;
}

/** Adds a discovery's ready tools, and skips (with a reason) the ones that did not fit. */
function collectFound(
  found: FoundCatalog,
  byRemote: ReadonlyMap<string, { tool: AllowedTool; policy: ApprovalPolicy }>,
  tools: ConnectedTool[],
  listing: ToolListing | undefined,
  limits: ToolLimits,
  skip: (tool: AllowedTool, code: string, reason: string, screen?: ReportedFinding[]) => void,
): void {
  // What the screen read of a tool: the owner's spec, or the listed entry.
  const shown = (tool: AllowedTool, name: string) => {
    const findings = found.findings[name];
    return findings === undefined
      ? undefined
      : reportedFindings(findings, tool.spec ?? listing?.tools.get(name));
  };
  for (const [index, registration] of found.registrations.entries()) {
    const { tool, policy } = byRemote.get(registration.remoteName)!;
    const screen = shown(tool, registration.remoteName);
    tools.push({
      ...(screen !== undefined ? { screen } : {}),
      allowed: tool,
      policy,
      source: tool.spec === undefined ? "server" : "owner_spec",
      registration,
      plan: found.calls[index],
      catalogDigest: found.snapshot.revisionDigest,
    });
  }
  for (const unfit of found.skipped) {
    const { tool } = byRemote.get(unfit.remoteName)!;
    const raw = listing?.tools.get(unfit.remoteName);
    const size = measuredSize(unfit.error, raw);
    const schema = raw?.[`${unfit.error.schema ?? "input"}Schema`];
    skip(
      tool,
      unfit.error.code,
      toolSkipReason(unfit.error, limits, size, schema),
      shown(tool, unfit.remoteName),
    );
  }
}

/**
 * Each allowed tool's policy (from its listed annotations) and binding, read or write; `skip`
 * says which tools are left out (and records why).
 */
function bindingsOf(
  server: ResolvedServer,
  listing: ToolListing | undefined,
  decidedBy: ApprovalDecider,
  skip: (tool: AllowedTool) => boolean,
) {
  const reads: Record<string, ReadToolBinding> = {};
  const writes: Record<string, WriteToolBinding> = {};
  const byRemote = new Map<string, { tool: AllowedTool; policy: ApprovalPolicy }>();
  for (const tool of server.tools) {
    if (skip(tool)) continue;
    const annotations = tool.spec ? null : annotationsOf(listing?.tools.get(tool.tool));
    const policy = approvalPolicy(tool.preApproved, server.trustReadOnlyHint, annotations);
    byRemote.set(tool.tool, { tool, policy });
    if (policy.requiresApproval) writes[tool.tool] = writeBinding(tool, policy, decidedBy);
    else reads[tool.tool] = readBinding(tool);
  }
  return { reads, writes, byRemote };
}

/** Skipped tools once each (with the latest reason), in allowlist order. */
function inAllowlistOrder(server: ResolvedServer, skipped: readonly SkippedTool[]): SkippedTool[] {
  const order = new Map(server.tools.map((tool, index) => [tool.localName, index]));
  const unique = [...new Map(skipped.map((item) => [item.name, item])).values()];
  return unique.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
}

/**
 * Discovers the allowed tools of one server: one `tools/list` (unless every allowed tool has
 * an owner spec), each tool's approval policy from the owner's settings and its annotations,
 * then a read catalog of the tools that need no approval and a write catalog of those that do,
 * recording who decides. A tool that does not fit is skipped with its reason; a failed list
 * skips every listed tool with the server's code.
 *
 * @param server the resolved server
 * @param watched its session and monitor
 * @param limits the limits in force
 * @param signal aborts discovery
 * @param decidedBy who decides approvals in this connection
 *
 * @category Agent developers: connect()
 */
export async function discoverServer(
  server: ResolvedServer,
  watched: WatchedSession,
  limits: ToolLimits,
  signal: AbortSignal | undefined,
  decidedBy: ApprovalDecider,
  expectations: ServerExpectations = { locked: false },
): Promise<ServerCatalog> {
  const monitor = watched.monitor;
  const toList = server.tools.filter((tool) => tool.spec === undefined);
  const skipped: SkippedTool[] = [];
  const skip = (tool: AllowedTool, code: string, reason: string, screen?: ReportedFinding[]) =>
    skipped.push({
      name: tool.localName,
      server: tool.server,
      tool: tool.tool,
      code,
      reason,
      ...(screen !== undefined ? { screen } : {}),
    });
  const listed = expectations.listing !== undefined || toList.length === 0
    ? { listing: expectations.listing }
    : await listServer(watched, toList, limits, signal);
  const listing = listed.listing;
  let errorCode: SluiceCode | undefined = listed.errorCode;
  let thrown: unknown = listed.error;
  const { reads, writes, byRemote } = bindingsOf(server, listing, decidedBy, (tool) => {
    if (tool.spec !== undefined || errorCode === undefined) return false;
    skip(tool, errorCode, serverSkipReason(errorCode, server.url));
    return true;
  });
  const definitions = new Map<string, ToolDefinition>();
  for (const [name, raw] of listing?.tools ?? []) definitions.set(name, definitionOfListed(raw));
  const expectedDigests = expectedDigestsOf(expectations);
  const expectedScreens = expectedScreensOf(expectations);
  const options = {
    monitor,
    limits,
    onUnfit: "skip" as const,
    screen: server.screen,
    ...(server.screenResults !== undefined ? { screenResults: server.screenResults } : {}),
    ...(expectedDigests ? { expectedDigests } : {}),
    ...(expectedScreens ? { expectedScreens } : {}),
    ...(listing ? { listing } : {}),
    ...(signal ? { signal } : {}),
  };
  const tools: ConnectedTool[] = [];
  let found: DiscoveredCatalogs = { reads: null, writes: null };
  const bindings = {
    ...(Object.keys(reads).length > 0 ? { reads } : {}),
    ...(Object.keys(writes).length > 0 ? { writes } : {}),
  };
  try {
    if (bindings.reads || bindings.writes) {
      found = await discoverCatalogs(watched.session, server.id, bindings, options);
      for (const catalog of [found.reads, found.writes]) {
        if (catalog) collectFound(catalog, byRemote, tools, listing, limits, skip);
      }
    }
  } catch (error) {
    // A failure of the catalog as a whole (for example a version sluice does not accept).
    errorCode = codeOf(error) ?? "mcp_protocol_error";
    thrown = error;
    for (const { tool } of byRemote.values()) {
      if (!tools.some((ready) => ready.allowed === tool)) {
        skip(tool, errorCode, serverSkipReason(errorCode, server.url));
      }
    }
  }
  const findings = new Map<string, readonly ScreenFinding[]>(
    [found.reads, found.writes].flatMap((catalog) => Object.entries(catalog?.findings ?? {})),
  );
  const lock = expectations.locked && listing !== undefined
    ? await compareLock(
      expectations.server,
      monitor.protocolVersion,
      toList.map((tool) => tool.tool),
      definitions.values(),
      // Only the verdicts on the server's own text: an owner spec is not locked.
      new Map([...findings].filter(([name]) => definitions.has(name))),
    )
    : undefined;
  // Ready tools in local-name order (the catalogs' order); skipped ones in allowlist order.
  tools.sort((a, b) => byLocalName(a.allowed, b.allowed));
  const staleReason = found.reads?.staleReason ?? found.writes?.staleReason;
  return {
    snapshot: found.reads?.snapshot ?? null,
    writeSnapshot: found.writes?.snapshot ?? null,
    tools,
    skipped: inAllowlistOrder(server, skipped),
    findings,
    ...(errorCode !== undefined ? { errorCode, error: thrown } : {}),
    ...(staleReason !== undefined ? { staleReason } : {}),
    ...(listing ? { listing } : {}),
    definitions,
    ...(lock ? { lock } : {}),
  };
}
