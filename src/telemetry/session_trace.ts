/**
 * The trace of one MCP session: a CLIENT span per request sluice sends (`tools/list`,
 * `initialize`, `server/discover`, `subscriptions/listen`; `tools/call` is the gate's span, given
 * the request's facts here), the conventions' attributes, trace context in `params._meta`, the
 * operation and session durations.
 *
 * @module
 */
import { isRecord, type JsonObject } from "../identity/mod.ts";
import { SluiceError } from "../errors.ts";
import { ATTR, SPAN_KIND_CLIENT, STATUS_ERROR, TOOLS_CALL } from "./conventions.ts";
import { instrumentsOf, type TelemetryInstruments } from "./instruments.ts";
import type { GateTelemetry, TelemetryAttributes, TelemetrySpan } from "./types.ts";

/**
 * Where a traced session goes, for the conventions' server and network attributes.
 *
 * @category Telemetry
 */
export interface TracedServer {
  /** The host's id for the server (`sluice.server.id`). */
  readonly serverId?: string;
  /** `server.address`. */
  readonly address?: string;
  /** `server.port`. */
  readonly port?: number;
  /** `network.transport`: `tcp` for Streamable HTTP (the default), `pipe` for stdio. */
  readonly transport?: "tcp" | "pipe";
  /**
   * `mcp.protocol.version` when the client does not say (the v1 SDK's `Client` over memory or
   * stdio has no way to ask: pass the handshake's answer). A v2 client's own answer wins.
   */
  readonly protocolVersion?: string;
}

/** What a session tracer reads of the session now. */
export interface SessionFacts {
  /** The negotiated protocol version, once known. */
  protocolVersion(): string | undefined;
  /** The transport's session id (`Mcp-Session-Id`), where the era has one. */
  sessionId(): string | undefined;
}

/** A method's span attributes and its measurements' (the span's without the session id). */
interface MethodAttributes {
  readonly span: Readonly<TelemetryAttributes>;
  readonly measured: Readonly<TelemetryAttributes>;
}

/** The JSON-RPC facts of one request as they are known. */
export interface RequestFacts {
  /** `jsonrpc.request.id`, when known. */
  readonly requestId?: string;
  /** `rpc.response.status_code`: the JSON-RPC error code of the answer. */
  readonly statusCode?: string;
  /** `error.type` when it is neither the status code nor sluice's code (an HTTP status). */
  readonly errorType?: string;
}

/** The SDK's id of `subscriptions/listen` is acknowledged under this `_meta` key. */
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** The request the conventions' session starts with, per era. */
const SESSION_STARTS = new Set(["initialize", "server/discover"]);

/** The JSON-RPC error code on an error's cause chain: the server's answer, if it was one. */
export function statusCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isRecord(current); depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "number" && Number.isInteger(code)) return String(code);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The `error.type` of a failed request: the JSON-RPC code when the server answered with one. */
function errorTypeOf(error: unknown, statusCode: string | undefined): string {
  if (statusCode !== undefined) return statusCode;
  return error instanceof SluiceError ? error.code : "mcp_transport_error";
}

/**
 * One request in flight: its span (when sluice started one), the start time and the attributes
 * its measurement carries.
 */
export class RequestTrace {
  readonly #tracer: SessionTracer;
  /** The span sluice started for the request; `undefined` when the gate's span is the one. */
  readonly span: TelemetrySpan | undefined;
  readonly #measured: TelemetryAttributes;
  readonly #start = performance.now();
  #ended = false;

  /** Made by {@link SessionTracer.start}. */
  constructor(
    tracer: SessionTracer,
    span: TelemetrySpan | undefined,
    measured: TelemetryAttributes,
  ) {
    this.#tracer = tracer;
    this.span = span;
    this.#measured = measured;
  }

  /**
   * Ends the span and records the duration: `error` is the rejection, if the request failed.
   *
   * @param error why the request failed (a session error, or the server's JSON-RPC error)
   * @param facts what the answer said
   */
  end(error?: unknown, facts: RequestFacts = {}): void {
    if (this.#ended) return;
    this.#ended = true;
    const seconds = (performance.now() - this.#start) / 1000;
    const span = this.span;
    const statusCode = facts.statusCode ?? (error === undefined ? undefined : statusCodeOf(error));
    let measured = this.#measured;
    if (error !== undefined) {
      const errorType = facts.errorType ?? errorTypeOf(error, statusCode);
      measured = { ...measured, [ATTR.errorType]: errorType };
      if (statusCode !== undefined) measured[ATTR.statusCode] = statusCode;
      if (span !== undefined) {
        span.setAttribute(ATTR.errorType, errorType);
        if (statusCode !== undefined) span.setAttribute(ATTR.statusCode, statusCode);
        if (error instanceof SluiceError) span.setAttribute(ATTR.errorCode, error.code);
        span.setStatus({ code: STATUS_ERROR });
      }
    }
    span?.end();
    this.#tracer.instruments.duration?.record(seconds, measured);
  }
}

/**
 * The tracer of one session: built from the host's telemetry and where the session goes, once
 * per session.
 *
 * @category Telemetry
 */
export class SessionTracer {
  readonly #telemetry: GateTelemetry;
  readonly #server: TracedServer;
  readonly #facts: SessionFacts;
  /** The instruments, shared by every tracer and gate of the same telemetry. */
  readonly instruments: TelemetryInstruments;
  /** The span and measurement attributes of a method at a version and session, built once. */
  readonly #attributes = new Map<string, MethodAttributes>();
  /** The attributes of a call span through this session, for the session id they name. */
  #call:
    | { readonly sessionId: string | undefined; readonly attributes: TelemetryAttributes }
    | undefined;
  /** Requests the SDK sent itself, by JSON-RPC id, until their answer. */
  readonly #wire = new Map<string | number, RequestTrace>();
  /** When the session's handshake started, while it is open. */
  #sessionStart: number | undefined;

  /**
   * A tracer for one session.
   *
   * @param telemetry the host's tracer, meter and propagator
   * @param server where the session goes
   * @param facts what the session knows now (version, session id)
   */
  constructor(telemetry: GateTelemetry, server: TracedServer, facts: SessionFacts) {
    this.#telemetry = telemetry;
    this.#server = server;
    this.#facts = facts;
    this.instruments = instrumentsOf(telemetry);
  }

  /** The conventions' session-wide attributes now: version, server, network, session id. */
  #base(method: string): MethodAttributes {
    const version = this.#facts.protocolVersion();
    const sessionId = this.#facts.sessionId();
    const key = `${method}\u0000${version ?? ""}\u0000${sessionId ?? ""}`;
    const cached = this.#attributes.get(key);
    if (cached !== undefined) return cached;
    const server = this.#server;
    const built: TelemetryAttributes = { [ATTR.methodName]: method };
    if (version !== undefined) built[ATTR.protocolVersion] = version;
    if (server.address !== undefined) {
      built[ATTR.serverAddress] = server.address;
      if (server.port !== undefined) built[ATTR.serverPort] = server.port;
    }
    built[ATTR.networkTransport] = server.transport ?? "tcp";
    if ((server.transport ?? "tcp") === "tcp") built[ATTR.networkProtocolName] = "http";
    if (server.serverId !== undefined) built[ATTR.serverId] = server.serverId;
    // The measurement's: a session id would make every session a series of its own.
    const measured = Object.freeze({ ...built });
    if (sessionId !== undefined) built[ATTR.sessionId] = sessionId;
    const attributes = { span: Object.freeze(built), measured };
    this.#attributes.set(key, attributes);
    return attributes;
  }

  /**
   * The attributes this session adds to the span of a `tools/call` through it (the gate's
   * span): network transport and protocol, the session id. Frozen, and the same object while
   * the session id stays, so the call span is started with them at once.
   */
  callAttributes(): Readonly<TelemetryAttributes> {
    const sessionId = this.#facts.sessionId();
    const cached = this.#call;
    if (cached !== undefined && cached.sessionId === sessionId) return cached.attributes;
    const transport = this.#server.transport ?? "tcp";
    const attributes: TelemetryAttributes = { [ATTR.networkTransport]: transport };
    if (transport === "tcp") attributes[ATTR.networkProtocolName] = "http";
    if (sessionId !== undefined) attributes[ATTR.sessionId] = sessionId;
    this.#call = { sessionId, attributes: Object.freeze(attributes) };
    return this.#call.attributes;
  }

  /**
   * Starts the trace of one request sluice sends: a CLIENT span named `{method}` (the method's
   * target is the gate's business: `tools/call` never comes here).
   *
   * @param method the JSON-RPC method
   * @param requestId its id, when known now
   */
  start(method: string, requestId?: string): RequestTrace {
    const { span: attributes, measured } = this.#base(method);
    const tracer = this.#telemetry.tracer;
    let span: TelemetrySpan | undefined;
    if (tracer !== undefined) {
      span = tracer.startSpan(method, {
        kind: SPAN_KIND_CLIENT,
        attributes: requestId === undefined
          ? attributes
          : { ...attributes, [ATTR.requestId]: requestId },
      });
    }
    return new RequestTrace(this, span, measured);
  }

  /** Whether the host passed a propagator (`telemetry.inject`). */
  get propagates(): boolean {
    return this.#telemetry.inject !== undefined;
  }

  /**
   * `params` with the trace context of `span` (or the active context) in `_meta`, unprefixed,
   * when the host passed a propagator; `params` itself otherwise.
   *
   * @param params the request's params
   * @param span the request's span
   */
  propagate(params: JsonObject, span: TelemetrySpan | undefined): JsonObject {
    const inject = this.#telemetry.inject;
    if (inject === undefined) return params;
    const carrier: Record<string, string> = {};
    inject(carrier, span);
    if (Object.keys(carrier).length === 0) return params;
    const meta = isRecord(params._meta) ? params._meta : {};
    return { ...params, _meta: { ...meta, ...carrier } };
  }

  /**
   * An outbound message the SDK sends by itself (the handshake's requests, the change stream's
   * `subscriptions/listen`): traced and given the trace context. Returns the message to send.
   *
   * @param message the JSON-RPC message
   */
  sending(message: unknown): unknown {
    if (!isRecord(message) || typeof message.method !== "string") return message;
    if (message.method === "notifications/cancelled") {
      const cancelled = isRecord(message.params) ? message.params.requestId : undefined;
      this.#endWire(cancelled, new SluiceError("mcp_aborted", "cancelled"));
      return message;
    }
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") return message;
    const method = message.method;
    // Requests sluice sends through the session are traced there (tools/*).
    if (method === TOOLS_CALL || method === "tools/list") return message;
    if (SESSION_STARTS.has(method)) this.#startSession();
    const trace = this.start(method, String(id));
    this.#wire.get(id)?.end(new SluiceError("mcp_connection_closed", "replaced"));
    this.#wire.set(id, trace);
    const params = isRecord(message.params) ? message.params as JsonObject : {};
    const propagated = this.propagate(params, trace.span);
    return propagated === params ? message : { ...message, params: propagated };
  }

  /**
   * A send the SDK started settled. A failure ends the request's span with it. A success means
   * the reply was read (a JSON body, or the whole reply stream): a request still open then was
   * answered where the session could not hear it (the SDK's `server/discover` probe reads its
   * own answer), so it ends; `subscriptions/listen` ends at its acknowledgement instead.
   *
   * @param message the message
   * @param error why it failed, if it did
   */
  sendSettled(message: unknown, error?: unknown): void {
    if (!isRecord(message)) return;
    if (error !== undefined) {
      const failed = error instanceof SluiceError
        ? error
        : new SluiceError("mcp_transport_error", "sent", { cause: error });
      const status = (error as { status?: unknown } | null)?.status;
      this.#endWire(message.id, failed, typeof status === "number" ? String(status) : undefined);
      return;
    }
    if (message.method === "subscriptions/listen") return;
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const trace = this.#wire.get(id);
    this.#wire.delete(id);
    trace?.end();
  }

  /**
   * Whether the send of `message` is one this tracer waits to settle: a request the SDK sent by
   * itself that it traces (the calls and lists sluice sends are traced where they are sent).
   *
   * @param message the message `sending` returned
   */
  settles(message: unknown): boolean {
    if (this.#wire.size === 0 || !isRecord(message)) return false;
    const id = message.id;
    return (typeof id === "string" || typeof id === "number") && this.#wire.has(id);
  }

  /** Ends the wire request `id` with `error`, if it is in flight. */
  #endWire(id: unknown, error: SluiceError, errorType?: string): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    const trace = this.#wire.get(id);
    if (trace === undefined) return;
    this.#wire.delete(id);
    trace.end(error, errorType === undefined ? {} : { errorType });
  }

  /**
   * An inbound message: the answer to a request the SDK sent ends its span (an error answer with
   * its JSON-RPC code); an acknowledgement of `subscriptions/listen` ends the listen's.
   *
   * @param message the JSON-RPC message
   */
  received(message: unknown): void {
    if (this.#wire.size === 0 || !isRecord(message)) return;
    let id = message.id;
    if (message.method === "notifications/subscriptions/acknowledged") {
      const meta = isRecord(message.params) ? message.params._meta : undefined;
      id = isRecord(meta) ? meta[SUBSCRIPTION_ID] : undefined;
    } else if (!("result" in message) && !("error" in message)) return;
    if (typeof id !== "string" && typeof id !== "number") return;
    const trace = this.#wire.get(id);
    if (trace === undefined) return;
    this.#wire.delete(id);
    if (isRecord(message.result) && typeof message.result.protocolVersion === "string") {
      trace.span?.setAttribute(ATTR.protocolVersion, message.result.protocolVersion);
    }
    if (isRecord(message.error)) {
      const code = message.error.code;
      const statusCode = typeof code === "number" ? String(code) : undefined;
      trace.end(new SluiceError("mcp_protocol_error", "answered"), {
        ...(statusCode !== undefined ? { statusCode } : {}),
      });
      return;
    }
    trace.end();
  }

  #startSession(): void {
    if (this.#sessionStart !== undefined) this.#endSession();
    this.#sessionStart = performance.now();
  }

  #endSession(): void {
    const start = this.#sessionStart;
    if (start === undefined) return;
    this.#sessionStart = undefined;
    const attributes: TelemetryAttributes = {};
    for (const [key, value] of Object.entries(this.#base("").measured)) {
      if (key !== ATTR.methodName && key !== ATTR.serverId) attributes[key] = value;
    }
    this.instruments.sessionDuration?.record((performance.now() - start) / 1000, attributes);
  }

  /** The session closed for good: requests still unanswered end, the session's duration. */
  close(): void {
    const closed = new SluiceError("mcp_connection_closed", "closed");
    for (const trace of this.#wire.values()) trace.end(closed);
    this.#wire.clear();
    this.#endSession();
  }
}
