import { deepFreeze, digest, type JsonObject, type JsonValue } from "../identity/mod.ts";
import type { ReadPolicy, WriteEffect, WritePolicy } from "./bindings.ts";
import type { ChangeDetection } from "./monitor.ts";

/**
 * The fields every entry has, read or write: what the server sent plus the local name.
 *
 * @category Discovery and calls
 */
export interface SnapshotEntryBase {
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
  readonly policy: { readonly title: string };
  /** The host's concurrency declaration. */
  readonly concurrencySafe: boolean;
  /** The server's annotations as received, or `null`. Recorded, never trusted. */
  readonly annotations: Readonly<JsonObject> | null;
  /** The server's `execution` object as received, when it sent one. */
  readonly execution?: Readonly<JsonObject>;
}

/**
 * One selected read tool as discovered: what the host bound plus what the server sent.
 *
 * @category Discovery and calls
 */
export interface SnapshotEntry extends SnapshotEntryBase {
  /** The host's read policy. */
  readonly policy: ReadPolicy;
}

/**
 * The host's authorization identity of one write tool, recorded in the write snapshot.
 *
 * @category Discovery and calls
 */
export interface WriteAuthorization {
  /** The host's binding id. */
  readonly bindingId: string;
  /** The host's own binding revision (an input to the catalog digest, never the binding). */
  readonly bindingRevision: string;
  /** The host's scope id. */
  readonly scopeId: string;
  /** The host's scope revision. */
  readonly scopeRevision: string;
  /** The declared effect. */
  readonly effect: WriteEffect;
}

/**
 * One selected write tool: the base fields, the confirm policy and the authorization.
 *
 * @category Discovery and calls
 */
export interface WriteSnapshotEntry extends SnapshotEntryBase {
  /** The host's confirm policy. */
  readonly policy: WritePolicy;
  /** Always `false`: write tools never run concurrently. */
  readonly concurrencySafe: false;
  /** The host's authorization identity. */
  readonly authorization: WriteAuthorization;
}

/**
 * A catalog: deeply frozen plain data, detached from the session and from the host's
 * bindings; `revisionDigest` is `digest()` of every other field. The version says which kind:
 * `1` for read catalogs, `2` for write catalogs, whose entries add the host's authorization
 * identity and whose digest is the one approvals bind to.
 *
 * @typeParam Version the schema version
 * @typeParam Entry the entries' type
 *
 * @category Discovery and calls
 */
export interface Snapshot<Version extends 1 | 2, Entry extends SnapshotEntryBase> {
  /** `1` for read catalogs, `2` for write catalogs. */
  readonly schemaVersion: Version;
  /** The host's id for the server. */
  readonly serverId: string;
  /** Protocol version negotiated by the session's handshake. */
  readonly protocolVersion: string;
  /** How this catalog notices list changes; `"unavailable"` means it cannot. */
  readonly changeDetection: ChangeDetection;
  /** `sha256:<hex>` of the canonical JSON of every other field. */
  readonly revisionDigest: string;
  /** Selected tools sorted by local name. */
  readonly entries: readonly Entry[];
}

/**
 * A read catalog (`schemaVersion: 1`).
 *
 * @category Discovery and calls
 */
export type ReadSnapshot = Snapshot<1, SnapshotEntry>;

/**
 * A write catalog (`schemaVersion: 2`): each entry records the host's authorization identity,
 * and its `revisionDigest` is the write-catalog digest approvals bind to.
 *
 * @category Discovery and calls
 */
export type WriteSnapshot = Snapshot<2, WriteSnapshotEntry>;

/**
 * The fields a catalog is built from: everything but the digest and the version.
 *
 * @category Discovery and calls
 */
export interface CatalogFields<E extends SnapshotEntryBase> {
  readonly serverId: string;
  readonly protocolVersion: string;
  readonly changeDetection: ChangeDetection;
  readonly entries: readonly E[];
}

/**
 * A catalog's fields other than its entries: the server id and the session it came from.
 *
 * @category Discovery and calls
 */
export type CatalogHeader = Omit<CatalogFields<SnapshotEntryBase>, "entries">;

/**
 * Orders anything named by local name, in UTF-16 code units (the snapshot's order).
 *
 * @category Discovery and calls
 */
export function byLocalName(a: { localName: string }, b: { localName: string }): number {
  return a.localName < b.localName ? -1 : a.localName > b.localName ? 1 : 0;
}

/**
 * Builds a catalog of `schemaVersion`: sorts entries by local name (UTF-16 order, like the
 * digest), digests everything but the digest, and deep-freezes. Entries must be detached.
 */
async function buildCatalog<V extends 1 | 2, E extends SnapshotEntryBase>(
  schemaVersion: V,
  fields: CatalogFields<E>,
) {
  const entries = [...fields.entries].sort(byLocalName);
  const body = {
    schemaVersion,
    serverId: fields.serverId,
    protocolVersion: fields.protocolVersion,
    changeDetection: fields.changeDetection,
    entries,
  };
  const revisionDigest = await digest(body as unknown as JsonValue);
  return deepFreeze({ ...body, revisionDigest });
}

/**
 * Builds a read snapshot (`schemaVersion: 1`).
 *
 * @category Discovery and calls
 */
export function buildSnapshot(fields: CatalogFields<SnapshotEntry>): Promise<ReadSnapshot> {
  return buildCatalog(1, fields);
}

/**
 * Builds a write snapshot (`schemaVersion: 2`).
 *
 * @category Discovery and calls
 */
export function buildWriteSnapshot(
  fields: CatalogFields<WriteSnapshotEntry>,
): Promise<WriteSnapshot> {
  return buildCatalog(2, fields);
}

/**
 * Maps each entry of a built snapshot together with the item it was built from, matched by
 * local name (the snapshot orders its entries itself).
 *
 * @category Discovery and calls
 */
export function mapByLocalName<E extends { readonly localName: string }, T, R>(
  entries: readonly E[],
  items: readonly T[],
  localNameOf: (item: T) => string,
  map: (entry: E, item: T) => R,
): R[] {
  const byName = new Map(items.map((item) => [localNameOf(item), item]));
  return entries.map((entry) => map(entry, byName.get(entry.localName)!));
}
