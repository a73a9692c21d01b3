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
 * Only public SDK surface is used: `send` and its options (`headers`, `onRequestStreamEnd`,
 * `requestSignal`), `onmessage`, `onerror`, `onclose` and the `fetch` option. The fetch is tied
 * to its `send` by a header that never leaves the process.
 *
 * @module
 */
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { isRecord } from "../identity/mod.ts";
import { isUndecodable } from "../session/from_client.ts";
import { SessionRequestError } from "../session/session.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";

/** The request header that ties one fetch to its `send`; removed before the request leaves. */
const TAG = "x-sluice-reply";

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
  readonly headers?: Record<string, string>;
  readonly requestSignal?: AbortSignal;
  readonly onRequestStreamEnd?: () => void;
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

/** One request whose reply is awaited. */
class Reply {
  /** How the reply arrives, once its response headers are in. */
  kind: "pending" | "json" | "stream" = "pending";
  /** Whether the answer (a result or error with this id) was delivered. */
  answered = false;
  #done = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #settle: (error?: unknown) => void;

  constructor(settle: (error?: unknown) => void) {
    this.#settle = settle;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Ends the wait; with `error`, the request fails with it. Only the first call counts. */
  finish(error?: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#settle(error);
  }

  /** Fails the request and stops reading its stream (the rest of it is of no use). */
  abandon(error: unknown): void {
    this.finish(error);
    this.#reader?.cancel().catch(() => {});
  }

  /** The reply body as the SDK reads it: the same bytes, with its failure noticed here. */
  observe(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
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
        else controller.enqueue(step.value);
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
 * @category Agent developers: connect()
 */
export class ReplyStreams {
  /** Replies still awaited, by tag. */
  readonly #byTag = new Map<string, Reply>();
  /** The same replies, by JSON-RPC id. */
  readonly #byId = new Map<unknown, Reply>();
  #next = 0;

  /**
   * Wraps the fetch the transport uses: a tagged request's reply body is observed when it is
   * an event stream; the tag header is removed before the request goes on.
   *
   * @param fetch the underlying (hardened) fetch
   * @returns the fetch to give the transport
   */
  fetch(fetch: FetchFunction): FetchFunction {
    return async (input, init) => {
      const headers = init?.headers;
      const tag = headers instanceof Headers ? headers.get(TAG) : null;
      if (tag === null) return fetch(input, init);
      // The SDK builds these headers afresh for each request; the tag never goes on.
      (headers as Headers).delete(TAG);
      const response = await fetch(input, init);
      const reply = this.#byTag.get(tag);
      if (reply === undefined || reply.done) return response;
      if (!response.ok || response.body === null || !isEventStream(response)) {
        reply.kind = "json";
        return response;
      }
      reply.kind = "stream";
      return new Response(reply.observe(response.body), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
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
      return this.#track(send, message, options);
    };
    const onmessage = watched.onmessage;
    watched.onmessage = (message, extra) => {
      if (isRecord(message) && ("result" in message || "error" in message)) {
        const reply = this.#byId.get(message.id);
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
      for (const reply of [...this.#byTag.values()]) reply.finish();
      onclose?.();
    };
  }

  #track(send: Send, message: Record<string, unknown>, options: SendOptions | undefined) {
    const tag = String(++this.#next);
    const id = message.id;
    return new Promise<void>((resolve, reject) => {
      const signal = options?.requestSignal;
      const onAbort = () => reply.finish();
      const reply = new Reply((error) => {
        this.#byTag.delete(tag);
        if (this.#byId.get(id) === reply) this.#byId.delete(id);
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) resolve();
        else reject(error);
      });
      this.#byTag.set(tag, reply);
      this.#byId.set(id, reply);
      // A deliberate abort ends the stream without onRequestStreamEnd.
      signal?.addEventListener("abort", onAbort, { once: true });
      send(message, {
        ...options,
        headers: { ...options?.headers, [TAG]: tag },
        onRequestStreamEnd: () => {
          options?.onRequestStreamEnd?.();
          reply.finish(reply.answered ? undefined : new UnansweredReplyError());
        },
      }).then(() => {
        // A JSON reply was delivered before send resolved; a stream is still being read.
        if (reply.kind !== "stream") reply.finish();
      }, (error) => reply.finish(error));
    });
  }

  /**
   * The SDK could not decode a message and does not say from which reply: blame the reply
   * being read when it is the only one (a JSON reply's own send rejects with the error anyway).
   */
  #attribute(error: unknown): void {
    let reading: Reply | undefined;
    for (const reply of this.#byTag.values()) {
      if (reply.kind === "pending") continue;
      if (reading !== undefined) return;
      reading = reply;
    }
    if (reading?.kind === "stream" && !reading.answered) reading.abandon(error);
  }
}
