import { type CanonicalForm, canonicalForm, type JsonObject } from "../identity/mod.ts";
import type { SchemaValidator, ValidationError } from "../schema/types.ts";
import { validateCanonical } from "../schema/compile.ts";
import type { ReadPolicy, ScopeValidator } from "../catalog/bindings.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import type { CatalogMonitor, CatalogStatus } from "../catalog/monitor.ts";
import type { SnapshotEntry, SnapshotEntryBase } from "../catalog/snapshot.ts";
import { type McpSession, SessionRequestError } from "../session/session.ts";
import {
  type ArgumentProblem,
  type CallErrorCode,
  failure,
  MAX_ARGUMENT_PROBLEMS,
  type ToolEnvelope,
} from "./envelope.ts";
import { checkCallResult } from "./result.ts";
import { type ParamHeaderDeclaration, paramHeaders } from "./param_headers.ts";
import { MODERN_PROTOCOL_VERSION } from "../session/protocol.ts";
import { DeadlineQueue } from "../deadline.ts";
import { DeadlineStopped, withinDeadline } from "./within_deadline.ts";

/**
 * Options of one call.
 *
 * @category Discovery and calls
 */
export interface CallOptions {
  /** Stops local waiting; a late result is discarded and the call ends in `mcp_aborted`. */
  readonly signal?: AbortSignal;
  /** Host state passed to the scope validator. */
  readonly state?: unknown;
}

/**
 * A model-facing tool backed by one remote tool of a snapshot.
 *
 * @category Discovery and calls
 */
export interface ToolRegistration {
  /** Name the model sees. */
  readonly localName: string;
  /** Name on the server. */
  readonly remoteName: string;
  /** The host's policy title. */
  readonly title: string;
  /** The server's description (model-facing). */
  readonly description: string;
  /** The input schema as discovered. */
  readonly inputSchema: Readonly<JsonObject>;
  /** The output schema as discovered, or `null`. */
  readonly outputSchema: Readonly<JsonObject> | null;
  /** The host's policy. */
  readonly policy: ReadPolicy;
  /** The host's concurrency declaration (recorded, not acted on). */
  readonly concurrencySafe: boolean;
  /** Runs one call: local checks, at most one `tools/call`, result checks. Never throws. */
  call(args: unknown, options?: CallOptions): Promise<ToolEnvelope>;
}

/**
 * Outcome of the local checks of a call.
 *
 * @category Discovery and calls
 */
export type Admission =
  /** Admitted: detached arguments, safe to send, and their canonical text (for digests). */
  | { readonly ok: true; readonly args: JsonObject; readonly canonical: string }
  /** Refused locally; nothing was sent. `problems` with a schema refusal of the arguments. */
  | {
    readonly ok: false;
    readonly errorCode: CallErrorCode;
    readonly problems?: readonly ArgumentProblem[];
  };

/**
 * Outcome of sending a call: the envelope and whether the request may have left sluice.
 *
 * @category Discovery and calls
 */
export interface Dispatch {
  /** The call's envelope. */
  readonly envelope: ToolEnvelope;
  /** `false` only when sluice knows nothing was sent (for `not_started` vs `unknown`). */
  readonly sent: boolean;
}

/**
 * Hooks of one dispatch, for the write gate's persistence points.
 *
 * @category Discovery and calls
 */
export interface DispatchHooks {
  /** Runs once the request was handed to the session, while its answer is awaited. */
  readonly onSent?: () => void | Promise<void>;
  /**
   * When set, a tool list change heard while the request was in flight fails the call with
   * `mcp_catalog_stale` even if a valid reply arrives: for a write, the tool it reached may no
   * longer be the one that was approved, so the outcome is not proven.
   */
  readonly failIfCatalogChanged?: boolean;
}

/**
 * The two layers of a call, for the write gate: `admit` runs every local check and returns
 * detached arguments; `dispatch` sends exactly one `tools/call` and checks the result.
 *
 * @category Discovery and calls
 */
export interface CallInternals {
  /** The snapshot entry this registration serves. */
  readonly entry: SnapshotEntryBase;
  /** Where this one tool stands now: current, stale (a change not yet re-listed) or closed. */
  status(): CatalogStatus;
  /** Local checks only: catalog status, argument budget and schema, scope validator. */
  admit(args: unknown, state: unknown, signal: AbortSignal | undefined): Promise<Admission>;
  /** One `tools/call` with already admitted arguments; never throws. */
  dispatch(
    args: JsonObject,
    signal: AbortSignal | undefined,
    hooks?: DispatchHooks,
  ): Promise<Dispatch>;
}

// Keyed by any registration object (read or write) created by discovery.
const internals = new WeakMap<object, CallInternals>();

/**
 * The internal call layers of a registration (read or write) created by discovery.
 *
 * @category Discovery and calls
 */
export function callInternals(registration: object): CallInternals | undefined {
  return internals.get(registration);
}

/**
 * Attaches call layers to a registration object (used by read and write discovery).
 *
 * @category Discovery and calls
 */
export function attachCallInternals(registration: object, layers: CallInternals): void {
  internals.set(registration, layers);
}

/**
 * What a registration needs from discovery.
 *
 * @category Discovery and calls
 */
export interface RegistrationContext {
  /** The frozen snapshot entry. */
  readonly entry: SnapshotEntryBase;
  /** The session calls go through. */
  readonly session: McpSession;
  /** The session's monitor, asked before every send. */
  readonly monitor: CatalogMonitor;
  /** The monitor's generation when discovery started. */
  readonly generation: number;
  /** The catalog's limits. */
  readonly limits: ToolLimits;
  /** The host's scope validator, or `null`. */
  readonly scope: ScopeValidator | null;
  /** The input schema's validator, compiled at discovery. */
  readonly validateInput: SchemaValidator;
  /** The output schema's validator, or `null` when the tool has none. */
  readonly validateOutput: SchemaValidator | null;
  /**
   * The entry digest of the tool's definition as listed (absent for an owner spec): after a
   * change is heard, a re-listing that finds this digest again keeps the tool current.
   */
  readonly definitionDigest?: string;
  /** The input schema's `x-mcp-header` declarations (mirrored on 2026-07-28 only). */
  readonly paramHeaders?: readonly ParamHeaderDeclaration[];
  /** Send once more when the reply stream broke (2026-07-28 reads the host opted in). */
  readonly resendOnBrokenStream?: boolean;
}

/** The monitor's view of this one tool: per tool, so a change elsewhere leaves it current. */
function toolStatus(context: RegistrationContext): CatalogStatus {
  return context.monitor.toolStatus(
    context.generation,
    context.entry.remoteName,
    context.definitionDigest,
  );
}

function catalogProblem(context: RegistrationContext): CallErrorCode | undefined {
  switch (toolStatus(context)) {
    case "stale":
      return "mcp_catalog_stale";
    case "closed":
      return "mcp_connection_closed";
  }
  return undefined;
}

/** Keywords that only fail because a subschema below them failed. */
const APPLICATORS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "allOf",
  "$ref",
  "dependentSchemas",
]);

/**
 * What the model is told about arguments that broke the schema: pointers into its own
 * arguments and profile keywords (nothing of the schema: no pattern text, no enum values),
 * the failing leaves only, at most {@link MAX_ARGUMENT_PROBLEMS}.
 */
function argumentProblems(errors: readonly ValidationError[]): ArgumentProblem[] {
  const leaves = errors.filter((error) =>
    !APPLICATORS.has(error.keyword) ||
    !errors.some((other) => other !== error && other.path.startsWith(`${error.path}/`))
  );
  return leaves.slice(0, MAX_ARGUMENT_PROBLEMS).map(({ path, keyword }) => ({ path, keyword }));
}

async function admit(
  context: RegistrationContext,
  scopeDeadlines: DeadlineQueue | undefined,
  args: unknown,
  state: unknown,
  signal: AbortSignal | undefined,
): Promise<Admission> {
  const stopped = catalogProblem(context) ?? (signal?.aborted ? "mcp_aborted" : undefined);
  if (stopped) return { ok: false, errorCode: stopped };
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, errorCode: "mcp_invalid_arguments" };
  }
  let form: CanonicalForm;
  let detached: JsonObject;
  try {
    // One pass bounds the size, refuses non-JSON and yields a copy the caller cannot mutate;
    // the schema's value budget is checked on its counts, not by a second pass.
    form = canonicalForm(args, { maxBytes: context.limits.maxArgumentBytes });
    detached = JSON.parse(form.text);
  } catch {
    return { ok: false, errorCode: "mcp_invalid_arguments" };
  }
  const canonical = form.text;
  const validation = validateCanonical(context.validateInput, detached, form);
  if (!validation.valid) {
    return {
      ok: false,
      errorCode: "mcp_invalid_arguments",
      problems: argumentProblems(validation.errors),
    };
  }
  if (context.scope) {
    let verdict: unknown;
    try {
      verdict = await withinDeadline(
        (stop) => context.scope!(state, JSON.parse(canonical), stop),
        signal,
        scopeDeadlines,
      );
    } catch (error) {
      if (error instanceof DeadlineStopped) return { ok: false, errorCode: error.code };
      verdict = "scope validator threw";
    }
    // Only an explicit `undefined` allows; anything else (an empty string too) denies.
    if (verdict !== undefined) return { ok: false, errorCode: "mcp_scope_denied" };
    const later = catalogProblem(context) ?? (signal?.aborted ? "mcp_aborted" : undefined);
    if (later) return { ok: false, errorCode: later };
  }
  return { ok: true, args: detached, canonical };
}

async function dispatch(
  context: RegistrationContext,
  args: JsonObject,
  signal: AbortSignal | undefined,
  hooks: DispatchHooks = {},
): Promise<Dispatch> {
  const stopped = catalogProblem(context);
  if (stopped) return { envelope: failure(stopped), sent: false };
  let raw: unknown;
  try {
    const headers = context.paramHeaders?.length &&
        context.monitor.protocolVersion === MODERN_PROTOCOL_VERSION
      ? paramHeaders(context.paramHeaders, args)
      : undefined;
    const send = () =>
      context.session.request(
        "tools/call",
        { name: context.entry.remoteName, arguments: args },
        { signal, timeoutMs: context.limits.timeoutMs, ...(headers ? { headers } : {}) },
      );
    const pending = context.resendOnBrokenStream
      ? send().catch((error) => {
        // The host asked for the revision's rule for this read: a broken stream is sent again,
        // once, as a new request.
        if (
          error instanceof SessionRequestError && error.replyStreamEnded &&
          context.monitor.protocolVersion === MODERN_PROTOCOL_VERSION
        ) {
          return send();
        }
        throw error;
      })
      : send();
    if (hooks.onSent) {
      // Observed below; a rejection while the hook runs must not count as unhandled.
      pending.catch(() => undefined);
      await hooks.onSent();
    }
    raw = await pending;
  } catch (error) {
    if (error instanceof SessionRequestError) {
      return { envelope: failure(error.code), sent: error.sent };
    }
    return { envelope: failure("mcp_transport_error"), sent: true };
  }
  if (hooks.failIfCatalogChanged && toolStatus(context) === "stale") {
    return { envelope: failure("mcp_catalog_stale"), sent: true };
  }
  try {
    return { envelope: checkCallResult(raw, context.validateOutput, context.limits), sent: true };
  } catch {
    return { envelope: failure("mcp_result_invalid"), sent: true };
  }
}

/**
 * The envelope of a refused admission (with its argument problems, when any).
 *
 * @param admission the refusal
 *
 * @category Discovery and calls
 */
export function refusal(admission: Admission & { readonly ok: false }): ToolEnvelope {
  return failure(
    admission.errorCode,
    admission.problems ? { problems: admission.problems } : undefined,
  );
}

/**
 * The call layers for one entry; validators are compiled once, by the caller.
 *
 * @category Discovery and calls
 */
export function createCallLayers(context: RegistrationContext): CallInternals {
  // The scope validator's deadlines all last the tool's timeout: one shared timer for them.
  const scopeDeadlines = context.scope ? new DeadlineQueue(context.limits.timeoutMs) : undefined;
  return {
    entry: context.entry,
    status: () => toolStatus(context),
    admit: (args, state, signal) => admit(context, scopeDeadlines, args, state, signal),
    dispatch: (args, signal, hooks) => dispatch(context, args, signal, hooks),
  };
}

/**
 * Creates the read registration for one entry.
 *
 * @category Discovery and calls
 */
export function createRegistration(
  context: RegistrationContext & { readonly entry: SnapshotEntry },
): ToolRegistration {
  const { entry } = context;
  const layers = createCallLayers(context);
  const registration: ToolRegistration = Object.freeze({
    localName: entry.localName,
    remoteName: entry.remoteName,
    title: entry.policy.title,
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    policy: entry.policy,
    concurrencySafe: entry.concurrencySafe,
    async call(args: unknown, options: CallOptions = {}): Promise<ToolEnvelope> {
      try {
        const admission = await layers.admit(args, options.state, options.signal);
        if (!admission.ok) return refusal(admission);
        return (await layers.dispatch(admission.args, options.signal)).envelope;
      } catch {
        return failure("mcp_protocol_error");
      }
    },
  });
  attachCallInternals(registration, layers);
  return registration;
}
