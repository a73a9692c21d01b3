/**
 * Staged revisions of connect(): a later listing of a server's allowed tools beside the
 * current catalog, never replacing it, with the structured diff a host reviews before
 * `connection.accept()`.
 *
 * @module
 */
import type { CatalogDiff, DefinitionField } from "../catalog/revisions.ts";

/**
 * A listing of one server staged beside its current catalog.
 *
 * @category Agent developers: connect()
 */
export interface StagedRevision {
  /** Unique within the connection: `<server>#<n>`. */
  readonly id: string;
  /** Server id. */
  readonly server: string;
  /** The session's protocol version when it was listed. */
  readonly protocolVersion: string;
  /**
   * The allowed tools' definitions now against the ones the connection runs: `changed` tools
   * stay stale (`mcp_catalog_stale`) until accepted, `added` ones are not callable until
   * accepted, `unchanged` ones kept working. Tools outside the allowlist are never read.
   */
  readonly diff: CatalogDiff;
}

/**
 * Options of `connection.accept()`.
 *
 * @category Agent developers: connect()
 */
export interface AcceptOptions {
  /**
   * The changed, added or removed tools (remote names) to take from the revision; default
   * all of them. A changed tool not named stays stale; a removed one named leaves the toolkit.
   */
  readonly tools?: readonly string[];
}

/**
 * What a `revision` event says: digests and field names, never remote text.
 *
 * @category Agent developers: connect()
 */
export interface RevisionSummary {
  /** The revision's id. */
  readonly id: string;
  /** Added tools and their entry digests. */
  readonly added: readonly { readonly tool: string; readonly digest: string }[];
  /** Removed tools and their entry digests. */
  readonly removed: readonly { readonly tool: string; readonly digest: string }[];
  /** Changed tools: digests before and after, and the names of the changed fields. */
  readonly changed: readonly {
    readonly tool: string;
    readonly beforeDigest: string;
    readonly afterDigest: string;
    readonly fields: readonly DefinitionField[];
  }[];
  /** How many allowed tools are unchanged. */
  readonly unchanged: number;
}

/**
 * The event form of a revision: no description, schema or other text of the server.
 *
 * @param revision the staged revision
 *
 * @category Agent developers: connect()
 */
export function summarize(revision: StagedRevision): RevisionSummary {
  const { diff } = revision;
  return {
    id: revision.id,
    added: diff.added.map(({ tool, digest }) => ({ tool, digest })),
    removed: diff.removed.map(({ tool, digest }) => ({ tool, digest })),
    changed: diff.changed.map(({ tool, beforeDigest, afterDigest, fields }) => ({
      tool,
      beforeDigest,
      afterDigest,
      fields,
    })),
    unchanged: diff.unchanged.length,
  };
}

/**
 * Whether a diff has anything to decide.
 *
 * @category Agent developers: connect()
 */
export function hasChanges(diff: CatalogDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length > 0;
}
