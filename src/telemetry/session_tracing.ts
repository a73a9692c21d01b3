/**
 * Tracing of a session connect() builds: the observer that hears what the SDK client sends by
 * itself (the handshake, `subscriptions/listen`) and receives, and the wrap of each client's
 * session that traces what sluice sends through it.
 *
 * @module
 */
import type { SdkClientLike } from "../session/from_client.ts";
import type { SessionObserver } from "../session/observer.ts";
import type { McpSession } from "../session/session.ts";
import { SessionTracer, type TracedServer } from "./session_trace.ts";
import { clientFacts, traceRequests } from "./traced_session.ts";
import type { GateTelemetry } from "./types.ts";

/** The two hooks of a traced server session. */
export interface SessionTracing {
  /** The session's observer, decorated. */
  readonly observer: SessionObserver;
  /** Wraps the session of each client the server session connects. */
  readonly wrapSession: (session: McpSession, client: SdkClientLike) => McpSession;
}

/**
 * The tracing hooks of one server session.
 *
 * @param telemetry the host's tracer, meter and propagator
 * @param server where the session goes
 * @param inner the observer the session had (the catalog's monitor)
 */
export function sessionTracing(
  telemetry: GateTelemetry,
  server: TracedServer,
  inner: SessionObserver,
): SessionTracing {
  let facts = clientFacts(undefined);
  const tracer = new SessionTracer(telemetry, server, {
    protocolVersion: () => facts.protocolVersion(),
    sessionId: () => facts.sessionId(),
  });
  const observer: SessionObserver = {
    onMessage: (message) => {
      tracer.received(message);
      inner.onMessage(message);
    },
    acceptProtocolVersion: (version) => inner.acceptProtocolVersion(version),
    watchSubscription: (stream) => inner.watchSubscription(stream),
    close: () => {
      tracer.close();
      inner.close();
    },
    onSend: (message) => tracer.sending(inner.onSend ? inner.onSend(message) : message),
    onSendSettled: (message, error) => {
      tracer.sendSettled(message, error);
      inner.onSendSettled?.(message, error);
    },
    // The calls and lists sluice sends are traced by the session wrapper, not here.
    settles: (message) =>
      tracer.settles(message) || (inner.onSendSettled !== undefined &&
        inner.settles?.(message) !== false),
  };
  return {
    observer,
    wrapSession: (session, client) => {
      facts = clientFacts(client);
      return traceRequests(session, client, tracer);
    },
  };
}
