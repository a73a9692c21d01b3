import { digest, type JsonObject, type JsonValue } from "../identity/mod.ts";
import type { ReadPolicy } from "./bindings.ts";
import type { ChangeDetection } from "./monitor.ts";

/** One selected tool as discovered: what the host bound plus what the server sent. */
export interface SnapshotEntry {
  /** Name the model sees (from the binding). */
  readonly localName: string;
  /** Name on the server (the binding's key). */
  readonly remoteName: string;
  /** The server's `title`, when it sent one. */
  readonly title?: string;
  /** The server's description (`""` when absent). Model-facing; grants nothing. */
  readonly description: string;
  /** The input schema as received. */
  readonly inputSchema: Readonly<JsonObject>;
  /** The output schema as received, or `null` when the tool has none. */
  readonly outputSchema: Readonly<JsonObject> | null;
  /** The host's policy. */
  readonly policy: ReadPolicy;
  /** The host's concurrency declaration. */
  readonly concurrencySafe: boolean;
  /** The server's annotations as received, or `null`. Recorded, never trusted. */
  readonly annotations: Readonly<JsonObject> | null;
  /** The server's `execution` object as received, when it sent one. */
  readonly execution?: Readonly<JsonObject>;
}

/**
 * A read catalog: deeply frozen plain data, detached from the session and from the host's
 * bindings. `revisionDigest` is `digest()` of every other field.
 */
export interface ReadSnapshot {
  /** `1` for read catalogs. */
  readonly schemaVersion: 1;
  /** The host's id for the server. */
  readonly serverId: string;
  /** Protocol version negotiated by the session's handshake. */
  readonly protocolVersion: string;
  /** How this catalog notices list changes; `"unavailable"` means it cannot. */
  readonly changeDetection: ChangeDetection;
  /** `sha256:<hex>` of the canonical JSON of every other field. */
  readonly revisionDigest: string;
  /** Selected tools sorted by local name. */
  readonly entries: readonly SnapshotEntry[];
}

/** Freezes a plain JSON-like tree in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * Builds the snapshot: sorts entries by local name (UTF-16 order, like the digest), digests
 * everything but the digest, and deep-freezes. `entries` must already be detached copies.
 */
export async function buildSnapshot(
  fields: Omit<ReadSnapshot, "revisionDigest" | "schemaVersion">,
): Promise<ReadSnapshot> {
  const entries = [...fields.entries].sort((a, b) =>
    a.localName < b.localName ? -1 : a.localName > b.localName ? 1 : 0
  );
  const body = {
    schemaVersion: 1 as const,
    serverId: fields.serverId,
    protocolVersion: fields.protocolVersion,
    changeDetection: fields.changeDetection,
    entries,
  };
  const revisionDigest = await digest(body as unknown as JsonValue);
  return deepFreeze({ ...body, revisionDigest });
}
