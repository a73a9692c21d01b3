/**
 * Multi round-trip calls (2026-07-28, SEP-2322): a `tools/call` answered `input_required` is
 * fulfilled through the host's handler and sent again, as a new request, with the answers in
 * `inputResponses` and the server's `requestState` echoed byte for byte (and none when the
 * server sent none), until the server answers with a result. Bounded in rounds, in input
 * requests per round and in the size of the state.
 *
 * @module
 */
import { isRecord, type JsonObject, utf8Length } from "../identity/mod.ts";
import { answerElicitation } from "./elicitation.ts";
import type { CallHandlers, CallOrigin } from "./host_handlers.ts";
import type { CallErrorCode } from "./envelope.ts";

/**
 * Most `input_required` answers in a row one call follows (then
 * `mcp_input_required_rounds_exceeded`).
 *
 * @category Discovery and calls
 */
export const MAX_INPUT_ROUNDS = 8;

/**
 * Most input requests in one `input_required` result (then `mcp_input_required_too_large`).
 *
 * @category Discovery and calls
 */
export const MAX_INPUT_REQUESTS = 16;

/**
 * Most UTF-8 bytes of a `requestState` sluice echoes (then `mcp_input_required_too_large`).
 *
 * @category Discovery and calls
 */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;

/** Sends the call once more with these extra params (a new JSON-RPC request each time). */
export type Resend = (extra: JsonObject) => Promise<unknown>;

/** The inputs of one round, or the code that ends the call. */
function roundOf(
  raw: Record<string, unknown>,
): { readonly requests: [string, unknown][]; readonly state?: string } | CallErrorCode {
  const requests = raw.inputRequests ?? {};
  const state = raw.requestState;
  if (!isRecord(requests) || (state !== undefined && typeof state !== "string")) {
    return "mcp_protocol_error";
  }
  const entries = Object.entries(requests);
  if (entries.length === 0 && state === undefined) return "mcp_protocol_error";
  if (
    entries.length > MAX_INPUT_REQUESTS ||
    (state !== undefined && utf8Length(state) > MAX_REQUEST_STATE_BYTES)
  ) {
    return "mcp_input_required_too_large";
  }
  return state === undefined ? { requests: entries } : { requests: entries, state };
}

/**
 * Follows `input_required` answers from `first` on and resolves with the first result that is
 * not one, or with the code that ends the call: no handler or a request that is not an
 * elicitation (`mcp_input_required_unsupported`), over a bound, or a malformed answer.
 *
 * @param first the raw result the server answered `input_required` with
 * @param resend sends the call again with the round's `inputResponses` / `requestState`
 * @param call the call the requests belong to
 * @param handlers the host's handlers
 * @param signal fires when the call ends
 * @param maxRounds most rounds (default {@link MAX_INPUT_ROUNDS})
 *
 * @category Discovery and calls
 */
export async function fulfilInputRequired(
  first: Record<string, unknown>,
  resend: Resend,
  call: CallOrigin,
  handlers: CallHandlers,
  signal: AbortSignal,
  maxRounds: number = MAX_INPUT_ROUNDS,
): Promise<{ readonly raw: unknown } | { readonly code: CallErrorCode }> {
  let raw: unknown = first;
  for (let rounds = 0; isRecord(raw) && raw.resultType === "input_required"; rounds++) {
    if (handlers.elicit === undefined) return { code: "mcp_input_required_unsupported" };
    if (rounds >= maxRounds) return { code: "mcp_input_required_rounds_exceeded" };
    const round = roundOf(raw);
    if (typeof round === "string") return { code: round };
    if (round.requests.some(([, entry]) => !isElicitation(entry))) {
      return { code: "mcp_input_required_unsupported" };
    }
    // The requests of one round are independent: all are asked at once (a relay shows them
    // to its client together), and the round is sent back once every one has its answer.
    const answers = await Promise.all(
      round.requests.map(([, entry]) =>
        answerElicitation((entry as JsonObject).params, call, handlers, signal, "input_required")
      ),
    );
    const responses: Record<string, JsonObject> = {};
    round.requests.forEach(([key], index) => responses[key] = answers[index]!);
    raw = await resend({
      ...(round.requests.length > 0 ? { inputResponses: responses } : {}),
      ...(round.state !== undefined ? { requestState: round.state } : {}),
    });
  }
  return { raw };
}

function isElicitation(entry: unknown): boolean {
  return isRecord(entry) && entry.method === "elicitation/create";
}
