/**
 * What a stdio session is built from and what it tells the operator: types only, so the
 * Worker's stand-in (`stdio_open_workerd.ts`) and the report share them without the session.
 *
 * @module
 */
import type { ExitStatus, ProcessSpec } from "../transport/stdio/spawn_types.ts";
import type { StdioTransportOptions } from "../transport/stdio/stdio_transport.ts";
import type { Client } from "@modelcontextprotocol/client";
import type { ClientOffer } from "./client_capabilities.ts";
import type { SessionObserver } from "./observer.ts";
import type { McpSession } from "./session.ts";

/**
 * How one stdio session is built: the command (its environment already built from the host's
 * allowlist), the bounds, the deadline and the observer; what it offers the server and how its
 * requests are traced, as for a Streamable HTTP session.
 *
 * @category Agent developers: connect()
 */
export interface StdioSessionOptions {
  /** The command, its arguments, the environment without the inherited names, the folder. */
  readonly spec: ProcessSpec;
  /** Names of the host's environment variables copied in (where set and readable). */
  readonly inheritEnv: readonly string[];
  /** The bounds of the transport. */
  readonly bounds: Omit<StdioTransportOptions, "spec" | "spawner">;
  /** Deadline of the handshake, in milliseconds. */
  readonly timeoutMs: number;
  /** The 2025 revisions accepted from `initialize` (default `LEGACY_PROTOCOL_VERSIONS`). */
  readonly legacyProtocolVersions?: readonly string[];
  /** Hears every inbound message, the negotiated version and the end. */
  readonly observer: SessionObserver;
  /** On 2026-07-28, open a `subscriptions/listen` stream for tool list changes. */
  readonly changeDetection?: boolean;
  /**
   * The client capabilities declared (elicitation only when the host answers it) and the
   * server messages passed to the host (log messages).
   */
  readonly offer?: ClientOffer;
  /** Wraps the session of the client (telemetry traces every request through it). */
  readonly wrapSession?: (session: McpSession, client: Client) => McpSession;
}

/**
 * What the operator may see of a stdio server: its process id, how it ended, and the escaped,
 * bounded tail of its stderr (never shown to a model).
 *
 * @category Agent developers: connect()
 */
export interface StdioDiagnostics {
  /** The server's process id, once started. */
  readonly pid?: number;
  /** How it ended, once it did. */
  readonly exit?: ExitStatus;
  /** The escaped tail of its stderr (at most `maxStderrBytes` bytes of it). */
  readonly stderr: string;
  /** Every byte it wrote to stderr. */
  readonly stderrBytes: number;
}
