/**
 * The relay of upstream requests for client input: while a served call runs, an upstream that
 * asks for input (2025 `elicitation/create` on the call's stream, or a 2026-07-28
 * `input_required` round) reaches the toolkit's `elicit` handler, which sluice's own checks
 * have already passed (the form against the schema profile and the elicitation rules, a URL
 * against the outbound URL rules). The relay hands each request to the downstream client that
 * made the call, only when that client declared the matching elicitation mode; any other
 * request is declined, so the upstream never waits on a client that cannot answer. The client's
 * answer goes back through the same handler, whose checks (the requested schema, only the
 * properties it names) run before anything reaches the upstream.
 *
 * The request's text (its message, the form's titles and descriptions, a URL) is the
 * upstream's, untrusted: it reaches the downstream client as the upstream wrote it only because
 * a client's elicitation UI shows it to a person, never to a model.
 *
 * @module
 */
import type {
  ElicitationAnswer,
  ElicitationRequest,
  ElicitHandler,
  ProgressHandler,
} from "../calls/host_handlers.ts";
import type { SessionProgress } from "../session/session.ts";
import { isRecord, type JsonObject } from "../identity/mod.ts";
import { connectAll, type ConnectAllConfig, type Connection } from "../connect/mod.ts";
import type { ServedCallIds } from "./call_ids.ts";

/** The elicitation modes a downstream client declared. */
export interface DownstreamModes {
  readonly form: boolean;
  readonly url: boolean;
}

/** No elicitation declared. */
export const NO_MODES: DownstreamModes = Object.freeze({ form: false, url: false });

/**
 * The modes a client's `elicitation` capability declares: `{}` (or `form`) is form mode, `url`
 * is URL mode, as the 2025-11-25 and 2026-07-28 capabilities say.
 *
 * @param capabilities the client's capabilities (2025: from `initialize`; 2026-07-28: the
 *   request's envelope)
 */
export function downstreamModes(capabilities: unknown): DownstreamModes {
  const elicitation = isRecord(capabilities) ? capabilities.elicitation : undefined;
  if (!isRecord(elicitation)) return NO_MODES;
  const url = elicitation.url !== undefined;
  const form = elicitation.form !== undefined || !url;
  return { form, url };
}

/**
 * Asks the downstream client of one call; resolves with its answer, never rejects.
 *
 * @category sluice serve
 */
export type DownstreamAsk = (
  request: ElicitationRequest,
  signal: AbortSignal,
) => Promise<ElicitationAnswer>;

/**
 * The `elicitation/create` params of a checked request, as the downstream client gets them: the
 * upstream's message, schema or URL as it wrote them (remote text, for a person's eyes).
 *
 * @param request the request the toolkit's handler was given
 */
export function wireParams(request: ElicitationRequest): JsonObject {
  if (request.kind === "url") {
    return {
      mode: "url",
      message: request.message.text,
      url: request.url.href,
      elicitationId: request.elicitationId,
    };
  }
  return {
    mode: "form",
    message: request.message.text,
    requestedSchema: structuredClone(request.requestedSchema) as JsonObject,
  };
}

/**
 * Tells the downstream client of one call about the upstream's progress (already checked,
 * its message bounded and escaped as remote text). Never throws.
 *
 * @category sluice serve
 */
export type DownstreamProgress = (progress: SessionProgress) => void;

/** Where one served call's upstream requests and progress go. */
interface Route {
  readonly ask: DownstreamAsk;
  readonly progress: DownstreamProgress | undefined;
}

/**
 * Routes the toolkit's elicitation requests and progress notifications to the downstream call
 * they belong to, by the call's run and call ids (the gate tells the handlers which call each
 * is for).
 *
 * @category sluice serve
 */
export class InputRelay {
  readonly #routes = new Map<string, Route>();
  readonly #fallback: ElicitHandler | undefined;
  readonly #progressFallback: ProgressHandler | undefined;

  /**
   * A relay with no calls routed yet.
   *
   * @param fallback the operator's own handler, for calls no downstream client made
   * @param progressFallback the operator's own progress listener, for calls no downstream
   *   client made (or whose client sent no progress token)
   */
  constructor(fallback?: ElicitHandler, progressFallback?: ProgressHandler) {
    this.#fallback = fallback;
    this.#progressFallback = progressFallback;
  }

  /** The handler the toolkit is connected with. */
  readonly elicit: ElicitHandler = (request, call, signal) => {
    const route = this.#routes.get(routeKey(call.runId ?? "", call.callId ?? ""));
    if (route !== undefined) return route.ask(request, signal);
    if (this.#fallback !== undefined) return this.#fallback(request, call, signal);
    return { action: "decline" };
  };

  /** The progress listener the toolkit is connected with. */
  readonly onProgress: ProgressHandler = (call, progress) => {
    const route = this.#routes.get(routeKey(call.runId ?? "", call.callId ?? ""));
    const relay = route?.progress;
    if (relay !== undefined) relay(progress);
    else this.#progressFallback?.(call, progress);
  };

  /**
   * Routes the requests of call `ids` to `ask`, and its progress to `progress`, until the
   * returned function is called.
   *
   * @param ids the served call's run and call ids
   * @param ask asks its downstream client
   * @param progress tells its downstream client (only when it sent a progress token)
   */
  route(ids: ServedCallIds, ask: DownstreamAsk, progress?: DownstreamProgress): () => void {
    const key = routeKey(ids.runId, ids.callId);
    const route: Route = { ask, progress };
    this.#routes.set(key, route);
    return () => {
      if (this.#routes.get(key) === route) this.#routes.delete(key);
    };
  }
}

function routeKey(runId: string, callId: string): string {
  return `${runId}\u0000${callId}`;
}

/** One request waiting for the downstream client's answer. */
interface Waiting {
  readonly request: JsonObject;
  readonly resolve: (answer: ElicitationAnswer) => void;
}

/**
 * The input requests of one served call that wait for its 2026-07-28 client: shown as an
 * `input_required` result's or a task's `inputRequests`, answered by `inputResponses` (a retried
 * `tools/call`, or `tasks/update`), each key its own, so a client may answer some now and the
 * rest later.
 *
 * @category sluice serve
 */
export class PendingInputs {
  readonly #modes: DownstreamModes;
  readonly #waiting = new Map<string, Waiting>();
  #listeners: (() => void)[] = [];
  #count = 0;

  /** @param modes the modes the client declared: any other request is declined */
  constructor(modes: DownstreamModes) {
    this.#modes = modes;
  }

  /** Whether the client declared any elicitation mode. */
  get answers(): boolean {
    return this.#modes.form || this.#modes.url;
  }

  /** Adds one request; resolves with the client's answer, or `cancel` when the call ends. */
  readonly ask: DownstreamAsk = (request, signal) => {
    if (!this.#modes[request.kind] || signal.aborted) {
      return Promise.resolve({ action: "decline" });
    }
    const key = `input-${++this.#count}-${crypto.randomUUID().slice(0, 8)}`;
    return new Promise((resolve) => {
      const done = (answer: ElicitationAnswer) => {
        signal.removeEventListener("abort", onAbort);
        this.#waiting.delete(key);
        resolve(answer);
      };
      const onAbort = () => done({ action: "cancel" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(key, {
        request: { method: "elicitation/create", params: wireParams(request) },
        resolve: done,
      });
      this.#tell();
    });
  };

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#waiting.size;
  }

  /** The waiting requests by key, as `inputRequests` shows them. */
  requests(): Record<string, JsonObject> {
    const requests: Record<string, JsonObject> = {};
    for (const [key, waiting] of this.#waiting) requests[key] = waiting.request;
    return requests;
  }

  /**
   * Hands the client's answers to the requests they name (keys it does not hold are ignored).
   * Each answer goes to the toolkit's handler as sent; its checks decide what reaches the
   * upstream (an answer outside the requested schema is refused there and cancelled).
   *
   * @param responses the client's `inputResponses`
   */
  answer(responses: unknown): number {
    if (!isRecord(responses)) return 0;
    let answered = 0;
    for (const [key, response] of Object.entries(responses)) {
      const waiting = this.#waiting.get(key);
      if (waiting === undefined) continue;
      answered++;
      waiting.resolve(structuredClone(response) as ElicitationAnswer);
    }
    return answered;
  }

  /** Resolves once at least one request waits (at once when one does). */
  next(): Promise<void> {
    if (this.#waiting.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#listeners.push(resolve));
  }

  #tell(): void {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/**
 * `connectAll` for a gateway: the upstreams' requests for input during a served call go to the
 * relay (form and URL modes declared upstream), which hands them to that call's client; a
 * request of no served call goes to `config.elicit`, else is declined. The upstreams' progress
 * goes to the relay too (so a progress token is sent upstream on every call), which tells the
 * call's client when it asked for progress, else `config.onProgress`. Progress never extends a
 * deadline (an idle deadline, `config.progressIdleTimeoutMs`, restarts as before).
 *
 * @param config the upstream configuration
 * @returns the connection and the relay its served calls route through
 *
 * @category sluice serve
 */
export async function connectRelayed(
  config: ConnectAllConfig,
): Promise<{ readonly connection: Connection; readonly relay: InputRelay }> {
  const relay = new InputRelay(config.elicit, config.onProgress);
  const connection = await connectAll({
    ...config,
    elicit: relay.elicit,
    onProgress: relay.onProgress,
    elicitationModes: ["form", "url"],
  });
  return { connection, relay };
}
