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
  readonly #tracer: TelemetryTracer | undefined;
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
    this.#tracer = telemetry.tracer;
    const { duration, outcomes, wait } = instrumentsOf(telemetry);
    this.duration = duration;
    this.outcomes = outcomes;
    this.wait = wait;
  }

  /**
   * Starts the trace of one call.
   *
   * @param tool the tool, or `undefined` when the model named no tool of the gate
   * @param args the admitted arguments (recorded only when the host opted in)
   * @param linkTo the W3C traceparent of the span that prepared the call's approval, when the
   *   call resumes one: the new span links to it
   */
  start(tool: TracedTool | undefined, args?: JsonValue, linkTo?: string): CallTrace {
    const telemetry = this.#telemetry;
    const { name, common, all } = this.#attributesOf(tool);
    const attributes = telemetry.recordArguments === true && args !== undefined
      ? { ...all, [ATTR.toolArguments]: JSON.stringify(args) }
      : all;
    let span: TelemetrySpan | undefined;
    let owned = false;
    const active = telemetry.activeSpan?.();
    const links = linkTo === undefined ? undefined : linksTo(linkTo);
    if (isExecuteTool(active)) {
      span = active;
      for (const [key, value] of Object.entries(attributes)) span.setAttribute(key, value);
      if (links !== undefined) span.addLink?.(links[0]);
    } else if (this.#tracer !== undefined) {
      span = this.#tracer.startSpan(
        name,
        links === undefined
          ? { kind: SPAN_KIND_CLIENT, attributes }
          : { kind: SPAN_KIND_CLIENT, attributes, links },
      );
      owned = true;
    }
    return new CallTrace(this, span, owned, common, telemetry.recordResults === true);
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
      own[ATTR.localName] = tool.localName;
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
    }
    const built: ToolAttributes = {
      version,
      name: tool === undefined ? TOOLS_CALL : `${TOOLS_CALL} ${tool.remoteName}`,
      common: Object.freeze(common),
      all: Object.freeze({ ...common, ...own }),
    };
    this.#cache.set(tool, built);
    return built;
  }
}

/**
 * The trace of one call, from the gate's start of it to its envelope.
 *
 * @category Telemetry
 */
export class CallTrace {
  readonly #instruments: GateInstruments;
  readonly #span: TelemetrySpan | undefined;
  readonly #owned: boolean;
  readonly #common: TelemetryAttributes;
  readonly #recordResult: boolean;
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
    span: TelemetrySpan | undefined,
    owned: boolean,
    common: TelemetryAttributes,
    recordResult: boolean,
  ) {
    this.#instruments = instruments;
    this.#span = span;
    this.#owned = owned;
    this.#common = common;
    this.#recordResult = recordResult;
  }

  /**
   * The W3C traceparent of the call's span, stored with the approval it prepares so the span of
   * a resume, perhaps in another process, links back to it.
   */
  link(): string | undefined {
    return traceparentOf(this.#span);
  }

  /** The call's span (sluice's own, or the host's `execute_tool` span), if any. */
  get span(): TelemetrySpan | undefined {
    return this.#span;
  }

  /**
   * Records the JSON-RPC error code the server answered the call's request with: the
   * conventions' `rpc.response.status_code`, and the call's `error.type`.
   *
   * @param code the JSON-RPC error code, as a string
   */
  answered(code: string): void {
    this.#statusCode = code;
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
    this.#span?.addEvent(APPROVAL_EVENTS[step], attributes);
    if (step === "claimed" || step === "pending") return;
    const measured: TelemetryAttributes = { ...this.#common, [ATTR.approvalOutcome]: step };
    delete measured[ATTR.operationName];
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
    const span = this.#span;
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
      } else if (this.#recordResult) {
        span.setAttribute(
          ATTR.toolResult,
          JSON.stringify({ text: envelope.text, structured: envelope.structured }),
        );
      }
      if (this.#owned) span.end();
    }
    const duration = this.#instruments.duration;
    if (duration !== undefined) {
      let measured = this.#common;
      if (errorType !== undefined) {
        measured = { ...measured, [ATTR.errorType]: errorType };
        if (status !== undefined) measured[ATTR.statusCode] = status;
      }
      duration.record(seconds, measured);
    }
  }
}
