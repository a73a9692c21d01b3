/**
 * How one served `tools/call` may ask its client for input, by the client's era: a 2026-07-28
 * request that declares elicitation gets its requests as `input_required` rounds (or on its
 * task); a 2025 client on a carrier that keeps its connection (stdio) gets `elicitation/create`
 * on the call's own stream, when it declared elicitation at `initialize`. Any other client's
 * upstream requests are declined at once.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/server";
import type { ElicitationAnswer } from "../calls/host_handlers.ts";
import { isRecord } from "../identity/mod.ts";
import {
  type DownstreamAsk,
  type DownstreamModes,
  downstreamModes,
  type DownstreamProgress,
  PendingInputs,
  wireParams,
} from "./relay.ts";

const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";

/** What one call may ask its client, and what a retried round carries. */
export interface CallInput {
  /** Asks the client (declines when it cannot answer). */
  readonly ask: DownstreamAsk;
  /** Tells the client the upstream's progress: only when its request carried a progress token. */
  readonly progress?: DownstreamProgress;
  /** A 2026-07-28 client that declared elicitation: the requests that wait for it. */
  readonly inputs?: PendingInputs;
  /** A retried round's `requestState`, as sent. */
  readonly state?: unknown;
  /** A retried round's `inputResponses`, as sent. */
  readonly responses?: unknown;
}

/** Declines every request: the upstream sees `decline`, never a wait. */
export const declineAll: DownstreamAsk = () => Promise.resolve({ action: "decline" });

interface HandlerContext {
  readonly mcpReq?: {
    readonly envelope?: Record<string, unknown>;
    readonly _meta?: Record<string, unknown>;
    readonly inputResponses?: unknown;
    readonly requestState?: () => unknown;
    readonly send?: (request: unknown, options?: unknown) => Promise<unknown>;
    readonly notify?: (notification: unknown) => Promise<void>;
  };
}

/**
 * The input side of one `tools/call`.
 *
 * @param params the request's params
 * @param ctx the server SDK's handler context
 * @param modern whether the request is 2026-07-28
 * @param server the client's MCP server (its `initialize` capabilities, 2025)
 * @param stateful whether the carrier keeps the client's connection (stdio)
 */
export function callInput(
  params: Record<string, unknown>,
  ctx: unknown,
  modern: boolean,
  server: Server,
  stateful: boolean,
): CallInput {
  const req = (ctx as HandlerContext | undefined)?.mcpReq;
  const progress = progressOf(params, req);
  const input = inputOf(params, req, modern, server, stateful);
  return progress === undefined ? input : { ...input, progress };
}

function inputOf(
  params: Record<string, unknown>,
  req: HandlerContext["mcpReq"],
  modern: boolean,
  server: Server,
  stateful: boolean,
): CallInput {
  if (modern) {
    const modes = merged(
      downstreamModes(req?.envelope?.[CLIENT_CAPABILITIES_META_KEY]),
      downstreamModes(
        (params._meta as Record<string, unknown> | undefined)?.[
          CLIENT_CAPABILITIES_META_KEY
        ],
      ),
    );
    const state = req?.requestState?.() ?? params.requestState;
    const responses = req?.inputResponses ?? params.inputResponses;
    const retried = {
      ...(state !== undefined ? { state } : {}),
      ...(responses !== undefined ? { responses } : {}),
    };
    if (!modes.form && !modes.url) return { ask: declineAll, ...retried };
    const inputs = new PendingInputs(modes);
    return { ask: inputs.ask, inputs, ...retried };
  }
  const send = req?.send;
  const modes = downstreamModes(server.getClientCapabilities());
  if (!stateful || send === undefined || (!modes.form && !modes.url)) return { ask: declineAll };
  return { ask: legacyAsk(send, modes) };
}

/**
 * `notifications/progress` with the client's own token, related to its call (so the SDK sends
 * it on that call's stream), or `undefined` when the request carried no token. The progress
 * is already checked, its message bounded and escaped as remote text.
 */
function progressOf(
  params: Record<string, unknown>,
  req: HandlerContext["mcpReq"],
): DownstreamProgress | undefined {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const token = req?._meta?.progressToken ?? meta?.progressToken;
  const notify = req?.notify;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  if (notify === undefined) return undefined;
  return (progress) => {
    const params: Record<string, unknown> = { progressToken: token, progress: progress.progress };
    if (progress.total !== undefined) params.total = progress.total;
    if (progress.message !== undefined) params.message = progress.message.text;
    notify({ method: "notifications/progress", params }).catch(() => {
      // A client gone mid-call: the call itself goes on.
    });
  };
}

function merged(a: DownstreamModes, b: DownstreamModes): DownstreamModes {
  return { form: a.form || b.form, url: a.url || b.url };
}

/** Sends `elicitation/create` on the call's own stream and answers what the client answers. */
function legacyAsk(
  send: (request: unknown, options?: unknown) => Promise<unknown>,
  modes: DownstreamModes,
): DownstreamAsk {
  return async (request, signal) => {
    if (!modes[request.kind]) return { action: "decline" };
    try {
      const answer = await send(
        { method: "elicitation/create", params: wireParams(request) },
        { signal },
      );
      return (isRecord(answer) ? answer : { action: "cancel" }) as ElicitationAnswer;
    } catch {
      return { action: "cancel" };
    }
  };
}
