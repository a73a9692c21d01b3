/**
 * One server of a connection: what it was configured as, and its session, fetch, catalog,
 * staged revision and listing schedule of now.
 *
 * @module
 */
import type { ToolListing } from "../catalog/listing.ts";
import type { CatalogMonitor } from "../catalog/monitor.ts";
import type { SecureFetch } from "../transport/secure_fetch.ts";
import type { ResolvedServer } from "./config.ts";
import type { ServerCatalog } from "./discovery.ts";
import type { FailedServer } from "./failure.ts";
import type { Relister } from "./relister.ts";
import type { ServerReport } from "./report.ts";
import type { StagedRevision } from "./revision.ts";
import type { ConnectSession } from "../session/connect_session.ts";
import type { ToolkitServer } from "./toolkit.ts";

/** One server of a connection: what it was configured as, and what it is now. */
export interface ServerState {
  readonly server: ResolvedServer;
  /** The session, its monitor, fetch and hold of now (a reconnect replaces all four). */
  session: ConnectSession;
  /** Hears the session: its tool list changes, streams and end. */
  monitor: CatalogMonitor;
  fetch: SecureFetch;
  /** Ends the hold on the fetch's pinned connections (taken for the connection's lifetime). */
  release: () => void;
  catalog?: ServerCatalog;
  /** A reconnect in flight. */
  reconnecting?: Promise<ServerReport>;
  /** The server's staged revision, if any (a newer listing replaces it). */
  staged?: {
    readonly revision: StagedRevision;
    readonly listing: ToolListing;
    /** The monitor's generation the revision describes (a later change makes it stale). */
    readonly generation: number;
  };
  /** When the server is listed again: coalesced, at least the minimum interval apart. */
  relister?: Relister<StagedRevision | undefined>;
  /** The latest listing's `ttlMs` hint, and the timer that lists again after it. */
  ttlMs?: number;
  ttlTimer?: ReturnType<typeof setTimeout>;
}

/** A server's part of the toolkit: its ready tools, and when it failed, those it makes unavailable. */
export function toolkitServerOf(item: ServerState): ToolkitServer {
  const catalog = item.catalog!;
  const base = { id: item.server.id, session: item.session, tools: catalog.tools };
  if (catalog.errorCode === undefined) return base;
  const ready = new Set(catalog.tools.map((tool) => tool.allowed.localName));
  return {
    ...base,
    failure: {
      cause: catalog.errorCode,
      tools: item.server.tools.filter((tool) => !ready.has(tool.localName))
        .map((tool) => ({ name: tool.localName, tool: tool.tool })),
    },
  };
}

/** A failed server as `ConnectError` takes it. */
export function failedServerOf(item: ServerState): FailedServer {
  return {
    id: item.server.id,
    url: item.server.url,
    code: item.catalog!.errorCode!,
    error: item.catalog!.error,
  };
}

/** Closes every session, then lets go of its fetch's pinned connections. */
export async function closeSessions(servers: readonly ServerState[]): Promise<void> {
  await Promise.all(servers.map(async (item) => {
    await item.session.close();
    item.release();
  }));
}
