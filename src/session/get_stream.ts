/**
 * The standalone server-to-client stream of the 2025 Streamable HTTP transport: one `GET` on
 * the MCP endpoint, answered with `text/event-stream`, on which a stateful server sends what
 * relates to no request, `notifications/tools/list_changed` among it. A server that offers
 * none answers `405`.
 *
 * sluice opens it itself, through the hardened fetch it is given (byte cap and deadline on
 * every request, so one stream lives at most one deadline and one byte cap), and reads only
 * notifications off it; a request on it is passed on only to a session that offers to answer
 * it (elicitation, when the host gave a handler), and a reply is ignored.
 *
 * @module
 */
import { isRecord } from "../identity/mod.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import { SseEvents } from "./sse_events.ts";

/**
 * An open standalone GET stream.
 *
 * @category Agent developers: connect()
 */
export interface GetStream {
  /** What the stream carries (always tool list changes), in the shape the monitor reads. */
  readonly honoredFilter: { readonly toolsListChanged: true };
  /** Settles when the stream ends, for whatever reason (never rejects). */
  readonly closed: Promise<void>;
  /** Ends the stream and releases its connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * What {@link openGetStream} needs.
 *
 * @category Agent developers: connect()
 */
export interface GetStreamOptions {
  /** The MCP endpoint. */
  readonly url: URL;
  /** The hardened fetch. */
  readonly fetch: FetchFunction;
  /** `Mcp-Session-Id` and `MCP-Protocol-Version` of the session. */
  readonly headers: Readonly<Record<string, string>>;
  /** Receives each JSON-RPC notification (a message with a `method` and no `id`). */
  readonly onNotification: (message: Record<string, unknown>) => void;
  /**
   * Receives each JSON-RPC request (a `method` and an `id`); without it requests are ignored,
   * so nothing the server sends here can start anything.
   */
  readonly onRequest?: (message: Record<string, unknown>) => void;
  /** Aborts the opening and ends the stream (the session's close). */
  readonly signal?: AbortSignal;
}

/**
 * Opens the standalone GET stream. Resolves with the stream once the server answered `200`
 * with `text/event-stream`, with `"not_offered"` for a `405`; rejects for any other answer or
 * a transport failure (the caller retries with backoff).
 *
 * @param options endpoint, fetch, session headers and the notification sink
 *
 * @category Agent developers: connect()
 */
export async function openGetStream(
  options: GetStreamOptions,
): Promise<GetStream | "not_offered"> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();
  const headers = new Headers(options.headers);
  headers.set("accept", "text/event-stream");
  let response: Response;
  try {
    response = await options.fetch(options.url, {
      method: "GET",
      headers,
      signal: controller.signal,
    });
  } catch (error) {
    options.signal?.removeEventListener("abort", stop);
    throw error;
  }
  const type = response.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (response.status === 405 || !response.ok || type !== "text/event-stream" || !response.body) {
    options.signal?.removeEventListener("abort", stop);
    await response.body?.cancel().catch(() => {});
    if (response.status === 405) return "not_offered";
    throw new Error(`the standalone stream was refused (HTTP ${response.status})`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const closed = readEvents(reader, (data) => {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return; // not JSON: skipped, like any event sluice does not act on
    }
    if (!isRecord(message) || typeof message.method !== "string") return;
    if (!("id" in message)) options.onNotification(message);
    else options.onRequest?.(message);
  }).finally(() => options.signal?.removeEventListener("abort", stop));
  let closing: Promise<void> | undefined;
  return {
    honoredFilter: { toolsListChanged: true },
    closed,
    close: () =>
      closing ??= (async () => {
        controller.abort();
        await reader.cancel().catch(() => {});
        await closed;
      })(),
  };
}

/**
 * Reads server-sent events until the stream ends, handing the data of each `message` event to
 * `onData`. Settles (never rejects) when the stream ends or fails.
 */
async function readEvents(
  reader: ReadableStreamDefaultReader<string>,
  onData: (data: string) => void,
): Promise<void> {
  const events = new SseEvents(onData);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      events.push(value);
    }
  } catch {
    // The body failed (byte cap, deadline, reset, a local close): the stream is over.
  } finally {
    reader.releaseLock();
  }
}
