/**
 * Ends a request the moment its SSE reply stream fails, instead of at its deadline.
 *
 * The v2 SDK's Streamable HTTP transport reads a request's `text/event-stream` reply in a loop
 * of its own and never ties a failure there to the pending request: a body that errors (the
 * byte cap, the deadline, a reset) is reported to `transport.onerror` as a new
 * `Error("SSE stream disconnected: …")` without its cause, an event whose data is not JSON-RPC
 * is reported to `onerror` and skipped, and a stream that ends without the answer only calls
 * `onRequestStreamEnd` (which a plain request does not pass). The request itself stays pending
 * until its timer fires. The SDK does, however, reject a request at once when the transport's
 * `send` rejects. So {@link ReplyStreams} keeps each request's `send` open until its reply stream
 * is done and rejects it with the reply's own failure:
 *
 * - the body's error (a `TransportError` from `secureFetch`, code intact), seen by a thin
 *   observer around the reply body;
 * - the SDK's parse error for an undecodable event, when that reply is the only one being read
 *   (the SDK reports it without saying which stream it came from; with several replies being
 *   read at once it cannot be attributed, and the request ends when its stream does);
 * - {@link UnansweredReplyError} when the stream ended before the answer arrived (sluice never
 *   resumes a stream, so nothing can answer the request any more).
 *
 * Only public SDK surface is used: `send` and its options (`onRequestStreamEnd`), `onmessage`,
 * `onerror`, `onclose` and the `fetch` option. Nothing is tracked for a reply that is not an
 * event stream (the common JSON reply: the SDK's own `send` rejects with its failure): a
 * stream reply is tied to its request by the JSON-RPC id of the request body its fetch sent,
 * read only when the reply is a stream.
 *
 * @module
 */
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { isRecord } from "../identity/mod.ts";
import { isUndecodable } from "./from_client.ts";
import { type ServerRequestHandler, SessionRequestError } from "./session.ts";
import { EventScanner, handlerOfTag } from "./related_requests.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";

/**
 * A request's reply stream ended before the answer to the request arrived: the server broke
 * the protocol (`mcp_protocol_error`; the request was sent).
 *
 * @category Agent developers: connect()
 */
export class UnansweredReplyError extends SessionRequestError {
  /** Always `true`. */
  override readonly replyStreamEnded = true;

  /** Creates the error; the message is fixed sluice text. */
  constructor() {
    super("mcp_protocol_error", true);
    this.name = "UnansweredReplyError";
  }
}

/** The options of a transport `send`, as far as this module reads or adds them. */
interface SendOptions {
  readonly onRequestStreamEnd?: () => void;
  /** Where sluice's session put a request's server-request handler (`requestTag`). */
  readonly onresumptiontoken?: unknown;
}

type Send = (message: unknown, options?: SendOptions) => Promise<void>;

/** The part of the SDK's Streamable HTTP client transport this module wraps, loosely typed. */
interface Watched {
  send: Send;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
}

function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type");
  return type !== null && type.split(";", 1)[0].trim().toLowerCase() === "text/event-stream";
}

/** The JSON-RPC id of the one request a fetch's body carries, or `undefined`. */
function requestId(init: RequestInit | undefined): unknown {
  const body = init?.body;
  if (typeof body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(body);
    return isRecord(message) && typeof message.method === "string" ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** One request whose reply arrives as an event stream. */
class Reply {
  /** Whether the answer (a result or error with this id) was delivered. */
  answered = false;
  /** Whether the request's `send` has taken {@link settled} (its outcome) already. */
  claimed = false;
  /** Settles when the reply is done: rejected with the failure that ends the request. */
  readonly settled: Promise<void>;
  #done = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #resolve: () => void = () => {};
  #reject: (error: unknown) => void = () => {};
  readonly #onEnd: () => void;

  constructor(onEnd: () => void) {
    this.settled = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Awaited by the request's send once it resolves, unless that send failed first.
    this.settled.catch(() => {});
    this.#onEnd = onEnd;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Ends the wait; with `error`, the request fails with it. Only the first call counts. */
  finish(error?: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#onEnd();
    if (error === undefined) this.#resolve();
    else this.#reject(error);
  }

  /** Fails the request and stops reading its stream (the rest of it is of no use). */
  abandon(error: unknown): void {
    this.finish(error);
    this.#reader?.cancel().catch(() => {});
  }

  /**
   * The reply body as the SDK reads it: the same bytes, with its failure noticed here (and each
   * chunk shown to `scan`, when given).
   */
  observe(
    body: ReadableStream<Uint8Array>,
    scan?: EventScanner,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    this.#reader = reader;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (error) {
          this.finish(error);
          controller.error(error);
          return;
        }
        if (step.done) controller.close();
        else {
          scan?.push(step.value);
          controller.enqueue(step.value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    }, { highWaterMark: 0 });
  }
}

/**
 * Ties each request of one SDK transport to its reply stream and fails the request as soon as
 * that stream does. Use one per transport: pass {@link ReplyStreams.fetch} as the transport's
 * `fetch`, then call {@link ReplyStreams.watch} after setting the transport's own `onmessage`
 * and before `client.connect`.
 *
 * A reply that is not an event stream costs one look at its content type: the SDK reads it
 * before its `send` resolves and rejects that `send` with its failure itself.
 *
 * @category Agent developers: connect()
 */
export class ReplyStreams {
  /** Replies read as event streams, by JSON-RPC id, until done and claimed by their send. */
  readonly #streams = new Map<unknown, Reply>();
  /**
   * Requests whose `send` is in flight and whose reply is not a stream being read here: each
   * may be waiting for its reply or reading a JSON one.
   */
  #sending = 0;
  /** The server-request handler of each request in flight that has one, by JSON-RPC id. */
  readonly #handlers = new Map<unknown, ServerRequestHandler>();
  /** The client request each server request seen on a reply stream belongs to. */
  readonly #related = new Map<unknown, unknown>();

  /**
   * The handler of the client request whose reply stream carried server request `id`, while
   * that client request is in flight.
   *
   * @param id the server request's JSON-RPC id
   */
  handlerFor(id: unknown): ServerRequestHandler | undefined {
    const owner = this.#related.get(id);
    return owner === undefined ? undefined : this.#handlers.get(owner);
  }

  /** The handler of the one request in flight that has one; none when zero or several. */
  soleHandler(): ServerRequestHandler | undefined {
    if (this.#handlers.size !== 1) return undefined;
    return this.#handlers.values().next().value;
  }

  /**
   * Wraps the fetch the transport uses: a POST's reply body is observed when it is an event
   * stream.
   *
   * @param fetch the underlying (hardened) fetch
   * @returns the fetch to give the transport
   */
  fetch(fetch: FetchFunction): FetchFunction {
    return (input, init) => {
      const pending = fetch(input, init);
      if (init?.method !== "POST") return pending;
      return pending.then((response) => this.#observe(response, init));
    };
  }

  /** The response as the SDK gets it: a stream reply to a request observed, the rest as is. */
  #observe(response: Response, init: RequestInit): Response {
    // The body last: reading `body` of a reply secureFetch read whole builds a stream over it.
    if (!response.ok || !isEventStream(response) || response.body === null) return response;
    const id = requestId(init);
    if (id === undefined || this.#streams.has(id)) return response;
    // The SDK's signal for this request: a deliberate abort ends the stream without
    // onRequestStreamEnd.
    const signal = init.signal ?? undefined;
    const onAbort = () => reply.finish();
    const reply: Reply = new Reply(() => {
      signal?.removeEventListener("abort", onAbort);
      if (reply.claimed && this.#streams.get(id) === reply) this.#streams.delete(id);
    });
    this.#streams.set(id, reply);
    this.#sending--;
    if (signal?.aborted) reply.finish();
    else signal?.addEventListener("abort", onAbort, { once: true });
    // Only a request that can answer server requests has its stream read for them.
    const scan = this.#handlers.has(id)
      ? new EventScanner((serverId) => this.#related.set(serverId, id))
      : undefined;
    return new Response(reply.observe(response.body, scan), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /**
   * Wraps the transport's `send` (requests only) and chains its `onmessage`, `onerror` and
   * `onclose`.
   *
   * @param transport the SDK transport whose `fetch` is {@link ReplyStreams.fetch}
   */
  watch(transport: StreamableHTTPClientTransport): void {
    const watched = transport as unknown as Watched;
    const send = watched.send.bind(transport);
    watched.send = (message, options) => {
      if (!isRecord(message) || typeof message.method !== "string" || !("id" in message)) {
        return send(message, options);
      }
      return this.#track(send, message, message.id, options);
    };
    const onmessage = watched.onmessage;
    watched.onmessage = (message, extra) => {
      if (
        this.#streams.size > 0 && isRecord(message) && ("result" in message || "error" in message)
      ) {
        const reply = this.#streams.get(message.id);
        if (reply !== undefined) reply.answered = true;
      }
      onmessage?.(message, extra);
    };
    const onerror = watched.onerror;
    watched.onerror = (error) => {
      onerror?.(error);
      if (isUndecodable(error)) this.#attribute(error);
    };
    const onclose = watched.onclose;
    watched.onclose = () => {
      // The SDK fails every pending request itself on close.
      for (const reply of [...this.#streams.values()]) reply.finish();
      onclose?.();
    };
  }

  #track(send: Send, message: unknown, id: unknown, options: SendOptions | undefined) {
    this.#sending++;
    const handler = handlerOfTag(options?.onresumptiontoken);
    if (handler !== undefined) this.#handlers.set(id, handler);
    const forget = () => {
      if (handler === undefined) return;
      this.#handlers.delete(id);
      for (const [serverId, owner] of this.#related) {
        if (owner === id) this.#related.delete(serverId);
      }
    };
    return send(message, {
      ...options,
      onRequestStreamEnd: () => {
        options?.onRequestStreamEnd?.();
        const reply = this.#streams.get(id);
        reply?.finish(reply.answered ? undefined : new UnansweredReplyError());
      },
    }).then(() => {
      // A JSON reply was delivered before send resolved; a stream may still be being read.
      const reply = this.#claim(id);
      return reply?.settled;
    }, (error: unknown) => {
      this.#claim(id)?.finish(error);
      throw error;
    }).finally(forget);
  }

  /** The stream reply of request `id`, now claimed by its settled send, if it has one. */
  #claim(id: unknown): Reply | undefined {
    const reply = this.#streams.get(id);
    if (reply === undefined) {
      this.#sending--;
      return undefined;
    }
    reply.claimed = true;
    if (reply.done) this.#streams.delete(id);
    return reply;
  }

  /**
   * The SDK could not decode a message and does not say from which reply: blame the stream
   * being read when it is the only reply that could have sent it (a JSON reply's own send
   * rejects with the error anyway).
   */
  #attribute(error: unknown): void {
    if (this.#sending > 0) return;
    let reading: Reply | undefined;
    for (const reply of this.#streams.values()) {
      if (reply.done) continue;
      if (reading !== undefined) return;
      reading = reply;
    }
    if (reading !== undefined && !reading.answered) reading.abandon(error);
  }
}
