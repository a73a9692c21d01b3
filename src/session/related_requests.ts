/**
 * Which client request a server request belongs to (2025 eras). A server asks for input in the
 * course of a call by sending its request on that call's own SSE reply stream; the SDK's
 * transport reads every stream into one `onmessage` and does not say which stream a message
 * came from. {@link EventScanner} reads a reply stream's bytes alongside the SDK and names the
 * server requests it carries, and {@link requestTag} marks a client request's send with the
 * handler that answers them.
 *
 * @module
 */
import { isRecord } from "../identity/mod.ts";
import type { ServerRequestHandler } from "./session.ts";
import { SseEvents } from "./sse_events.ts";

const HANDLER = Symbol("sluice.serverRequestHandler");

/** A send option the SDK passes through to the transport untouched, carrying a handler. */
type Tagged = ((token: string) => void) & { readonly [HANDLER]?: ServerRequestHandler };

/**
 * A function to pass as the SDK request's `onresumptiontoken` option: the SDK hands it to the
 * transport's `send` with the request, where {@link handlerOfTag} finds the handler again. It
 * does nothing when the transport calls it.
 *
 * @param handler answers the server requests of this client request
 */
export function requestTag(handler: ServerRequestHandler): (token: string) => void {
  const tag: Tagged = Object.assign((_token: string) => {}, { [HANDLER]: handler });
  return tag;
}

/**
 * The handler a send's `onresumptiontoken` option carries, if it is a {@link requestTag}.
 *
 * @param tag the option's value
 */
export function handlerOfTag(tag: unknown): ServerRequestHandler | undefined {
  return typeof tag === "function" ? (tag as Tagged)[HANDLER] : undefined;
}

/**
 * Reads one SSE reply stream's bytes (as the SDK also reads them) and reports the id of every
 * JSON-RPC request among its events.
 */
export class EventScanner {
  readonly #decoder = new TextDecoder();
  readonly #events: SseEvents;

  /** @param found called with each server request's JSON-RPC id */
  constructor(found: (id: unknown) => void) {
    this.#events = new SseEvents((data) => {
      if (!data.includes('"method"')) return;
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        return;
      }
      if (isRecord(message) && typeof message.method === "string" && "id" in message) {
        found(message.id);
      }
    });
  }

  /** Reads the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    this.#events.push(this.#decoder.decode(chunk, { stream: true }));
  }
}
