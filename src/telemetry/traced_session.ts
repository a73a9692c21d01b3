/**
 * The traced session: one decorator over the session contract that every request sluice sends
 * through a session passes (connect()'s sessions and host-owned ones alike): a span per request
 * (the gate's own for `tools/call`), the request's JSON-RPC facts, trace context in `_meta`.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import { asSession, type SdkClientLike } from "../session/from_client.ts";
import { isMcpSession, type McpSession, type SessionRequestOptions } from "../session/session.ts";
import { CallTrace } from "./call_trace.ts";
import { ATTR } from "./conventions.ts";
import { type SessionFacts, SessionTracer, type TracedServer } from "./session_trace.ts";
import type { GateTelemetry } from "./types.ts";

/** The parts of an SDK client (v1 or v2) a trace reads; all optional, read structurally. */
interface ClientFacts {
  readonly _requestMessageId?: unknown;
  readonly transport?: { readonly sessionId?: unknown; readonly protocolVersion?: unknown };
  getNegotiatedProtocolVersion?(): unknown;
}

/** The facts of an SDK client: its negotiated version and its transport's session id. */
export function clientFacts(client: SdkClientLike | undefined): SessionFacts {
  const facts = client as ClientFacts | undefined;
  return {
    protocolVersion() {
      const version = facts?.getNegotiatedProtocolVersion?.() ?? facts?.transport?.protocolVersion;
      return typeof version === "string" ? version : undefined;
    },
    sessionId() {
      const id = facts?.transport?.sessionId;
      return typeof id === "string" ? id : undefined;
    },
  };
}

/** The SDK's next request id (both SDK lines count from 0 in `_requestMessageId`). */
function nextRequestId(client: SdkClientLike | undefined): number | undefined {
  const next = (client as ClientFacts | undefined)?._requestMessageId;
  return typeof next === "number" ? next : undefined;
}

/**
 * `session` with every request traced by `tracer`. `client` is the SDK client under it, when
 * there is one: the request id is the one the SDK took while sending (it numbers requests in
 * order, synchronously).
 *
 * @param session the session sluice sends through
 * @param client the SDK client under it, if any
 * @param tracer the session's tracer
 */
export function traceRequests(
  session: McpSession,
  client: SdkClientLike | undefined,
  tracer: SessionTracer,
): McpSession {
  return {
    kind: "mcp_session",
    get closed() {
      return session.closed;
    },
    request(method: string, params: JsonObject, options: SessionRequestOptions) {
      const call = options.trace instanceof CallTrace ? options.trace : undefined;
      if (call !== undefined) {
        return callRequest(session, client, tracer, call, method, params, options);
      }
      const own = tracer.start(method);
      const sent = tracer.propagate(params, own.span);
      const before = nextRequestId(client);
      let pending: Promise<unknown>;
      try {
        pending = session.request(method, sent, options);
      } catch (error) {
        own.end(error);
        throw error;
      }
      const requestId = requestIdOf(client, before);
      if (requestId !== undefined) own.span?.setAttribute(ATTR.requestId, requestId);
      return pending.then((result) => {
        own.end();
        return result;
      }, (error: unknown) => {
        own.end(error);
        throw error;
      });
    },
  };
}

/** The id the SDK took for the request just sent, when it took exactly one from `before`. */
function requestIdOf(client: SdkClientLike | undefined, before: number | undefined) {
  const after = nextRequestId(client);
  return before !== undefined && after === before + 1 ? String(before) : undefined;
}

/**
 * A `tools/call` of the gate's `call`: its span starts here with the session's attributes, all
 * in one `startSpan`, and the request's promise goes back as it is (the dispatch reports a
 * failure to the trace: nothing is wrapped per call). Without a propagator the request is sent
 * first, so its id (the SDK numbers requests as it sends them) is in the start too; with one, the
 * span starts first (the trace context names it) and the id is the one attribute set after.
 */
function callRequest(
  session: McpSession,
  client: SdkClientLike | undefined,
  tracer: SessionTracer,
  call: CallTrace,
  method: string,
  params: JsonObject,
  options: SessionRequestOptions,
): Promise<unknown> {
  const attributes = tracer.callAttributes();
  if (!tracer.propagates) {
    const before = nextRequestId(client);
    const pending = session.request(method, params, options);
    call.open(attributes, requestIdOf(client, before));
    return pending;
  }
  const span = call.open(attributes);
  const sent = tracer.propagate(params, span);
  const before = nextRequestId(client);
  const pending = session.request(method, sent, options);
  const requestId = requestIdOf(client, before);
  if (requestId !== undefined) span?.setAttribute(ATTR.requestId, requestId);
  return pending;
}

/**
 * A host-owned session, traced: every request sluice sends through it (`tools/list` in
 * discovery, `tools/call` from the gate) gets a CLIENT span in the MCP semantic conventions
 * (the gate's own span for `tools/call`), `mcp.client.operation.duration`, and, with
 * `telemetry.inject`, the trace context in `params._meta`. Pass the result to `discoverTools` /
 * `discoverWriteTools` in place of the client, and give the gate the same `telemetry`.
 *
 * @example
 * ```ts
 * import { context, metrics, propagation, type Span, trace } from "@opentelemetry/api";
 * import {
 *   CatalogMonitor,
 *   discoverTools,
 *   Gate,
 *   type GateTelemetry,
 *   type ReadToolBindings,
 *   tracedSession,
 * } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * declare const client: Client; // connected, its transport feeding `monitor`
 * declare const monitor: CatalogMonitor;
 * declare const bindings: ReadToolBindings;
 *
 * const telemetry: GateTelemetry = {
 *   tracer: trace.getTracer("@sluice/mcp"),
 *   meter: metrics.getMeter("@sluice/mcp"),
 *   inject: (carrier, span) =>
 *     propagation.inject(
 *       span ? trace.setSpan(context.active(), span as Span) : context.active(),
 *       carrier,
 *     ),
 * };
 * const session = tracedSession(client, telemetry, {
 *   serverId: "docs",
 *   address: "mcp.example.com",
 *   port: 443,
 * });
 * const catalog = await discoverTools(session, "docs", bindings, { monitor });
 * const gate = new Gate({ catalogs: [catalog], telemetry });
 * ```
 *
 * @param source a connected SDK client (v1 or v2) or a session
 * @param telemetry the host's tracer, meter and propagator
 * @param server where the session goes (server id, address, port, `tcp` or `pipe`)
 *
 * @category Telemetry
 */
export function tracedSession(
  source: SdkClientLike | McpSession,
  telemetry: GateTelemetry,
  server: TracedServer = {},
): McpSession {
  const client = isMcpSession(source) ? undefined : source;
  const facts = clientFacts(client);
  return traceRequests(
    asSession(source),
    client,
    new SessionTracer(telemetry, server, {
      protocolVersion: () => facts.protocolVersion() ?? server.protocolVersion,
      sessionId: () => facts.sessionId(),
    }),
  );
}
