/**
 * The connection `connectAll` returns: its toolkit, report, catalogs, lock, revisions,
 * reconnect and close, each a named step over the connection's state.
 *
 * @module
 */
import type { LockComparison, SluiceLock } from "../catalog/lock.ts";
import type { ReadSnapshot, WriteSnapshot } from "../catalog/snapshot.ts";
import { accept } from "./accept.ts";
import { connectionReport, ProvidersReport } from "./connection_report.ts";
import { lockOf } from "./connection_lock.ts";
import { closeConnection, type ConnectionState } from "./connection_state.ts";
import { reconnect } from "./reconnect.ts";
import { refresh } from "./refresh.ts";
import type { ConnectReport, ServerReport } from "./report.ts";
import type { AcceptOptions, StagedRevision } from "./revision.ts";
import type { Toolkit } from "./toolkit.ts";

/**
 * A live set of governed tools: the toolkit, a report and `close()`.
 *
 * @category Agent developers: connect()
 */
export interface Connection {
  /** The allowlisted tools the model may call. */
  readonly toolkit: Toolkit;
  /**
   * Which tools are ready, which were skipped and why, and each server's state. It holds no
   * text a server chose (no description, schema, property or keyword name of the server):
   * schema locations are positional, changes are digests and field names, so a host may show
   * it to a model. The names and diffs are for people: {@link lockComparison} and
   * `sluice inspect`.
   */
  report(): ConnectReport;
  /**
   * With `connect({ lock })`: server `id`'s full lock comparison, each changed tool with its
   * diff (`renderLockMismatches` prints it). Server text, for people reviewing it; never hand
   * it to a model. `undefined` without a lock or for a server not listed.
   *
   * @param id the server id
   */
  lockComparison(id: string): LockComparison | undefined;
  /**
   * Each server's frozen catalogs: `read` for the tools that need no approval, `write`
   * (`schemaVersion: 2`, confirm policies stating who decides) for those that do.
   */
  catalogs(): readonly ServerCatalogs[];
  /**
   * A lock of what runs now: per contacted server, its protocol version and the definitions
   * of its ready tools as the server listed them (owner specs are the host's own and are not
   * locked). Write it with `serializeLock` as `sluice.lock.json`; pass it back (`parseLock`)
   * as `connect({ lock })`.
   */
  lock(): Promise<SluiceLock>;
  /**
   * Lists every server's allowed tools again into a staged revision beside the current
   * catalog, never replacing it: tools found unchanged stay (or become again) current, a
   * changed tool stays stale until accepted. A change heard on a server's change detection
   * does this by itself, coalesced and at most once per `minRelistIntervalMs`; `refresh()`
   * itself is not delayed (it lists as soon as a listing in flight ends). Returns the
   * revisions staged (only servers where something changed); emits one `revision` event each.
   */
  refresh(): Promise<readonly StagedRevision[]>;
  /** The staged revisions not yet accepted, one per server at most. */
  revisions(): readonly StagedRevision[];
  /**
   * Takes the named tools of a staged revision (default: all it adds, changes or removes):
   * they are rebuilt from the revision's listing and callable again; a changed tool not named
   * stays stale. A rebuilt write catalog has a new digest, so approvals bound to the old one
   * are refused at claim. Runs after a listing in flight of that server, never beside one.
   * Throws `ConnectConfigError` `connect_revision_invalid` for a revision that is not staged
   * (already accepted, by this call's twin too, or replaced) or a tool it does not touch.
   *
   * @param revision a revision from {@link refresh} or {@link revisions}
   * @param options the tools to take
   */
  accept(revision: StagedRevision, options?: AcceptOptions): Promise<void>;
  /**
   * Tries a failed server again (`report().servers[i].status === "failed"`): a new session,
   * listed and checked as at set-up (against the connection's `lock` too). Its tools then join
   * the toolkit: `toolkit.tools` becomes a new frozen array (an array or provider export made
   * before stays as it was; export again to show a model the new tools), `report()` and its
   * `providers` include them, `lock()` covers the server. Resolves with the server's report;
   * a server that is not failed resolves at once, unchanged (a stdio server that exited counts
   * as failed: it is started anew). Concurrent calls share one attempt.
   *
   * @param id the server id
   * @throws {ConnectError} when the server still cannot be set up (its tools keep answering
   *   `mcp_server_unavailable`), or the connection is closed
   * @throws {ConnectConfigError} `connect_config_invalid` for an id this connection does not have
   */
  reconnect(id: string): Promise<ServerReport>;
  /** Closes every session (a legacy session is also deleted on the server). Idempotent. */
  close(): Promise<void>;
}

/**
 * One server's catalogs in a {@link Connection}.
 *
 * @category Agent developers: connect()
 */
export interface ServerCatalogs {
  /** Server id. */
  readonly server: string;
  /** The read catalog, or `null` when every allowed tool needs approval or none is ready. */
  readonly read: ReadSnapshot | null;
  /** The write catalog of the tools that need approval, or `null`. */
  readonly write: WriteSnapshot | null;
}

/** The frozen connection over a state that was set up. */
export function connectionOf(state: ConnectionState): Connection {
  const providers = new ProvidersReport();
  const { servers } = state;
  return Object.freeze({
    toolkit: state.toolkit,
    report: () => connectionReport(state, providers),
    catalogs: () =>
      servers.map((item) => ({
        server: item.server.id,
        read: item.catalog!.snapshot,
        write: item.catalog!.writeSnapshot,
      })),
    lockComparison: (id: string) => {
      const lock = servers.find((item) => item.server.id === id)?.catalog?.lock;
      return lock === undefined ? undefined : structuredClone(lock);
    },
    lock: () => lockOf(servers),
    refresh: () => refresh(state),
    revisions: () => servers.flatMap((item) => item.staged ? [item.staged.revision] : []),
    accept: (revision: StagedRevision, options?: AcceptOptions) => accept(state, revision, options),
    reconnect: (id: string) => reconnect(state, id),
    close: () => closeConnection(state),
  });
}
