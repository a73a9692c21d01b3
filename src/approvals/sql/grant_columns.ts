/**
 * The columns of the `approval_grants` table and its history, and the pieces of trigger SQL both
 * schemas (SQLite, PostgreSQL) write the same way: what may change on a grant (one more use with
 * the approval it approved, or a revocation, once) and the event each change appends.
 *
 * @module
 */

/**
 * Columns that say what a grant covers and who granted it; they never change.
 *
 * @category Approvals
 */
export const GRANT_IDENTITY_COLUMNS: readonly string[] = Object.freeze([
  "id",
  "server_id",
  "tool_name",
  "binding_id",
  "catalog_digest",
  "run_id",
  "expires_at",
  "max_uses",
  "arguments_schema_json",
  "granted_by",
  "note",
  "created_at",
]);

/**
 * Every column of `approval_grants`.
 *
 * @category Approvals
 */
export const GRANT_COLUMNS: readonly string[] = Object.freeze([
  ...GRANT_IDENTITY_COLUMNS,
  "uses",
  "last_approval_id",
  "last_used_at",
  "revoked_by",
  "revoked_at",
]);

/**
 * The columns of `approval_grant_events`, in table order.
 *
 * @category Approvals
 */
export const GRANT_EVENT_COLUMNS: readonly string[] = Object.freeze([
  "grant_id",
  "seq",
  "kind",
  "at",
  "by",
  "approval_id",
]);

/**
 * The table checks of a grant, shared by both schemas.
 *
 * @category Approvals
 */
export const GRANT_CHECKS_SQL = {
  /** Uses within `0..max_uses`. */
  uses: "uses >= 0 AND uses <= max_uses",
  /** A grant ends: with its run, at a time, or both. */
  bounded: "run_id IS NOT NULL OR expires_at IS NOT NULL",
  /** A revocation records who and when together. */
  revoked: "(revoked_by IS NULL) = (revoked_at IS NULL)",
} as const;

/**
 * The condition under which an `UPDATE` of a grant is refused, given how the database says "this
 * column changed" (`IS NOT` in SQLite, `IS DISTINCT FROM` in PostgreSQL): a revoked grant is
 * immutable; what it covers never changes; `uses` only grows by one, and exactly then does the
 * approval it approved and the instant change, never at or past the grant's expiry.
 *
 * @category Approvals
 */
export function grantUpdateRefusedSql(changed: (column: string) => string): string {
  return `OLD.revoked_at IS NOT NULL
          OR ${GRANT_IDENTITY_COLUMNS.map(changed).join(" OR ")}
          OR (NEW.uses <> OLD.uses AND NEW.uses <> OLD.uses + 1)
          OR (NEW.uses = OLD.uses AND (${changed("last_approval_id")} OR ${
    changed("last_used_at")
  }))
          OR (NEW.uses = OLD.uses + 1 AND (NEW.last_approval_id IS NULL
            OR NEW.last_used_at IS NULL OR NOT (${changed("last_approval_id")})
            OR (NEW.expires_at IS NOT NULL AND NEW.last_used_at >= NEW.expires_at)))`;
}

/**
 * The first event of a grant, appended by a trigger on insertion.
 *
 * @category Approvals
 */
export const GRANT_CREATED_EVENT_SQL =
  `INSERT INTO approval_grant_events (grant_id, seq, kind, at, by, approval_id)
            VALUES (NEW.id, 1, 'created', NEW.created_at, NEW.granted_by, NULL)`;

/**
 * The event of one use, appended by a trigger when `uses` grows.
 *
 * @category Approvals
 */
export const GRANT_USED_EVENT_SQL =
  `INSERT INTO approval_grant_events (grant_id, seq, kind, at, by, approval_id)
            VALUES (NEW.id, (SELECT max(seq) + 1 FROM approval_grant_events WHERE grant_id = NEW.id),
              'used', NEW.last_used_at, NULL, NEW.last_approval_id)`;

/**
 * The event of a revocation, appended by a trigger when `revoked_at` is set.
 *
 * @category Approvals
 */
export const GRANT_REVOKED_EVENT_SQL =
  `INSERT INTO approval_grant_events (grant_id, seq, kind, at, by, approval_id)
            VALUES (NEW.id, (SELECT max(seq) + 1 FROM approval_grant_events WHERE grant_id = NEW.id),
              'revoked', NEW.revoked_at, NEW.revoked_by, NULL)`;

/**
 * The condition under which a new approval's `supersedes` link is refused: it must name an
 * approval already `superseded` by this one (so an edit is never half recorded).
 *
 * @category Approvals
 */
export const SUPERSEDES_REFUSED_SQL = `NEW.supersedes IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM approvals AS original WHERE original.id = NEW.supersedes
            AND original.state = 'superseded' AND original.superseded_by = NEW.id)`;
