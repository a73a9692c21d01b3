/** Protocol versions whose tool semantics sluice implements. */
export const ACCEPTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
]);

/** The protocol revision in which list changes arrive only through `subscriptions/listen`. */
const LISTEN_ERA = "2026-07-28";

/** Meta key carrying the subscription id on 2026-07-28 listen traffic. */
const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";

/**
 * How a catalog learns that the server's tool list changed:
 * - `"notifications"`: 2025 revisions, the server sends `notifications/tools/list_changed`
 *   unsolicited;
 * - `"subscription"`: 2026-07-28, the host opened a `subscriptions/listen` stream that the
 *   server acknowledged for tool list changes (seen by the monitor's message hook);
 * - `"unavailable"`: 2026-07-28 without such a stream; the snapshot cannot notice changes.
 */
export type ChangeDetection = "notifications" | "subscription" | "unavailable";

/** The part of a v2 client's `listen()` handle the monitor reads. */
export interface ListenSubscription {
  /** What the server agreed to deliver. */
  readonly honoredFilter?: { readonly toolsListChanged?: boolean };
  /** Settles when the stream ends, for whatever reason. */
  readonly closed: Promise<unknown>;
}

/** Where a registration's catalog stands. */
export type CatalogStatus = "current" | "stale" | "closed";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
 * @example
 * ```ts ignore
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
 */
export class CatalogMonitor {
  #protocolVersion: string | undefined;
  #generation = 0;
  #closed = false;
  /** Live `subscriptions/listen` streams acknowledged for tool list changes. */
  readonly #toolSubscriptions = new Set<string | number | symbol>();

  /** Creates a monitor for one session, not yet told its protocol version. */
  constructor() {}

  /**
   * Records the protocol version negotiated by the handshake. Returns whether sluice accepts
   * it; discovery fails with `mcp_protocol_version_unsupported` when it does not.
   */
  acceptProtocolVersion(version: unknown): boolean {
    this.#protocolVersion = typeof version === "string" ? version : undefined;
    return this.#protocolVersion !== undefined &&
      ACCEPTED_PROTOCOL_VERSIONS.includes(this.#protocolVersion);
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
   * Inbound message hook: accepts any JSON-RPC message and acts on tool list changes and on
   * the life of `subscriptions/listen` streams. A bound function, safe to pass around.
   */
  readonly onMessage = (message: unknown): void => {
    if (!isRecord(message)) return;
    const method = message.method;
    if (typeof method === "string") {
      this.handleNotification({ method, params: message.params });
    } else if ("id" in message && this.#toolSubscriptions.delete(message.id as string)) {
      // A response to the listen request ends that stream: changes could now go unseen.
      this.#lostStream();
    }
  };

  /**
   * Handles one notification (for hosts that register per-method handlers instead of a
   * message hook). Unrelated notifications are ignored.
   */
  handleNotification(notification: { method: string; params?: unknown }): void {
    const params = isRecord(notification.params) ? notification.params : {};
    switch (notification.method) {
      case "notifications/tools/list_changed":
        this.#generation++;
        return;
      case "notifications/subscriptions/acknowledged": {
        const meta = isRecord(params._meta) ? params._meta : {};
        const id = meta[SUBSCRIPTION_ID_KEY];
        const filter = isRecord(params.notifications) ? params.notifications : {};
        if (
          (typeof id === "string" || typeof id === "number") && filter.toolsListChanged === true
        ) {
          this.#toolSubscriptions.add(id);
        }
        return;
      }
      case "notifications/cancelled": {
        const id = params.requestId;
        if (
          (typeof id === "string" || typeof id === "number") && this.#toolSubscriptions.delete(id)
        ) {
          this.#lostStream();
        }
        return;
      }
    }
  }

  /**
   * Watches a `subscriptions/listen` stream the host opened on a 2026-07-28 session (the v2
   * client's `await client.listen({ toolsListChanged: true })`). If the server honored tool
   * list changes, catalogs discovered while the stream is open report
   * `changeDetection: "subscription"`; when the stream ends, they turn stale, since later
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

  /** Marks every registration of this session's snapshots closed. Idempotent. */
  close(): void {
    this.#closed = true;
  }

  #lostStream(): void {
    // Catalogs that relied on the stream can no longer see changes: fail them closed.
    this.#generation++;
  }
}
