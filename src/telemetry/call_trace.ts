/**
 * One call's trace: the `tools/call` span in the MCP semantic conventions (or the attributes on
 * the host's own GenAI `execute_tool` span), the approval lifecycle as span events and the
 * call's measurements. Built only when the host passed telemetry; without it the gate makes none.
 *
 * @module
 */
import type { JsonValue } from "../identity/mod.ts";
import {
  APPROVAL_EVENTS,
  type ApprovalStep,
  ATTR,
  SPAN_KIND_CLIENT,
  STATUS_ERROR,
  TOOL_ERROR,
  TOOLS_CALL,
} from "./conventions.ts";
import { instrumentsOf } from "./instruments.ts";
import { statusCodeOf } from "./session_trace.ts";
import type {
  GateTelemetry,
  TelemetryAttributes,
  TelemetryCounter,
  TelemetryHistogram,
  TelemetryLink,
  TelemetrySpan,
  TelemetryTracer,
} from "./types.ts";

/**
 * What a trace says about a tool, fixed when the gate is built.
 *
 * @category Telemetry
 */
export interface TracedTool {
  /** The tool's name on the server (`gen_ai.tool.name`). */
  readonly remoteName: string;
  /** The name the model called. */
  readonly localName: string;
  /** The host's id for the server, when the catalog says. */
  readonly serverId?: string;
  /** The negotiated protocol version now (the catalog's monitor). */
  readonly protocolVersion: () => string | undefined;
  /** The read catalog's revision digest. */
  readonly snapshotDigest?: string;
  /** The write catalog's digest (what approvals bind to). */
  readonly writeCatalogDigest?: string;
  /** The host's binding id of a write tool. */
  readonly bindingId?: string;
  /** `write` or `destructive` for a write tool. */
  readonly effect?: string;
  /** The screen's and the lock's verdicts, when the host knows them (connect()). */
  readonly verdicts?: TracedVerdicts;
}

/**
 * The screen's and the lock's verdicts on a tool, as its spans record them.
 *
 * @category Telemetry
 */
export interface TracedVerdicts {
  /** `clean`, `findings` (allowed by the tool's policy) or `not_screened` (an owner spec). */
  readonly screen: "clean" | "findings" | "not_screened";
  /** How many findings the screen allowed. */
  readonly findings?: number;
  /** `matched` (the listed definition matched the lock), `unlocked` or `not_listed`. */
  readonly lock: "matched" | "unlocked" | "not_listed";
}

/**
 * What a trace reads of an approval record (structurally: an `ApprovalRecord` fits).
 *
 * @category Telemetry
 */
export interface TracedApproval {
  /** The approval id. */
  readonly id: string;
  /** When it was prepared (the store's clock). */
  readonly createdAt?: number;
  /** The decision as the store records it. */
  readonly decision?: { readonly by: string; readonly at: number };
  /** Set on the approval of an edit: its wait is its original's, counted there. */
  readonly supersedes?: string;
}

/**
 * What a trace reads of the envelope it ends with.
 *
 * @category Telemetry
 */
export interface TracedEnvelope {
  /** The failure code, if any. */
  readonly errorCode?: string;
  /** A write's effect. */
  readonly effect?: string;
  /** A write's approval. */
  readonly approvalId?: string;
  /** The result's text blocks. */
  readonly text: readonly string[];
  /** The result's structured content. */
  readonly structured: JsonValue | null;
}

/** A tool's span name and attributes at one protocol version. */
interface ToolAttributes {
  readonly version: string | undefined;
  readonly name: string;
  /** The conventions' attributes, shared by the span and the measurements. */
  readonly common: Readonly<TelemetryAttributes>;
  /** `common` and sluice's own: the span's. */
  readonly all: Readonly<TelemetryAttributes>;
  /** `all` with a session's attributes, by the session's (frozen, cached) attribute object. */
  readonly withSession: WeakMap<object, Readonly<TelemetryAttributes>>;
  /** The measurements of a failed call, by `error.type` and status code. */
  readonly failed: Map<string, Readonly<TelemetryAttributes>>;
  /** The measurements of an approval step (`common` without the operation name, the step). */
  readonly steps: Map<string, Readonly<TelemetryAttributes>>;
}

/** The link to the span a W3C traceparent names (an approval's `traceLink`, already checked). */
function linksTo(traceparent: string): TelemetryLink[] | undefined {
  const [, traceId, spanId, flags] = traceparent.split("-");
  if (traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  return [{
    context: { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true },
    attributes: { [ATTR.linkKind]: "approval_prepared" },
  }];
}

/** The W3C traceparent of a span's context, or `undefined` for an invalid (all-zero) one. */
function traceparentOf(span: TelemetrySpan | undefined): string | undefined {
  const context = span?.spanContext?.();
  if (context === undefined) return undefined;
  const { traceId, spanId, traceFlags } = context;
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId)) return undefined;
  if (!/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** Codes that are not failures of the call: it waits for a person. */
const NOT_FAILED = new Set(["approval_pending"]);

/** Whether `span` is a recording GenAI `execute_tool` span (SDK spans expose attributes). */
function isExecuteTool(span: TelemetrySpan | undefined): span is TelemetrySpan {
  if (span === undefined || !span.isRecording()) return false;
  const attributes = (span as { attributes?: Record<string, unknown> }).attributes;
  return attributes?.[ATTR.operationName] === "execute_tool";
}

/**
 * The instruments of one gate, made once from the host's telemetry.
 *
 * @category Telemetry
 */
export class GateInstruments {
  readonly #telemetry: GateTelemetry;
  /** @internal */
  readonly tracer: TelemetryTracer | undefined;
  readonly #cache = new Map<TracedTool | undefined, ToolAttributes>();
  /** @internal */
  readonly duration: TelemetryHistogram | undefined;
  /** @internal */
  readonly outcomes: TelemetryCounter | undefined;
  /** @internal */
  readonly wait: TelemetryHistogram | undefined;

  /**
   * Creates the instruments.
   *
   * @param telemetry the host's tracer, meter and choices
   */
  constructor(telemetry: GateTelemetry) {
    this.#telemetry = telemetry;
    this.tracer = telemetry.tracer;
    const { duration, outcomes, wait } = instrumentsOf(telemetry);
    this.duration = duration;
    this.outcomes = outcomes;
    this.wait = wait;
  }

  /**
   * Starts the trace of one call. sluice's own span starts when the call's request is handed to
   * its session (with the session's attributes, all in one `startSpan`, its start time the
   * call's), or at the first approval step or the end, whichever comes first; the host's
   * `execute_tool` span, when it is the active one, gets the attributes at once.
   *
   * @param tool the tool, or `undefined` when the model named no tool of the gate
   * @param args the admitted arguments (recorded only when the host opted in)
   * @param linkTo the W3C traceparent of the span that prepared the call's approval, when the
   *   call resumes one: the new span links to it
   */
  start(tool: TracedTool | undefined, args?: JsonValue, linkTo?: string): CallTrace {
    const telemetry = this.#telemetry;
    const attributes = this.#attributesOf(tool);
    const argumentsJson = telemetry.recordArguments === true && args !== undefined
      ? JSON.stringify(args)
      : undefined;
    const links = linkTo === undefined ? undefined : linksTo(linkTo);
    const active = telemetry.activeSpan?.();
    if (!isExecuteTool(active)) {
      return new CallTrace(this, attributes, undefined, argumentsJson, links, telemetry);
    }
    for (const key in attributes.all) active.setAttribute(key, attributes.all[key]);
    if (argumentsJson !== undefined) active.setAttribute(ATTR.toolArguments, argumentsJson);
    if (links !== undefined) active.addLink?.(links[0]);
    return new CallTrace(this, attributes, active, undefined, undefined, telemetry);
  }

  /**
   * A tool's span name and attributes, built once per tool and protocol version (calls are the
   * hot path: nothing is rebuilt per call).
   */
  #attributesOf(tool: TracedTool | undefined): ToolAttributes {
    const version = tool?.protocolVersion();
    const cached = this.#cache.get(tool);
    if (cached !== undefined && cached.version === version) return cached;
    const common: TelemetryAttributes = {
      [ATTR.methodName]: TOOLS_CALL,
      [ATTR.operationName]: "execute_tool",
    };
    const own: TelemetryAttributes = {};
    if (tool !== undefined) {
      common[ATTR.toolName] = tool.remoteName;
      if (version !== undefined) common[ATTR.protocolVersion] = version;
      if (tool.serverId !== undefined) {
        common[ATTR.serverId] = tool.serverId;
        const server = this.#telemetry.servers?.[tool.serverId];
        if (server !== undefined) {
          common[ATTR.serverAddress] = server.address;
          if (server.port !== undefined) common[ATTR.serverPort] = server.port;
        }
      }
      Object.assign(own, ownAttributesOf(tool));
    }
    const built: ToolAttributes = {
      version,
      name: tool === undefined ? TOOLS_CALL : `${TOOLS_CALL} ${tool.remoteName}`,
      common: Object.freeze(common),
      all: Object.freeze({ ...common, ...own }),
      withSession: new WeakMap(),
      failed: new Map(),
      steps: new Map(),
    };
    this.#cache.set(tool, built);
    return built;
  }
}

/** sluice's own attributes of a tool: its local name, digests, binding, effect, verdicts. */
function ownAttributesOf(tool: TracedTool): TelemetryAttributes {
  const own: TelemetryAttributes = { [ATTR.localName]: tool.localName };
  if (tool.snapshotDigest !== undefined) own[ATTR.snapshotDigest] = tool.snapshotDigest;
  if (tool.writeCatalogDigest !== undefined) {
    own[ATTR.writeCatalogDigest] = tool.writeCatalogDigest;
  }
  if (tool.bindingId !== undefined) own[ATTR.bindingId] = tool.bindingId;
  if (tool.effect !== undefined) own[ATTR.effect] = tool.effect;
  const verdicts = tool.verdicts;
  if (verdicts !== undefined) {
    own[ATTR.screenVerdict] = verdicts.screen;
    if (verdicts.findings !== undefined) own[ATTR.screenFindings] = verdicts.findings;
    own[ATTR.lockVerdict] = verdicts.lock;
  }
  return own;
}

/** The measurement attributes of `key` in `cache`, built by `build` the first time. */
function cachedIn(
  cache: Map<string, Readonly<TelemetryAttributes>>,
  key: string,
  build: () => TelemetryAttributes,
): Readonly<TelemetryAttributes> {
  let found = cache.get(key);
  if (found === undefined) {
    found = Object.freeze(build());
    cache.set(key, found);
  }
  return found;
}

/**
 * The trace of one call, from the gate's start of it to its envelope.
 *
 * @category Telemetry
 */
export class CallTrace {
  readonly #instruments: GateInstruments;
  readonly #attributes: ToolAttributes;
  readonly #telemetry: GateTelemetry;
  /** The opt-in arguments attribute, until sluice's own span starts with it. */
  readonly #arguments: string | undefined;
  readonly #links: TelemetryLink[] | undefined;
  /** The call's span once started (sluice's own), or the host's `execute_tool` span. */
  #span: TelemetrySpan | undefined;
  /** Whether sluice started `#span` (and ends it); the host's span is the host's to end. */
  #owned = false;
  /** The session attributes the span carries (their frozen, cached object). */
  #session: object | undefined;
  readonly #start = performance.now();
  /** The JSON-RPC error code the server answered the call's request with, if it did. */
  #statusCode: string | undefined;

  /**
   * Created by {@link GateInstruments.start}.
   *
   * @internal
   */
  constructor(
    instruments: GateInstruments,
    attributes: ToolAttributes,
    hostSpan: TelemetrySpan | undefined,
    argumentsJson: string | undefined,
    links: TelemetryLink[] | undefined,
    telemetry: GateTelemetry,
  ) {
    this.#instruments = instruments;
    this.#attributes = attributes;
    this.#span = hostSpan;
    this.#arguments = argumentsJson;
    this.#links = links;
    this.#telemetry = telemetry;
  }

  /**
   * The call's span with `session`'s attributes (and the request id, when known) on it: started
   * now, with every attribute in one `startSpan`, when there is none yet (its start time the
   * call's). `session` is a frozen object a session tracer caches; an object given again is not
   * set again.
   *
   * @param session the attributes of the session the request goes through
   * @param requestId the request's JSON-RPC id, when it was sent already
   * @internal
   */
  open(session?: Readonly<TelemetryAttributes>, requestId?: string): TelemetrySpan | undefined {
    const span = this.#span;
    if (span !== undefined || this.#owned) {
      if (span !== undefined && session !== undefined && session !== this.#session) {
        this.#session = session;
        for (const key in session) span.setAttribute(key, session[key]);
      }
      if (requestId !== undefined) span?.setAttribute(ATTR.requestId, requestId);
      return span;
    }
    const tracer = this.#instruments.tracer;
    this.#owned = true;
    if (tracer === undefined) return undefined;
    const tool = this.#attributes;
    let attributes = tool.all;
    if (session !== undefined) {
      this.#session = session;
      let merged = tool.withSession.get(session);
      if (merged === undefined) {
        merged = Object.freeze({ ...tool.all, ...session });
        tool.withSession.set(session, merged);
      }
      attributes = merged;
    }
    if (this.#arguments !== undefined || requestId !== undefined) {
      attributes = {
        ...attributes,
        ...(requestId !== undefined ? { [ATTR.requestId]: requestId } : {}),
        ...(this.#arguments !== undefined ? { [ATTR.toolArguments]: this.#arguments } : {}),
      };
    }
    const links = this.#links;
    this.#span = tracer.startSpan(
      tool.name,
      links === undefined
        ? { kind: SPAN_KIND_CLIENT, attributes, startTime: this.#start }
        : { kind: SPAN_KIND_CLIENT, attributes, links, startTime: this.#start },
    );
    return this.#span;
  }

  /**
   * The W3C traceparent of the call's span, stored with the approval it prepares so the span of
   * a resume, perhaps in another process, links back to it.
   */
  link(): string | undefined {
    return traceparentOf(this.open());
  }

  /** The call's span (sluice's own, started now if it was not, or the host's), if any. */
  get span(): TelemetrySpan | undefined {
    return this.open();
  }

  /** The host's propagator, when it passed one. */
  get inject(): GateTelemetry["inject"] {
    return this.#telemetry.inject;
  }

  /**
   * The call's request failed with `error`: the JSON-RPC error code on its cause chain, when the
   * server answered with one, is the conventions' `rpc.response.status_code` and the call's
   * `error.type`. Called by the dispatch (never on success: no promise is wrapped per call).
   *
   * @param error why the request failed
   */
  failed(error: unknown): void {
    const status = statusCodeOf(error);
    if (status !== undefined) this.#statusCode = status;
  }

  /**
   * Records one step of the approval lifecycle as a span event, with the decider as the store
   * records it; a decision adds its wait, an end of the write its outcome count.
   *
   * @param step the step
   * @param approval the approval (its id, and its decision when it has one)
   * @param code the code the step ended with, for `not_started` and `unknown`
   */
  approval(step: ApprovalStep, approval: TracedApproval, code?: string): void {
    const attributes: TelemetryAttributes = { [ATTR.approvalId]: approval.id };
    const by = approval.decision?.by;
    if (by !== undefined && step !== "claimed" && step !== "pending") {
      attributes[ATTR.decidedBy] = by;
    }
    if (code !== undefined) attributes[ATTR.errorCode] = code;
    this.open()?.addEvent(APPROVAL_EVENTS[step], attributes);
    if (step === "claimed" || step === "pending") return;
    const common = this.#attributes.common;
    const measured = cachedIn(this.#attributes.steps, step, () => {
      const built: TelemetryAttributes = { [ATTR.approvalOutcome]: step };
      for (const key in common) if (key !== ATTR.operationName) built[key] = common[key];
      return built;
    });
    this.#instruments.outcomes?.add(1, measured);
    const decided = approval.decision?.at;
    if (step === "approved" || step === "denied" || step === "superseded") {
      if (
        decided !== undefined && approval.createdAt !== undefined &&
        approval.supersedes === undefined
      ) {
        this.#instruments.wait?.record(Math.max(0, decided - approval.createdAt) / 1000, measured);
      }
    }
  }

  /**
   * Ends the trace with the call's envelope: outcome, error type and code, the duration.
   *
   * @param envelope what the gate returns for the call
   */
  end(envelope: TracedEnvelope): void {
    const seconds = (performance.now() - this.#start) / 1000;
    const code = envelope.errorCode;
    const failed = code !== undefined && !NOT_FAILED.has(code);
    const status = this.#statusCode;
    const errorType = failed
      ? (code === "mcp_tool_error" ? TOOL_ERROR : status ?? code)
      : undefined;
    const span = this.open();
    if (span !== undefined) {
      if (envelope.approvalId !== undefined) {
        span.setAttribute(ATTR.approvalId, envelope.approvalId);
      }
      span.setAttribute(
        ATTR.outcome,
        code === "approval_pending" ? "pending" : envelope.effect ?? (failed ? "failed" : "ok"),
      );
      if (code !== undefined) span.setAttribute(ATTR.errorCode, code);
      if (status !== undefined) span.setAttribute(ATTR.statusCode, status);
      if (errorType !== undefined) {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: STATUS_ERROR });
      } else if (this.#telemetry.recordResults === true) {
        span.setAttribute(
          ATTR.toolResult,
          JSON.stringify({ text: envelope.text, structured: envelope.structured }),
        );
      }
      if (this.#owned) span.end();
    }
    const duration = this.#instruments.duration;
    if (duration === undefined) return;
    const common = this.#attributes.common;
    duration.record(
      seconds,
      errorType === undefined ? common : cachedIn(
        this.#attributes.failed,
        `${errorType}\u0000${status ?? ""}`,
        () => ({
          ...common,
          [ATTR.errorType]: errorType,
          ...(status !== undefined ? { [ATTR.statusCode]: status } : {}),
        }),
      ),
    );
  }
}
