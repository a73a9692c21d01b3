/**
 * What connect() needs of a server session it builds itself, over Streamable HTTP
 * (`ServerSession`) or stdio (`StdioSession`).
 *
 * @module
 */
import type { ChangeStreamKind } from "./change_stream.ts";
import type { Era } from "./era.ts";
import type { SessionStats } from "./server_session.ts";
import type { McpSession } from "./session.ts";
import type { StdioDiagnostics } from "./stdio_types.ts";

/**
 * A session connect() owns: the session contract plus the handshake's findings, the change
 * stream and the close.
 *
 * @category Agent developers: connect()
 */
export interface ConnectSession extends McpSession {
  /** The era found by the handshake, once connected. */
  readonly era: Era | undefined;
  /** The negotiated protocol version, once connected. */
  readonly protocolVersion: string | undefined;
  /** Handshake counters. */
  readonly stats: SessionStats;
  /** The change stream open now, if any. */
  readonly changeStream: ChangeStreamKind | undefined;
  /** Connects now if not yet connected; rejects with the `SessionRequestError` of the set-up. */
  ready(signal?: AbortSignal): Promise<void>;
  /** Calls `listener` each time a change stream opens again; returns the unsubscribe. */
  onStreamReopened(listener: () => void): () => void;
  /** A stdio server's process id, exit status and stderr tail, once started. */
  readonly diagnostics?: StdioDiagnostics;
  /** Closes the session for good. Idempotent. */
  close(): Promise<void>;
}
