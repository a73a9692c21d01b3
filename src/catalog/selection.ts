/**
 * Selection: each bound tool's checks (description, schemas against the profile, budgets,
 * execution mode), shared by read and write discovery.
 *
 * @module
 */
import { Turns } from "../turns.ts";
import { canonicalize, isRecord, type JsonObject, utf8Length } from "../identity/mod.ts";
import {
  compileSchema,
  headerDeclarations,
  type McpHeaderDeclaration,
  SchemaUnsupportedError,
} from "../schema/mod.ts";
import type { SchemaValidator } from "../schema/types.ts";
import type { OwnerSpec, ScopeValidator } from "./bindings.ts";
import { DiscoveryError, type SchemaRole } from "./errors.ts";
import { resolveToolLimits, type ToolLimits } from "./limits.ts";
import type { CatalogMonitor } from "./monitor.ts";
import type { ToolListing } from "./listing.ts";
import { byLocalName, type CatalogHeader, type SnapshotEntryBase } from "./snapshot.ts";
import { definitionDigest, definitionOfEntry } from "./revisions.ts";
import {
  type DiscoveryScreen,
  type LockedFinding,
  refusedFinding,
  sameFindings,
  screenRefusal,
  screenSelected,
  type ToolScreen,
} from "./screening.ts";

function protocolError(message: string): DiscoveryError {
  return new DiscoveryError("mcp_protocol_error", message);
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
    // x-mcp-header is a 2026-07-28 extension of input schemas only.
    return compileSchema(schema as JsonObject, {
      limits: { maxBytes: limits.maxSchemaBytes },
      mcpHeaders: role === "input",
    });
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

/**
 * The binding fields the shared discovery needs.
 *
 * @category Discovery and calls
 */
export interface SelectableBinding {
  readonly remoteName: string;
  readonly localName: string;
  readonly scope: ScopeValidator | null;
  readonly spec?: OwnerSpec;
}

/**
 * One bound tool after its checks: the server's fields and the compiled validators.
 *
 * @category Discovery and calls
 */
export interface Selected<B extends SelectableBinding> {
  /** Everything of the entry that comes from the server, plus the local name. */
  readonly base: Omit<SnapshotEntryBase, "policy" | "concurrencySafe">;
  readonly binding: B;
  readonly validateInput: SchemaValidator;
  readonly validateOutput: SchemaValidator | null;
  /** The input schema's `x-mcp-header` declarations (empty for most tools). */
  readonly headers: readonly McpHeaderDeclaration[];
  /** The poisoning screen's verdict on what the model sees (absent when not screened). */
  readonly screen?: ToolScreen;
}

/**
 * Validates one bound tool (listed, or the owner's spec) and builds the server's part of its entry.
 *
 * @category Discovery and calls
 */
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
  const headers = headerDeclarations(tool.inputSchema as JsonObject);
  return { base, binding, validateInput, validateOutput, headers };
}

/**
 * A bound tool that does not fit, when discovery skips instead of failing.
 *
 * @category Discovery and calls
 */
export interface UnfitTool {
  /** The local name it would have had. */
  readonly localName: string;
  /** Its remote name. */
  readonly remoteName: string;
  /** Why, with the code and the details (schema, keyword, path) of the failed check. */
  readonly error: DiscoveryError;
  /** The screen's verdict, when the tool was screened (always, for `mcp_tool_screen_refused`). */
  readonly screen?: ToolScreen;
}

/**
 * The protocol version a snapshot records for a server discovery did not contact (every
 * bound tool has an owner spec and the session has not negotiated yet).
 *
 * @category Discovery and calls
 */
export const NOT_NEGOTIATED = "not-negotiated";

/**
 * What the shared selection produces for read and write discovery alike.
 *
 * @category Discovery and calls
 */
export interface Selection<B extends SelectableBinding> {
  /** The monitor's generation when the listing started (or now, without one). */
  readonly generation: number;
  /** The server id, protocol version and change detection every snapshot records. */
  readonly header: CatalogHeader;
  /** One item per fitting binding, sorted by local name. */
  readonly selected: readonly Selected<B>[];
  /** The bindings that do not fit, when the caller skips them (sorted by local name). */
  readonly unfit: readonly UnfitTool[];
}

/**
 * What {@link selectBound} needs.
 *
 * @category Discovery and calls
 */
export interface SelectionInput<B extends SelectableBinding> {
  readonly serverId: string;
  readonly bindings: ReadonlyMap<string, B>;
  readonly monitor: CatalogMonitor;
  readonly limits: ToolLimits;
  /** The listing of every binding without an owner spec (absent when all have one). */
  readonly listing: ToolListing | undefined;
  /** Skip a tool that does not fit instead of failing (`"skip"`), or fail (`"fail"`). */
  readonly onUnfit: "fail" | "skip";
  /** The poisoning screen's context and policy (`false`: off; absent: the default policy). */
  readonly screen?: DiscoveryScreen | false;
}

/**
 * Checks that discovery may run: a valid server id, an open monitor, an accepted protocol
 * version (unless nothing needs listing and the session has not negotiated yet). Returns the
 * catalog header.
 *
 * @category Discovery and calls
 */
export function catalogHeader(
  serverId: unknown,
  monitor: CatalogMonitor,
  needsListing: boolean,
): CatalogHeader {
  if (typeof serverId !== "string" || serverId.length === 0 || !serverId.isWellFormed()) {
    throw new DiscoveryError("server_id_invalid", "the server id must be a non-empty string");
  }
  if (monitor.closed) {
    throw new DiscoveryError("mcp_connection_closed", "the catalog monitor is closed");
  }
  const protocolVersion = monitor.protocolVersion;
  if (protocolVersion === undefined && !needsListing) {
    return { serverId, protocolVersion: NOT_NEGOTIATED, changeDetection: monitor.changeDetection };
  }
  if (!monitor.accepts(protocolVersion)) {
    throw new DiscoveryError(
      "mcp_protocol_version_unsupported",
      `the negotiated protocol version is not one of ${monitor.protocolVersions.join(", ")}`,
    );
  }
  return { serverId, protocolVersion: protocolVersion!, changeDetection: monitor.changeDetection };
}

/** The raw entry of one binding: the owner's spec, or what the listing holds. */
function rawEntry(
  binding: SelectableBinding,
  listing: ToolListing | undefined,
): Record<string, unknown> {
  const name = binding.remoteName;
  if (binding.spec !== undefined) {
    return { name, description: binding.spec.description, inputSchema: binding.spec.inputSchema };
  }
  if (listing?.malformed.has(name)) {
    throw protocolError(`the server's entry for bound tool "${name}" is listed twice or not JSON`);
  }
  const tool = listing?.tools.get(name);
  if (tool === undefined) {
    throw new DiscoveryError(
      "mcp_tool_missing",
      `bound tool "${name}" is not in the server's tool list`,
      { tool: name },
    );
  }
  return tool;
}

/**
 * Runs each binding's checks, in local-name order, yielding between tools every few milliseconds. With `onUnfit: "skip"` a tool that does not
 * fit is returned in `unfit` and the others go on; with `"fail"` the first one throws.
 *
 * @category Discovery and calls
 */
export async function selectBound<B extends SelectableBinding>(
  input: SelectionInput<B>,
): Promise<Selection<B>> {
  const header = catalogHeader(input.serverId, input.monitor, input.listing !== undefined);
  const selected: Selected<B>[] = [];
  const unfit: UnfitTool[] = [];
  // Many tools are checked in short turns, so a large server's checks never stall the host.
  const turns = new Turns();
  for (const binding of [...input.bindings.values()].sort(byLocalName)) {
    await turns.next();
    try {
      selected.push(selectTool(binding, rawEntry(binding, input.listing), input.limits));
    } catch (error) {
      if (!(error instanceof DiscoveryError) || input.onUnfit === "fail") throw error;
      unfit.push({ localName: binding.localName, remoteName: binding.remoteName, error });
    }
  }
  const generation = input.listing?.generation ?? input.monitor.generation;
  const screened = await screenStep(selected, input.screen, input.onUnfit, turns);
  unfit.push(...screened.unfit);
  unfit.sort(byLocalName);
  return { generation, header, selected: screened.selected, unfit };
}

/** What a model sees of a selected tool, as the screen reads it (pointers into the listing). */
function visibleOf(base: Selected<SelectableBinding>["base"]) {
  return {
    name: base.remoteName,
    ...(base.title !== undefined ? { title: base.title } : {}),
    description: base.description,
    inputSchema: base.inputSchema,
    ...(base.outputSchema !== null ? { outputSchema: base.outputSchema } : {}),
    ...(base.annotations !== null ? { annotations: base.annotations } : {}),
    ...(base.execution !== undefined ? { execution: base.execution } : {}),
  };
}

/**
 * Screens the selected tools together (once each, on what the model would see) and moves the
 * ones their policy refuses to `unfit` (or throws, with `"fail"`).
 */
async function screenStep<B extends SelectableBinding>(
  selected: readonly Selected<B>[],
  screen: DiscoveryScreen | false | undefined,
  onUnfit: "fail" | "skip",
  turns: Turns,
): Promise<{ selected: Selected<B>[]; unfit: UnfitTool[] }> {
  let verdicts: Map<string, ToolScreen>;
  try {
    verdicts = await screenSelected(
      selected.map((item) => visibleOf(item.base)),
      screen,
      () => turns.next(),
    );
  } catch (error) {
    throw new DiscoveryError("discovery_options_invalid", (error as Error).message);
  }
  const kept: Selected<B>[] = [];
  const unfit: UnfitTool[] = [];
  for (const item of selected) {
    const verdict = verdicts.get(item.base.remoteName);
    const refused = verdict === undefined ? undefined : refusedFinding(verdict);
    if (refused === undefined) {
      kept.push(verdict === undefined ? item : { ...item, screen: verdict });
      continue;
    }
    const error = screenRefusal(item.base.remoteName, refused);
    if (onUnfit === "fail") throw error;
    unfit.push({
      localName: item.base.localName,
      remoteName: item.base.remoteName,
      error,
      screen: verdict,
    });
  }
  return { selected: kept, unfit };
}

/**
 * The limits discovery runs under: the defaults adjusted by the host's, or `limits_invalid`.
 *
 * @param limits the host's adjustments
 *
 * @category Discovery and calls
 */
export function discoveryLimits(limits: Partial<ToolLimits> | undefined): ToolLimits {
  try {
    return resolveToolLimits(limits);
  } catch (error) {
    throw new DiscoveryError("limits_invalid", (error as Error).message);
  }
}

/**
 * Each selected listed tool's entry digest; with `expected` (a lock's), the tools that do not
 * match it move to `unfit` (or throw `catalog_lock_mismatch`, with `onUnfit: "fail"`). Tools
 * with an owner spec are the host's own definition and are not checked.
 *
 * @param selection the selection
 * @param expected expected entry digests by remote name
 * @param onUnfit what a mismatch does
 * @param expectedScreens a lock's screen verdicts by remote name: a screened tool whose
 *   findings differ does not match either
 *
 * @category Discovery and calls
 */
export async function checkDigests<B extends SelectableBinding>(
  selection: Selection<B>,
  expected: Readonly<Record<string, string>> | undefined,
  onUnfit: "fail" | "skip",
  expectedScreens?: Readonly<Record<string, readonly LockedFinding[]>>,
): Promise<{ selection: Selection<B>; digests: Map<string, string> }> {
  const digests = new Map<string, string>();
  const selected: Selected<B>[] = [];
  const unfit: UnfitTool[] = [...selection.unfit];
  for (const item of selection.selected) {
    if (item.binding.spec !== undefined) {
      selected.push(item);
      continue;
    }
    const name = item.base.remoteName;
    const found = await definitionDigest(definitionOfEntry(item.base));
    if (expected !== undefined && !(Object.hasOwn(expected, name) && expected[name] === found)) {
      const error = new DiscoveryError(
        "catalog_lock_mismatch",
        `bound tool "${name}" does not have the expected definition digest`,
        { tool: name },
      );
      if (onUnfit === "fail") throw error;
      unfit.push({ localName: item.base.localName, remoteName: name, error });
      continue;
    }
    const locked = expectedScreens !== undefined && Object.hasOwn(expectedScreens, name)
      ? expectedScreens[name]
      : undefined;
    if (locked !== undefined && item.screen && !sameFindings(locked, item.screen.findings)) {
      const error = new DiscoveryError(
        "catalog_lock_mismatch",
        `bound tool "${name}" does not have the locked screen verdict`,
        { tool: name },
      );
      if (onUnfit === "fail") throw error;
      unfit.push({ localName: item.base.localName, remoteName: name, error, screen: item.screen });
      continue;
    }
    digests.set(name, found);
    selected.push(item);
  }
  unfit.sort(byLocalName);
  return { selection: { ...selection, selected, unfit }, digests };
}
