/**
 * A server session's change stream: on 2026-07-28 a `subscriptions/listen` stream for tool list
 * changes, on 2025 revisions the standalone GET stream where the server offers one. Opened under
 * the session's deadline, handed to the session's observer, and re-opened with bounded backoff
 * when it ends while the session is open.
 *
 * @module
 */
import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { isRecord } from "../identity/mod.ts";
import { type Deadline, startDeadline, within } from "../deadline.ts";
import type { FetchFunction } from "../transport/secure_fetch.ts";
import { type GetStream, openGetStream } from "./get_stream.ts";
import type { SessionObserver } from "./observer.ts";

/**
 * The change stream a session has open:
 * `"subscription"` (2026-07-28 `subscriptions/listen`) or `"get_stream"` (2025 standalone GET).
 *
 * @category Agent developers: connect()
 */
export type ChangeStreamKind = "subscription" | "get_stream";

/** The first wait before re-opening a lost change stream; it doubles per failure. */
const FIRST_STREAM_BACKOFF_MS = 1_000;
/** The longest wait before re-opening a lost change stream. */
const MAX_STREAM_BACKOFF_MS = 30_000;
/** Failed openings in a row after which the session stops asking. */
const MAX_STREAM_FAILURES = 8;

/** The part of the v2 client's listen handle the session uses. */
interface ListenHandle {
  readonly honoredFilter?: { readonly toolsListChanged?: boolean };
  readonly closed: Promise<unknown>;
  close(): Promise<void>;
}

/** What a change stream needs of its session. */
export interface ChangeStreamHost {
  readonly url: URL;
  /** The hardened fetch the GET stream is opened with. */
  readonly fetch: FetchFunction;
  /** The deadline of each opening, in milliseconds. */
  readonly timeoutMs: number;
  readonly observer: SessionObserver;
  /** Whether `sdk` is still the session's client, and the session open. */
  current(sdk: Client): boolean;
  /** Whether the session speaks 2026-07-28. */
  modern(): boolean;
  /** The negotiated protocol version, once connected. */
  protocolVersion(): string | undefined;
  /**
   * Whether the stream is for tool list changes (the host's `changeDetection`); when not, it is
   * opened on 2025 eras only, for server requests, and its notifications are not observed.
   */
  readonly changes: boolean;
  /** Hands a server request heard on the 2025 standalone stream to `sdk`, when set. */
  readonly onRequest?: (sdk: Client, message: Record<string, unknown>) => void;
}

/** One session's change stream, across the clients the session goes through. */
export class ChangeStream {
  readonly #host: ChangeStreamHost;
  /** The open change stream, the client it belongs to, and its kind. */
  #stream: { sdk: Client; kind: ChangeStreamKind; handle: ListenHandle } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  /** Whether the server said it offers no change stream (no retries then). */
  #refused = false;
  /** Aborts stream openings in flight and open GET streams when the session closes. */
  readonly #stop = new AbortController();
  /** The opening in flight, awaited by close(). */
  #opening: Promise<void> | undefined;
  /** Change streams opened so far; every one after the first follows a gap. */
  #opened = 0;
  readonly #reopenListeners = new Set<() => void>();

  /**
   * A change stream not yet open.
   *
   * @param host the session it belongs to
   */
  constructor(host: ChangeStreamHost) {
    this.#host = host;
  }

  /** The change stream open now, if any. */
  get kind(): ChangeStreamKind | undefined {
    return this.#stream?.kind;
  }

  /**
   * Calls `listener` each time a change stream opens again after one ended (or after the
   * session was re-initialized). Returns the unsubscribe function.
   *
   * @param listener called after each re-opening
   */
  onReopened(listener: () => void): () => void {
    this.#reopenListeners.add(listener);
    return () => this.#reopenListeners.delete(listener);
  }

  /**
   * Opens the era's change stream for `sdk` and hands it to the observer. Each opening runs
   * under the session's deadline (the hardened fetch's deadline and byte cap bound each stream
   * too). When the stream ends while the session is open, it is re-opened after a backoff (1 s
   * doubling, at most {@link MAX_STREAM_BACKOFF_MS}; after {@link MAX_STREAM_FAILURES} failed
   * openings in a row the session stops asking). A server that refuses (no tool list changes
   * honored, a 405 on GET) is not asked again.
   *
   * @param sdk the session's client
   */
  open(sdk: Client): Promise<void> {
    const opening = this.#openOnce(sdk).finally(() => {
      if (this.#opening === opening) this.#opening = undefined;
    });
    this.#opening = opening;
    return opening;
  }

  /**
   * Closes the change stream of `sdk` (a client being replaced), if it has one.
   *
   * @param sdk the client being replaced
   */
  drop(sdk: Client): void {
    const stream = this.#stream;
    if (stream?.sdk !== sdk) return;
    this.#stream = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    stream.handle.close().catch(() => {});
  }

  /** Stops for good: no re-opening, openings in flight aborted, the open stream closed. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stop.abort();
    this.#reopenListeners.clear();
    const stream = this.#stream;
    this.#stream = undefined;
    await stream?.handle.close().catch(() => {});
  }

  /** Settles when the opening in flight, if any, has ended (with the client, or the abort). */
  async settled(): Promise<void> {
    await this.#opening?.catch(() => {});
  }

  async #openOnce(sdk: Client): Promise<void> {
    const host = this.#host;
    if (!host.current(sdk)) return;
    const kind: ChangeStreamKind = host.modern() ? "subscription" : "get_stream";
    // Without change detection the stream is only for server requests, which 2026-07-28 has not.
    if (!host.changes && kind === "subscription") return;
    let handle: ListenHandle | "refused";
    try {
      handle = await openedWithin(
        kind === "subscription" ? openListen(sdk) : this.#openGet(sdk),
        startDeadline(undefined, host.timeoutMs),
      );
    } catch {
      this.#schedule(sdk);
      return;
    }
    if (handle === "refused") {
      this.#refused = true;
      return;
    }
    if (!host.current(sdk)) {
      await handle.close().catch(() => {});
      return;
    }
    const stream = { sdk, kind, handle };
    this.#stream = stream;
    this.#failures = 0;
    if (host.changes) host.observer.watchSubscription(handle);
    // A change made while no stream was open went unheard: tell whoever lists again (a stream
    // open only for server requests hears no changes, so its gaps mean nothing).
    if (this.#opened++ > 0 && host.changes) {
      for (const listener of [...this.#reopenListeners]) {
        try {
          listener();
        } catch {
          // The host's listener; its failure must not stop the session.
        }
      }
    }
    handle.closed.finally(() => {
      if (this.#stream !== stream) return;
      this.#stream = undefined;
      this.#schedule(sdk);
    }).catch(() => {});
  }

  /** The standalone GET stream of the legacy session; `"refused"` for a 405. */
  async #openGet(sdk: Client): Promise<ListenHandle | "refused"> {
    const transport = sdk.transport as StreamableHTTPClientTransport | undefined;
    const headers: Record<string, string> = {};
    if (transport?.sessionId !== undefined) headers["mcp-session-id"] = transport.sessionId;
    const version = this.#host.protocolVersion();
    if (version !== undefined) headers["mcp-protocol-version"] = version;
    const onRequest = this.#host.onRequest;
    const stream: GetStream | "not_offered" = await openGetStream({
      url: this.#host.url,
      fetch: this.#host.fetch,
      headers,
      onNotification: this.#host.changes ? this.#host.observer.onMessage : () => {},
      ...(onRequest !== undefined ? { onRequest: (message) => onRequest(sdk, message) } : {}),
      signal: this.#stop.signal,
    });
    return stream === "not_offered" ? "refused" : stream;
  }

  #schedule(sdk: Client): void {
    if (!this.#host.current(sdk) || this.#refused) return;
    if (this.#failures >= MAX_STREAM_FAILURES) return; // it keeps failing: stop asking
    const delay = Math.min(FIRST_STREAM_BACKOFF_MS * 2 ** this.#failures++, MAX_STREAM_BACKOFF_MS);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.open(sdk);
    }, delay);
  }
}

/** `subscriptions/listen` for tool list changes; `"refused"` when the server honors none. */
async function openListen(sdk: Client): Promise<ListenHandle | "refused"> {
  let handle: ListenHandle;
  try {
    handle = await (sdk as unknown as {
      listen(filter: { toolsListChanged: boolean }): Promise<ListenHandle>;
    }).listen({ toolsListChanged: true });
  } catch (error) {
    // A JSON-RPC error (a numeric code) is the server's answer: it has no listen to offer.
    if (isRecord(error) && typeof error.code === "number") return "refused";
    throw error;
  }
  if (handle.honoredFilter?.toolsListChanged === true) return handle;
  await handle.close().catch(() => {});
  return "refused";
}

/**
 * `opening` within `deadline`: rejects when the deadline passes first; a value that arrives
 * late is closed.
 */
function openedWithin<T extends ListenHandle | "refused">(
  opening: Promise<T>,
  deadline: Deadline,
): Promise<T> {
  opening.then((value) => {
    if (deadline.expired && value !== "refused") value.close().catch(() => {});
  }, () => {});
  return within(() => opening, deadline);
}
