import { canonicalize, isRecord, type JsonObject, utf8Length } from "../identity/mod.ts";
import { compileSchema, SchemaUnsupportedError } from "../schema/mod.ts";
import type { SchemaValidator } from "../schema/types.ts";
import {
  createRegistration,
  type RegistrationContext,
  type ToolRegistration,
} from "../calls/registration.ts";
import {
  type McpSession,
  type SdkClientLike,
  sessionFromClient,
  SessionRequestError,
} from "../calls/session.ts";
import { type ReadToolBindings, resolveBindings, type ScopeValidator } from "./bindings.ts";
import { DiscoveryError, type SchemaRole } from "./errors.ts";
import { resolveToolLimits, type ToolLimits } from "./limits.ts";
import { ACCEPTED_PROTOCOL_VERSIONS, type CatalogMonitor } from "./monitor.ts";
import {
  buildSnapshot,
  byLocalName,
  type CatalogHeader,
  deepFreeze,
  type ReadSnapshot,
  type SnapshotEntry,
  type SnapshotEntryBase,
} from "./snapshot.ts";

/** Options of {@link discoverTools}. */
export interface DiscoverOptions {
  /** The session's monitor: protocol version, list changes, close. Required. */
  readonly monitor: CatalogMonitor;
  /** Lowered bounds (or a raised timeout); defaults in `DEFAULT_TOOL_LIMITS`. */
  readonly limits?: Partial<ToolLimits>;
  /** Aborts discovery (ends in `mcp_timeout`). */
  readonly signal?: AbortSignal;
}

/** What discovery returns: the frozen snapshot and one registration per entry, same order. */
export interface DiscoveryResult {
  /** The detached, deeply frozen catalog. */
  readonly snapshot: ReadSnapshot;
  /** Callable tools, one per snapshot entry, sorted by local name. */
  readonly registrations: readonly ToolRegistration[];
}

function protocolError(message: string): DiscoveryError {
  return new DiscoveryError("mcp_protocol_error", message);
}

/**
 * Fetches every `tools/list` page under the limits; returns detached copies of bound tools.
 * Exported for connect(), which lists once and checks each tool on its own.
 */
export async function listBoundTools(
  session: McpSession,
  bindings: ReadonlyMap<string, unknown>,
  limits: ToolLimits,
  signal: AbortSignal | undefined,
): Promise<Map<string, Record<string, unknown>>> {
  const selected = new Map<string, Record<string, unknown>>();
  const seen = new Set<string>();
  let catalogBytes = 0;
  let cursor: string | undefined;
  for (let page = 0;; page++) {
    if (page >= limits.maxPages) {
      throw new DiscoveryError(
        "mcp_too_many_pages",
        `the server lists more than ${limits.maxPages} pages`,
      );
    }
    let raw: unknown;
    try {
      raw = await session.request("tools/list", cursor === undefined ? {} : { cursor }, {
        signal,
        timeoutMs: limits.timeoutMs,
      });
    } catch (error) {
      if (error instanceof SessionRequestError) {
        throw new DiscoveryError(error.code, `tools/list failed: ${error.message}`);
      }
      throw new DiscoveryError("mcp_transport_error", "tools/list failed");
    }
    if (!isRecord(raw) || !Array.isArray(raw.tools)) {
      throw protocolError("a tools/list result has no tools array");
    }
    if (seen.size + raw.tools.length > limits.maxTools) {
      throw new DiscoveryError(
        "mcp_too_many_tools",
        `the server lists more than ${limits.maxTools} tools`,
      );
    }
    let text: string;
    try {
      // Canonical text bounds the whole page's size and refuses non-JSON in one pass; parsing
      // it back gives copies the server (or an in-memory peer) can no longer change.
      text = canonicalize(raw.tools, { maxBytes: limits.maxCatalogBytes - catalogBytes });
    } catch (error) {
      if ((error as { code?: unknown }).code === "json_too_large") {
        throw new DiscoveryError(
          "mcp_catalog_too_large",
          `the tool list is larger than ${limits.maxCatalogBytes} bytes`,
        );
      }
      throw protocolError("a tools/list result is not plain JSON");
    }
    catalogBytes += utf8Length(text);
    const tools = JSON.parse(text) as unknown[];
    for (const tool of tools) {
      if (!isRecord(tool) || typeof tool.name !== "string") {
        throw protocolError("a listed tool has no name");
      }
      if (seen.has(tool.name)) {
        // Only a bound name may appear in the message; an unbound one stays out.
        const which = bindings.has(tool.name) ? ` "${tool.name}"` : "";
        throw protocolError(`the server lists a tool name${which} twice`);
      }
      seen.add(tool.name);
      if (bindings.has(tool.name)) selected.set(tool.name, tool);
    }
    const next = raw.nextCursor;
    // An empty string is a valid cursor; only an absent cursor ends the list.
    if (next === undefined) return selected;
    if (typeof next !== "string") throw protocolError("a tools/list cursor is not a string");
    cursor = next;
  }
}

/** Checks one selected schema: size, then the profile. Returns the compiled validator. */
function admitSchema(
  remoteName: string,
  role: SchemaRole,
  schema: unknown,
  limits: ToolLimits,
): SchemaValidator {
  const label = `${role}Schema of tool "${remoteName}"`;
  if (!isRecord(schema)) {
    throw new DiscoveryError("mcp_schema_unsupported", `${label} is not an object`, {
      tool: remoteName,
      schema: role,
      keyword: "",
      path: "",
      problem: "schema_not_object",
    });
  }
  if (utf8Length(canonicalize(schema)) > limits.maxSchemaBytes) {
    throw new DiscoveryError(
      "mcp_schema_too_large",
      `${label} is larger than ${limits.maxSchemaBytes} bytes`,
      { tool: remoteName, schema: role },
    );
  }
  try {
    // compileSchema checks the profile first; its problems say why a schema does not fit.
    return compileSchema(schema as JsonObject, { limits: { maxBytes: limits.maxSchemaBytes } });
  } catch (error) {
    if (error instanceof SchemaUnsupportedError) {
      const [first] = error.problems;
      throw new DiscoveryError(
        "mcp_schema_unsupported",
        // The keyword and its pointer are the server's text: they go in the fields, not here.
        `${label} does not fit the schema profile (${first.code}); see the error's keyword and path`,
        {
          tool: remoteName,
          schema: role,
          keyword: first.keyword,
          path: first.path,
          problem: first.code,
        },
      );
    }
    // The profile admitted it, so this should not happen; fail closed without remote text.
    throw new DiscoveryError("mcp_schema_unsupported", `${label} could not be compiled`, {
      tool: remoteName,
      schema: role,
      keyword: "",
      path: "",
    });
  }
}

/** The binding fields the shared discovery needs. */
export interface SelectableBinding {
  readonly remoteName: string;
  readonly localName: string;
  readonly scope: ScopeValidator | null;
}

/** One bound tool after its checks: the server's fields and the compiled validators. */
export interface Selected<B extends SelectableBinding> {
  /** Everything of the entry that comes from the server, plus the local name. */
  readonly base: Omit<SnapshotEntryBase, "policy" | "concurrencySafe">;
  readonly binding: B;
  readonly validateInput: SchemaValidator;
  readonly validateOutput: SchemaValidator | null;
}

/** Validates one listed bound tool and builds the server's part of its entry (exported for connect()). */
export function selectTool<B extends SelectableBinding>(
  binding: B,
  tool: Record<string, unknown>,
  limits: ToolLimits,
): Selected<B> {
  const name = binding.remoteName;
  const description = tool.description ?? "";
  if (typeof description !== "string") {
    throw protocolError(`tool "${name}" has a description that is not a string`);
  }
  if (utf8Length(description) > limits.maxDescriptionBytes) {
    throw new DiscoveryError(
      "mcp_description_too_large",
      `description of tool "${name}" is larger than ${limits.maxDescriptionBytes} bytes`,
      { tool: name },
    );
  }
  if (tool.title !== undefined && typeof tool.title !== "string") {
    throw protocolError(`tool "${name}" has a title that is not a string`);
  }
  if (tool.annotations !== undefined && !isRecord(tool.annotations)) {
    throw protocolError(`tool "${name}" has annotations that are not an object`);
  }
  if (tool.execution !== undefined && !isRecord(tool.execution)) {
    throw protocolError(`tool "${name}" has an execution field that is not an object`);
  }
  if (isRecord(tool.execution) && tool.execution.taskSupport === "required") {
    // sluice never runs task-augmented calls; such a tool could only ever fail.
    throw new DiscoveryError(
      "mcp_tool_task_required",
      `tool "${name}" requires task-augmented execution, which sluice does not support`,
      { tool: name },
    );
  }
  const validateInput = admitSchema(name, "input", tool.inputSchema, limits);
  const validateOutput = tool.outputSchema === undefined
    ? null
    : admitSchema(name, "output", tool.outputSchema, limits);
  const base = {
    localName: binding.localName,
    remoteName: name,
    ...(typeof tool.title === "string" ? { title: tool.title } : {}),
    description,
    inputSchema: tool.inputSchema as JsonObject,
    outputSchema: validateOutput ? tool.outputSchema as JsonObject : null,
    annotations: isRecord(tool.annotations) ? tool.annotations as JsonObject : null,
    ...(isRecord(tool.execution) ? { execution: tool.execution as JsonObject } : {}),
  };
  return { base, binding, validateInput, validateOutput };
}

/** What the shared discovery steps produce for read and write discovery alike. */
export interface Selection<B extends SelectableBinding> {
  readonly session: McpSession;
  readonly monitor: CatalogMonitor;
  readonly generation: number;
  /** The server id, protocol version and change detection every snapshot records. */
  readonly header: CatalogHeader;
  readonly limits: ToolLimits;
  /** One item per binding, sorted by local name. */
  readonly selected: readonly Selected<B>[];
}

/**
 * The discovery steps shared by read and write catalogs: limits, server id, monitor and
 * protocol checks, the bounded `tools/list`, and each bound tool's checks. `resolve` turns the
 * host's bindings into resolved ones (and throws the kind's own binding codes).
 */
export async function discoverSelection<B extends SelectableBinding>(
  client: SdkClientLike,
  serverId: string,
  resolve: () => Map<string, B>,
  options: DiscoverOptions,
): Promise<Selection<B>> {
  const limits = resolveLimitsForDiscovery(options.limits);
  if (typeof serverId !== "string" || serverId.length === 0 || !serverId.isWellFormed()) {
    throw new DiscoveryError("server_id_invalid", "the server id must be a non-empty string");
  }
  const resolved = resolve();
  const { monitor } = options;
  if (monitor.closed) {
    throw new DiscoveryError("mcp_connection_closed", "the catalog monitor is closed");
  }
  const protocolVersion = monitor.protocolVersion;
  if (protocolVersion === undefined || !ACCEPTED_PROTOCOL_VERSIONS.includes(protocolVersion)) {
    throw new DiscoveryError(
      "mcp_protocol_version_unsupported",
      `the negotiated protocol version is not one of ${ACCEPTED_PROTOCOL_VERSIONS.join(", ")}`,
    );
  }
  // A change arriving while the list is read makes this catalog stale at once.
  const generation = monitor.generation;
  const header = { serverId, protocolVersion, changeDetection: monitor.changeDetection };
  const session = sessionFromClient(client);
  const listed = await listBoundTools(session, resolved, limits, options.signal);
  const selected: Selected<B>[] = [];
  for (const binding of [...resolved.values()].sort(byLocalName)) {
    const tool = listed.get(binding.remoteName);
    if (!tool) {
      throw new DiscoveryError(
        "mcp_tool_missing",
        `bound tool "${binding.remoteName}" is not in the server's tool list`,
        { tool: binding.remoteName },
      );
    }
    selected.push(selectTool(binding, tool, limits));
  }
  return { session, monitor, generation, header, limits, selected };
}

/**
 * Discovers the bound tools of one server into a frozen, digest-pinned snapshot and callable
 * registrations. Pages through `tools/list` under the limits, selects only bound tools, checks
 * each selected schema against the profile and compiles its validator once. Unbound tools
 * appear nowhere: not in the snapshot, the registrations or any error.
 *
 * Throws a {@link DiscoveryError} (codes `binding_*`, `limits_invalid`, `mcp_*`).
 *
 * @param client the host's connected SDK client (v1 or v2)
 * @param serverId the host's id for this server, recorded in the snapshot
 * @param bindings the host's bindings keyed by remote tool name
 * @param options the session's monitor, optional limits and abort signal
 *
 * @example
 * ```ts ignore
 * import { CatalogMonitor, discoverTools } from "@sluice/mcp";
 *
 * const monitor = new CatalogMonitor();
 * transport.onmessage = monitor.onMessage;
 * await client.connect(transport);
 * monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
 * try {
 *   const { snapshot, registrations } = await discoverTools(client, "docs", {
 *     search: {
 *       localName: "search_docs",
 *       policy: { mode: "read", title: "Search documents" },
 *       scope: null,
 *       concurrencySafe: true,
 *     },
 *   }, { monitor });
 *   const envelope = await registrations[0].call({ query: "sluice" });
 * } finally {
 *   monitor.close();
 * }
 * ```
 */
export async function discoverTools(
  client: SdkClientLike,
  serverId: string,
  bindings: ReadToolBindings,
  options: DiscoverOptions,
): Promise<DiscoveryResult> {
  const found = await discoverSelection(client, serverId, () => resolveBindings(bindings), options);
  const entries = found.selected.map((item): SnapshotEntry => ({
    ...item.base,
    policy: item.binding.policy,
    concurrencySafe: item.binding.concurrencySafe,
  }));
  const snapshot = await buildSnapshot({ ...found.header, entries });
  const registrations = mapByLocalName(
    snapshot.entries,
    found.selected,
    (item) => item.base.localName,
    (entry, item) => createRegistration(registrationContext(found, entry, item)),
  );
  return deepFreeze({ snapshot, registrations });
}

/**
 * What a registration of `entry` needs: the session side of a selection plus the selected
 * tool's validators. The scope is the binding's unless the caller names one.
 */
export function registrationContext<E extends SnapshotEntryBase>(
  source: Pick<Selection<SelectableBinding>, "session" | "monitor" | "generation" | "limits">,
  entry: E,
  item: Selected<SelectableBinding>,
  scope: ScopeValidator | null = item.binding.scope,
): RegistrationContext & { readonly entry: E } {
  return {
    entry,
    session: source.session,
    monitor: source.monitor,
    generation: source.generation,
    limits: source.limits,
    scope,
    validateInput: item.validateInput,
    validateOutput: item.validateOutput,
  };
}

/**
 * Maps each entry of a built snapshot together with the item it was built from, matched by
 * local name (the snapshot orders its entries itself).
 */
export function mapByLocalName<E extends { readonly localName: string }, T, R>(
  entries: readonly E[],
  items: readonly T[],
  localNameOf: (item: T) => string,
  map: (entry: E, item: T) => R,
): R[] {
  const byName = new Map(items.map((item) => [localNameOf(item), item]));
  return entries.map((entry) => map(entry, byName.get(entry.localName)!));
}

function resolveLimitsForDiscovery(limits: Partial<ToolLimits> | undefined): ToolLimits {
  try {
    return resolveToolLimits(limits);
  } catch (error) {
    throw new DiscoveryError("limits_invalid", (error as Error).message);
  }
}
