/**
 * What a connect()-built session offers the server beyond tools: the client capabilities it
 * declares (elicitation only when the host answers it) and the server messages it passes to
 * the host (elicitation requests, tied to their call; log messages).
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/client";
import { isRecord } from "../identity/mod.ts";
import { type RemoteText, remoteText } from "./remote_text.ts";
import type { ReplyStreams } from "./stream_failure.ts";

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

const LOG_LEVELS: ReadonlySet<string> = new Set<LogLevel>([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

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
 * cannot name). And `notifications/message` passed to the host.
 *
 * @param client the new client, before it connects
 * @param replies the transport's reply streams, which know which call a request came with
 * @param offer what the session offers
 */
export function registerOffer(
  client: Client,
  replies: ReplyStreams,
  offer: ClientOffer | undefined,
): void {
  if (offer?.elicitation !== undefined && (offer.elicitation.form || offer.elicitation.url)) {
    client.setRequestHandler("elicitation/create", async (request, ctx) => {
      const own = replies.handlerFor(ctx.mcpReq.id);
      const handler = own ?? replies.soleHandler();
      if (handler === undefined) return { action: "decline" };
      const delivery = own !== undefined ? "reply_stream" : "session_stream";
      return await handler(
        "elicitation/create",
        request.params,
        ctx.mcpReq.signal,
        delivery,
      ) as never;
    });
  }
  const onLog = offer?.onLog;
  if (onLog !== undefined) {
    client.setNotificationHandler("notifications/message", (notification) => {
      const params: unknown = notification.params;
      if (!isRecord(params) || typeof params.level !== "string" || !LOG_LEVELS.has(params.level)) {
        return;
      }
      const logger = typeof params.logger === "string" ? remoteText(params.logger, 200) : undefined;
      try {
        onLog(params.level as LogLevel, remoteText(params.data), logger);
      } catch {
        // The host's listener never affects the session.
      }
    });
  }
}
