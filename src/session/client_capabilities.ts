/**
 * What a connect()-built session offers the server beyond tools: the client capabilities it
 * declares (elicitation only when the host answers it) and the server messages it passes to
 * the host (elicitation requests, tied to their call; log messages).
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/client";
import { isRecord, type JsonObject } from "../identity/mod.ts";
import type { Era } from "./era.ts";
import { MODERN_PROTOCOL_VERSION } from "./protocol.ts";
import { type RemoteText, remoteText } from "./remote_text.ts";
import type { ServerRequestHandler } from "./session.ts";

/**
 * The severity of a server's log message (RFC 5424 names, as MCP has them).
 *
 * @category Agent developers: connect()
 */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** The levels in order of severity. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** The `_meta` key of a 2026-07-28 request's log level (the server logs at or above it). */
export const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";

/**
 * Hears one `notifications/message` of a session: its level, its data as bounded, escaped
 * remote text, and the server's logger name when it gave one.
 *
 * @category Agent developers: connect()
 */
export type SessionLogListener = (
  level: LogLevel,
  message: RemoteText,
  logger?: RemoteText,
) => void;

/**
 * What a session declares and passes on.
 *
 * @category Agent developers: connect()
 */
export interface ClientOffer {
  /** Elicitation modes declared (only when the host supplies a handler); absent: none. */
  readonly elicitation?: { readonly form: boolean; readonly url: boolean };
  /** Hears the server's log messages. */
  readonly onLog?: SessionLogListener;
  /**
   * With `onLog`: the least severe level passed on (default `"info"`); on 2026-07-28 also sent
   * with every request, which is how that revision asks a server for its log messages.
   */
  readonly logLevel?: LogLevel;
}

/**
 * Which call a server request belongs to, as far as the session's transport can tell: over
 * Streamable HTTP the reply streams (`ReplyStreams`), over stdio only the calls in flight
 * (stdio carries no per-call stream, so a request is tied to the only call that answers one).
 */
export interface ServerRequestRoutes {
  /** The handler of the call whose own reply stream carried server request `id`, if any. */
  handlerFor(id: unknown): ServerRequestHandler | undefined;
  /** The handler of the one call in flight that has one; none when zero or several. */
  soleHandler(): ServerRequestHandler | undefined;
}

/**
 * `params` with the log level `offer` asks for on 2026-07-28 (that revision asks for log
 * messages per request, in `_meta`); as they are otherwise.
 *
 * @param params a request's params
 * @param offer what the session offers
 * @param era the session's era, once known
 */
export function withLogLevel(
  params: JsonObject,
  offer: ClientOffer | undefined,
  era: Era | undefined,
): JsonObject {
  if (offer?.onLog === undefined || era !== MODERN_PROTOCOL_VERSION) return params;
  const meta = isRecord(params._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, [LOG_LEVEL_META]: offer.logLevel ?? "info" } };
}

/** The `capabilities` client option for `offer`. */
export function declaredCapabilities(offer: ClientOffer | undefined): Record<string, unknown> {
  const elicitation = offer?.elicitation;
  if (elicitation === undefined || (!elicitation.form && !elicitation.url)) return {};
  return {
    elicitation: {
      ...(elicitation.form ? { form: {} } : {}),
      ...(elicitation.url ? { url: {} } : {}),
    },
  };
}

/**
 * Registers the handlers `offer` needs on a new client: `elicitation/create` answered by the
 * handler of the call whose reply stream carried it, or, for one on the session's standalone
 * stream (2025 servers that send it unrelated to the call), of the only call in flight that
 * answers elicitation; declined when no call can be named (sluice never answers for a call it
 * cannot name). And `notifications/message` passed to the host. Returns the observer the
 * transport's `onmessage` must call with every raw inbound message, when one is needed.
 *
 * @param client the new client, before it connects
 * @param replies which call a server request came with (the transport's reply streams)
 * @param offer what the session offers
 */
export function registerOffer(
  client: Client,
  replies: ServerRequestRoutes,
  offer: ClientOffer | undefined,
): ((message: unknown) => void) | undefined {
  let observe: ((message: unknown) => void) | undefined;
  if (offer?.elicitation !== undefined && (offer.elicitation.form || offer.elicitation.url)) {
    // The params as the server sent them: the SDK's own parse drops keywords it does not know,
    // and sluice judges what the server asked, not a cleaned copy.
    const sent = new Map<unknown, unknown>();
    observe = (message) => {
      if (!isRecord(message) || message.method !== "elicitation/create" || !("id" in message)) {
        return;
      }
      if (sent.size >= MAX_PENDING_REQUESTS) sent.delete(sent.keys().next().value);
      sent.set(message.id, message.params);
    };
    client.setRequestHandler("elicitation/create", async (request, ctx) => {
      const params = sent.has(ctx.mcpReq.id) ? sent.get(ctx.mcpReq.id) : request.params;
      sent.delete(ctx.mcpReq.id);
      const own = replies.handlerFor(ctx.mcpReq.id);
      const handler = own ?? replies.soleHandler();
      if (handler === undefined) return { action: "decline" };
      const delivery = own !== undefined ? "reply_stream" : "session_stream";
      return await handler("elicitation/create", params, ctx.mcpReq.signal, delivery) as never;
    });
  }
  const onLog = offer?.onLog;
  if (onLog !== undefined) {
    const least = LOG_LEVELS.indexOf(offer?.logLevel ?? "info");
    client.setNotificationHandler("notifications/message", (notification) => {
      const params: unknown = notification.params;
      if (!isRecord(params)) return;
      const rank = LOG_LEVELS.indexOf(params.level as LogLevel);
      if (rank < least) return; // unknown (-1) or below the host's level
      const logger = typeof params.logger === "string" ? remoteText(params.logger, 200) : undefined;
      try {
        onLog(params.level as LogLevel, remoteText(params.data), logger);
      } catch {
        // The host's listener never affects the session.
      }
    });
  }
  return observe;
}

/** Most server requests whose raw params are kept until their handler runs. */
const MAX_PENDING_REQUESTS = 32;
