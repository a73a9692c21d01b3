/**
 * What hears a server session: every inbound message, the version its handshake negotiated, each
 * change stream it opens, and its end. The catalog's monitor (`CatalogMonitor`) is one; the
 * session knows only this shape, so it sits below the catalog.
 *
 * @module
 */

/** The part of a change stream an observer watches. */
export interface ObservedStream {
  /** What the server agreed to deliver. */
  readonly honoredFilter?: { readonly toolsListChanged?: boolean };
  /** Settles when the stream ends, for whatever reason. */
  readonly closed: Promise<unknown>;
}

/** What a server session (`ServerSession`) tells as it runs. */
export interface SessionObserver {
  /** Every inbound message, before the SDK reads it. */
  readonly onMessage: (message: unknown) => void;
  /** The protocol version the handshake negotiated. */
  acceptProtocolVersion(version: string): unknown;
  /** A change stream just opened. */
  watchSubscription(stream: ObservedStream): void;
  /** The session closed for good. */
  close(): void;
  /**
   * Every outbound message the SDK client sends, before the transport does: returns the message
   * to send (telemetry adds trace context to `_meta`). Absent, messages go as they are.
   */
  readonly onSend?: (message: unknown) => unknown;
  /** A send that `onSend` saw settled: `error` when it failed (its reply was read by then). */
  readonly onSendSettled?: (message: unknown, error?: unknown) => void;
  /**
   * Whether `onSendSettled` wants to hear how the send of `message` (what `onSend` returned)
   * settles; a send it does not want goes without a promise chained to it. Absent, every send.
   */
  readonly settles?: (message: unknown) => boolean;
}
