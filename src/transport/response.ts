/**
 * The response as it is let through: redirects, compressed bodies and a declared length over
 * the cap refused; a declared body read whole, any other body (every event stream) streamed and
 * counted, under the request's deadline.
 *
 * @module
 */
import type { Deadline } from "../deadline.ts";
import { TransportError } from "./errors.ts";
import { limitBody, readDeclaredBody, type ToTransportError } from "./limited_body.ts";
import type { ResolvedOptions } from "./fetch_options.ts";

const discard = (response: Response): void => {
  response.body?.cancel().catch(() => {});
};

/**
 * Refuses redirects, compressed bodies and a declared length over the cap; returns the declared
 * length, if any.
 */
function checkResponse(response: Response, maxResponseBytes: number): number | undefined {
  if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
    throw new TransportError("transport_redirect_refused", "The server answered with a redirect.");
  }
  const encoding = response.headers.get("content-encoding");
  if (encoding !== null) {
    const codings = encoding.split(",").map((coding) => coding.trim().toLowerCase());
    if (codings.some((coding) => coding !== "" && coding !== "identity")) {
      throw new TransportError(
        "transport_encoding_refused",
        "The server sent a compressed body; only identity encoding is accepted.",
      );
    }
  }
  const length = response.headers.get("content-length");
  if (length === null || !/^\d+$/.test(length.trim())) return undefined;
  const declared = Number(length);
  if (declared > maxResponseBytes) {
    throw new TransportError(
      "transport_response_too_large",
      `The response declares more than ${maxResponseBytes} bytes: raise maxResponseBytes.`,
    );
  }
  return declared;
}

/** Whether the body is an event stream, which is always handed on as a (counted) stream. */
function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type");
  return type !== null && /^\s*text\/event-stream\s*(;|$)/i.test(type);
}

// Statuses whose Response may not carry a body.
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** The body a response is let through with, and whether it streams (its deadline ends with it). */
export interface GovernedBody {
  readonly body: BodyInit | null;
  readonly streaming: boolean;
}

/**
 * Checks the response and chooses its body: none, read whole (a declared length, not an event
 * stream: one native read), or streamed and counted.
 */
export async function governedBody(
  response: Response,
  options: ResolvedOptions,
  deadline: Deadline,
  toError: ToTransportError,
): Promise<GovernedBody> {
  let declared: number | undefined;
  try {
    declared = checkResponse(response, options.maxResponseBytes);
  } catch (error) {
    discard(response);
    throw error;
  }
  if (response.body === null || NULL_BODY_STATUS.has(response.status)) {
    discard(response);
    return { body: null, streaming: false };
  }
  if (declared !== undefined && !isEventStream(response)) {
    // The common reply (JSON with its length, within the cap): one native read.
    const signal = options.nativeFetch ? undefined : deadline.signal;
    return {
      body: await readDeclaredBody(response, options.maxResponseBytes, signal),
      streaming: false,
    };
  }
  return {
    body: limitBody(response.body, options.maxResponseBytes, deadline, toError),
    streaming: true,
  };
}
