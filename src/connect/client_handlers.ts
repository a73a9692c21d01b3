/**
 * What servers ask of a connect() host, as connection options: elicitation (declared only when
 * the host answers it), progress and log messages; and how they reach each server's session
 * and the gate.
 *
 * @module
 */
import type {
  CallHandlers,
  ElicitationOutcome,
  ElicitHandler,
  ProgressHandler,
} from "../calls/host_handlers.ts";
import { type ClientOffer, LOG_LEVELS, type LogLevel } from "../session/client_capabilities.ts";
import type { RemoteText } from "../session/remote_text.ts";
import { invalid } from "./config_entries.ts";
import type { ConnectEvent } from "./events.ts";
import { emitEvent } from "./events.ts";

/**
 * Hears one log message of a server (`notifications/message`): the server's id, its level,
 * and its data as bounded, escaped remote text. Never shown to the model by sluice; exceptions
 * are swallowed.
 *
 * @category Agent developers: connect()
 */
export type LogHandler = (server: string, level: LogLevel, message: RemoteText) => void;

/**
 * The elicitation modes a host answers.
 *
 * @category Agent developers: connect()
 */
export type ElicitationMode = "form" | "url";

/**
 * Handlers for what servers ask of the client while calls run. Without `elicit`, no
 * `elicitation` capability is declared and an `input_required` call ends
 * `mcp_input_required_unsupported`, as before.
 *
 * @category Agent developers: connect()
 */
export interface ConnectClientHandlers {
  /**
   * Answers the servers' elicitation requests: 2025 `elicitation/create` sent during a call,
   * and the elicitations of 2026-07-28 `input_required` rounds. Told which call each is for.
   */
  readonly elicit?: ElicitHandler;
  /** The modes `elicit` answers (default `["form"]`); URL mode must be listed to be declared. */
  readonly elicitationModes?: readonly ElicitationMode[];
  /** Hears each call's progress; a progress token is sent only when it is given. */
  readonly onProgress?: ProgressHandler;
  /**
   * With `onProgress`: an idle deadline in ms that each progress notification restarts (a
   * call that reports progress may then run up to the tool's timeout, never longer).
   */
  readonly progressIdleTimeoutMs?: number;
  /** Hears the servers' log messages. */
  readonly onLog?: LogHandler;
  /**
   * With `onLog`: the least severe level passed on (default `"info"`). On 2026-07-28 it is also
   * sent with each request, as that revision asks for log messages; a 2025 server sends at its
   * own level, and what is below this one is dropped here.
   */
  readonly logLevel?: LogLevel;
}

/**
 * Checks the handler options; throws `connect_config_invalid`.
 *
 * @param config the connection's options
 */
export function checkClientHandlers(config: ConnectClientHandlers): void {
  for (const name of ["elicit", "onProgress", "onLog"] as const) {
    if (config[name] !== undefined && typeof config[name] !== "function") {
      throw invalid(`${name} must be a function`);
    }
  }
  const modes = config.elicitationModes;
  if (
    modes !== undefined &&
    (!Array.isArray(modes) || modes.length === 0 ||
      modes.some((mode) => mode !== "form" && mode !== "url"))
  ) {
    throw invalid('elicitationModes may list only "form" and "url"');
  }
  if (config.logLevel !== undefined && !LOG_LEVELS.includes(config.logLevel)) {
    throw invalid(`logLevel must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const idle = config.progressIdleTimeoutMs;
  if (idle !== undefined && (!Number.isSafeInteger(idle) || idle < 1)) {
    throw invalid("progressIdleTimeoutMs must be a positive integer");
  }
  if (idle !== undefined && config.onProgress === undefined) {
    throw invalid("progressIdleTimeoutMs needs onProgress");
  }
}

function modesOf(config: ConnectClientHandlers): { form: boolean; url: boolean } {
  const modes = config.elicitationModes ?? ["form"];
  return { form: modes.includes("form"), url: modes.includes("url") };
}

/**
 * What the session of server `server` declares and passes on.
 *
 * @param config the connection's options
 * @param server the server's id
 */
export function offerOf(config: ConnectClientHandlers, server: string): ClientOffer | undefined {
  const onLog = config.onLog;
  if (config.elicit === undefined && onLog === undefined) return undefined;
  return {
    ...(config.elicit !== undefined ? { elicitation: modesOf(config) } : {}),
    ...(onLog !== undefined
      ? { onLog: (level: LogLevel, message: RemoteText) => onLog(server, level, message) }
      : {}),
    ...(config.logLevel !== undefined ? { logLevel: config.logLevel } : {}),
  };
}

/** The audit event of one elicitation: codes and names only. */
function elicitationEvent(outcome: ElicitationOutcome): ConnectEvent {
  return {
    kind: "elicitation",
    server: outcome.call.server,
    tool: outcome.call.remoteTool,
    ok: outcome.errorCode === undefined,
    ...(outcome.errorCode !== undefined ? { errorCode: outcome.errorCode } : {}),
    elicitation: { mode: outcome.mode, action: outcome.action },
    durationMs: 0,
    catalogDigest: null,
  };
}

/**
 * The gate's handlers under these options, or `undefined` when the host gave none.
 *
 * @param config the connection's options
 * @param allowLoopbackUrls the transport's loopback option (URL mode follows it)
 * @param onEvent the audit sink, told of each elicitation
 */
export function callHandlersOf(
  config: ConnectClientHandlers,
  allowLoopbackUrls: boolean,
  onEvent: ((event: ConnectEvent) => void) | undefined,
): CallHandlers | undefined {
  if (config.elicit === undefined && config.onProgress === undefined) return undefined;
  return {
    ...(config.elicit !== undefined
      ? { elicit: config.elicit, elicitationModes: modesOf(config), allowLoopbackUrls }
      : {}),
    ...(config.onProgress !== undefined ? { onProgress: config.onProgress } : {}),
    ...(config.progressIdleTimeoutMs !== undefined
      ? { progressIdleTimeoutMs: config.progressIdleTimeoutMs }
      : {}),
    ...(onEvent !== undefined
      ? { onElicitation: (outcome) => emitEvent(onEvent, elicitationEvent(outcome)) }
      : {}),
  };
}
