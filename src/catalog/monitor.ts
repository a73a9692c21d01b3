import { isRecord } from "../identity/mod.ts";
import { ACCEPTED_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "../session/protocol.ts";

/** The protocol revision in which list changes arrive only through `subscriptions/listen`. */
const LISTEN_ERA = MODERN_PROTOCOL_VERSION;

/**
 * How a catalog learns that the server's tool list changed:
 * - `"notifications"`: 2025 revisions, the server sends `notifications/tools/list_changed`
 *   unsolicited;
 * - `"subscription"`: 2026-07-28, the host opened a `subscriptions/listen` stream that the
 *   server acknowledged for tool list changes and handed it to
 *   {@link CatalogMonitor.watchSubscription} (which also sees the stream end, even a local
 *   close that no inbound message reveals);
 * - `"unavailable"`: 2026-07-28 without such a stream; the snapshot cannot notice changes.
 *
 * @category Discovery and calls
 */
export type ChangeDetection = "notifications" | "subscription" | "unavailable";

/**
 * The part of a v2 client's `listen()` handle the monitor reads.
 *
 * @category Discovery and calls
 */
export interface ListenSubscription {
  /** What the server agreed to deliver. */
  readonly honoredFilter?: { readonly toolsListChanged?: boolean };
  /** Settles when the stream ends, for whatever reason. */
  readonly closed: Promise<unknown>;
}

/**
 * Where a registration's catalog stands.
 *
 * @category Discovery and calls
 */
export type CatalogStatus = "current" | "stale" | "closed";

/**
 * Why catalogs went stale: the server said its tool list changed, or the stream that would
 * have carried such a change ended.
 *
 * @category Discovery and calls
 */
export type StaleReason = "tools_list_changed" | "change_stream_ended";

/**
 * Options of a {@link CatalogMonitor}.
 *
 * @category Discovery and calls
 */
export interface CatalogMonitorOptions {
  /**
   * The protocol versions this session may use (default `ACCEPTED_PROTOCOL_VERSIONS`); a host
   * that opts in to an older revision lists it here.
   */
  readonly protocolVersions?: readonly string[];
}

/**
 * Watches one MCP session for tool list changes and its end. Feed it the protocol version the
 * handshake actually negotiated and every inbound message (compose {@link onMessage} with the
 * host's own handler, e.g. set it as the transport's `onmessage` before `client.connect`, which
 * both SDK lines chain); call {@link close} in the host's disconnect or `finally` path.
 *
 * A `notifications/tools/list_changed` marks every registration of snapshots discovered before
 * it stale; `close()` marks them closed. Neither is ever undone: the host rediscovers.
 *
 * On a 2026-07-28 session the server sends list changes only on a `subscriptions/listen`
 * stream: open one (`await client.listen({ toolsListChanged: true })` on the v2 client) and
 * pass it to {@link watchSubscription}; otherwise snapshots say `changeDetection:
 * "unavailable"`. When a watched stream ends, catalogs discovered under it turn stale.
 *
 * @example
 * ```ts
 * import { CatalogMonitor, discoverTools, type ReadToolBindings } from "@sluice/mcp";
 * import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
 * declare const bindings: ReadToolBindings;
 *
 * const client = new Client({ name: "my-host", version: "1.0.0" });
 * const transport = new StreamableHTTPClientTransport(new URL("https://docs.example.com/mcp"));
 * const monitor = new CatalogMonitor();
 * transport.onmessage = monitor.onMessage; // SDK chains it before its own handler
 * await client.connect(transport);
 * monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
 * try {
 *   const { registrations } = await discoverTools(client, "docs", bindings, { monitor });
 * } finally {
 *   monitor.close();
 * }
 * ```
 *
 * @category Discovery and calls
 */
export class CatalogMonitor {
  #protocolVersion: string | undefined;
  #generation = 0;
  #closed = false;
  /** Why each generation after the first began, by generation. */
  readonly #reasons: StaleReason[] = [];
  readonly #accepted: readonly string[];
  /**
   * Tools a listing that started after the latest change found unchanged: name → the entry
   * digest it found and the generation it confirmed.
   */
  readonly #confirmed = new Map<string, { readonly digest: string; readonly generation: number }>();
  /** Called after each change heard. */
  readonly #listeners = new Set<(reason: StaleReason) => void>();
  /** Live `subscriptions/listen` streams acknowledged for tool list changes. */
  readonly #toolSubscriptions = new Set<symbol>();

  /**
   * Creates a monitor for one session, not yet told its protocol version.
   *
   * @param options the protocol versions this session may use
   */
  constructor(options: CatalogMonitorOptions = {}) {
    this.#accepted = Object.freeze([...(options.protocolVersions ?? ACCEPTED_PROTOCOL_VERSIONS)]);
  }

  /**
   * Records the protocol version negotiated by the handshake. Returns whether sluice accepts
   * it; discovery fails with `mcp_protocol_version_unsupported` when it does not.
   */
  acceptProtocolVersion(version: unknown): boolean {
    this.#protocolVersion = typeof version === "string" ? version : undefined;
    return this.accepts(this.#protocolVersion);
  }

  /**
   * Whether `version` is one this session may use.
   *
   * @param version a protocol version
   */
  accepts(version: string | undefined): boolean {
    return version !== undefined && this.#accepted.includes(version);
  }

  /** The protocol versions this session may use. */
  get protocolVersions(): readonly string[] {
    return this.#accepted;
  }

  /**
   * Why a catalog discovered at `generation` is stale (the first change after it), or
   * `undefined` while it is current.
   *
   * @param generation the monitor's generation when discovery started
   */
  staleReason(generation: number): StaleReason | undefined {
    return this.#reasons[generation];
  }

  /** The version recorded by {@link acceptProtocolVersion}, if any. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Counts list changes (and lost change streams); snapshots remember the value they saw. */
  get generation(): number {
    return this.#generation;
  }

  /** How list changes reach this monitor right now. */
  get changeDetection(): ChangeDetection {
    if (this.#protocolVersion !== LISTEN_ERA) return "notifications";
    return this.#toolSubscriptions.size > 0 ? "subscription" : "unavailable";
  }

  /**
   * The status of a catalog discovered at `generation`.
   *
   * @param generation the monitor's generation when discovery started
   */
  status(generation: number): CatalogStatus {
    if (this.#closed) return "closed";
    return generation === this.#generation ? "current" : "stale";
  }

  /**
   * The status of one tool of a catalog discovered at `generation`: `"current"` while no
   * change was heard since, or when a listing begun after the latest change found the tool
   * with the same entry digest ({@link confirm}); otherwise like {@link status}. A change
   * that changes nothing thus keeps a tool current once the server has been listed again.
   *
   * @param generation the monitor's generation when discovery started
   * @param tool the tool's remote name
   * @param digest the entry digest the catalog holds (none: only `generation` counts)
   */
  toolStatus(generation: number, tool: string, digest: string | undefined): CatalogStatus {
    const status = this.status(generation);
    if (status !== "stale" || digest === undefined) return status;
    const confirmed = this.#confirmed.get(tool);
    return confirmed?.generation === this.#generation && confirmed.digest === digest
      ? "current"
      : "stale";
  }

  /**
   * Records what a listing begun at `generation` found of one tool: its entry digest. Has no
   * effect when a change was heard since that listing began (it may predate the change).
   *
   * @param generation the listing's generation (`ToolListing.generation`)
   * @param tool the tool's remote name
   * @param digest the entry digest the listing found
   */
  confirm(generation: number, tool: string, digest: string): void {
    if (generation !== this.#generation || this.#closed) return;
    this.#confirmed.set(tool, { digest, generation });
  }

  /**
   * Records a change no notification announced: a listing found a tool defined differently.
   * Advances the generation like a `list_changed` (without calling the change listeners) and
   * returns the new one, for {@link confirm}ing what that listing found unchanged.
   */
  noteChange(): number {
    this.#reasons[this.#generation] = "tools_list_changed";
    return ++this.#generation;
  }

  /**
   * Inbound message hook: accepts any JSON-RPC message and acts on
   * `notifications/tools/list_changed`. A bound function, safe to pass around.
   */
  readonly onMessage = (message: unknown): void => {
    if (isRecord(message) && typeof message.method === "string") {
      this.handleNotification({ method: message.method });
    }
  };

  /**
   * Handles one notification, for hosts that register per-method handlers instead of a
   * message hook (the SDKs allow one handler per method: call this from yours). Only
   * `notifications/tools/list_changed` matters; anything else is ignored.
   */
  handleNotification(notification: { readonly method: string }): void {
    if (notification.method === "notifications/tools/list_changed") {
      this.#advance("tools_list_changed");
    }
  }

  /**
   * Watches a change stream the host opened: a `subscriptions/listen` stream on a 2026-07-28
   * session (the v2 client's `await client.listen({ toolsListChanged: true })`), or any other
   * stream that carries tool list changes (connect()'s 2025 standalone GET stream). If it
   * carries tool list changes, 2026-07-28 catalogs discovered while it is open report
   * `changeDetection: "subscription"`; when the stream ends, catalogs turn stale, since later
   * changes could go unseen.
   *
   * @param subscription the handle `listen()` resolved with
   */
  watchSubscription(subscription: ListenSubscription): void {
    if (subscription.honoredFilter?.toolsListChanged !== true) return;
    const token = Symbol("subscription");
    this.#toolSubscriptions.add(token);
    subscription.closed.then(() => {
      if (this.#toolSubscriptions.delete(token)) this.#lostStream();
    }, () => {
      if (this.#toolSubscriptions.delete(token)) this.#lostStream();
    });
  }

  /**
   * Calls `listener` after each change heard (a list change, a lost change stream), for a
   * host that lists again at once. A listener that throws is ignored. Returns the
   * unsubscribe function; {@link close} drops every listener.
   *
   * @param listener receives why catalogs went stale
   */
  onChange(listener: (reason: StaleReason) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Marks every registration of this session's snapshots closed. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }

  #lostStream(): void {
    // Catalogs that relied on the stream can no longer see changes: fail them closed.
    this.#advance("change_stream_ended");
  }

  #advance(reason: StaleReason): void {
    this.#reasons[this.#generation] = reason;
    this.#generation++;
    for (const listener of [...this.#listeners]) {
      try {
        listener(reason);
      } catch {
        // The host's listener; its failure must not stop the monitor.
      }
    }
  }
}
