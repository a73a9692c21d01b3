/**
 * The rows of the `approval_grants` table and its events as `SqlApprovalStore` writes and reads
 * them: a grant inserted at most once per id, revoked by a guarded `UPDATE`, and the statement
 * that spends one use of a grant on one approval.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import { GrantSchemas, requireSameGrant } from "../grants.ts";
import type {
  ApprovalGrant,
  ApprovalRecord,
  GrantEvent,
  GrantFilter,
  GrantInput,
  GrantRefusalCode,
  RevokeGrantInput,
} from "../types.ts";
import { applied } from "./approval_rows.ts";
import type { SqlConnection, SqlStatement } from "./connection.ts";
import { GRANT_COLUMNS, GRANT_EVENT_COLUMNS } from "./grant_columns.ts";
import { grantFields, type SqlValue, toGrant, toGrantEvent } from "./rows.ts";

const GRANT_SELECT = `SELECT ${GRANT_COLUMNS.join(", ")} FROM approval_grants`;

/**
 * One use of a grant for one approval: only while the grant is unrevoked, unexpired and not
 * exhausted, and covers the approval, which is still pending and unexpired. The database decides
 * the race: of concurrent uses, only those that still find a use left change the row.
 */
const USE_GRANT_SQL = `UPDATE approval_grants
  SET uses = uses + 1, last_approval_id = ?, last_used_at = ?
  WHERE id = ? AND revoked_at IS NULL AND uses < max_uses
    AND (expires_at IS NULL OR expires_at > ?)
    AND EXISTS (SELECT 1 FROM approvals AS a WHERE a.id = ? AND a.state = 'pending'
      AND a.expires_at > ? AND a.server_id = approval_grants.server_id
      AND a.tool_name = approval_grants.tool_name AND a.binding_id = approval_grants.binding_id
      AND a.catalog_digest = approval_grants.catalog_digest
      AND (approval_grants.run_id IS NULL OR a.run_id = approval_grants.run_id))
  RETURNING ${GRANT_COLUMNS.join(", ")}`;

/** The grants table of one connection. */
export class GrantRows {
  readonly #db: SqlConnection;
  readonly #now: () => number;
  readonly #schemas = new GrantSchemas();

  /**
   * @param db the store's connection
   * @param now the store's clock
   */
  constructor(db: SqlConnection, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /**
   * Records a standing grant (its arguments schema already checked, as `schema`), or returns
   * the one its caller-chosen id names (same terms): the insertion does nothing when the id is
   * taken, so of concurrent replays one inserts.
   */
  async create(input: GrantInput, schema: string | null): Promise<ApprovalGrant> {
    const fields = grantFields(input, schema, input.id ?? crypto.randomUUID(), this.#now());
    const returning = !this.#db.dialect.exactChanges;
    const [inserted] = await this.#db.batch([{
      sql: `INSERT INTO approval_grants (${GRANT_COLUMNS.join(", ")})
        VALUES (${GRANT_COLUMNS.map(() => "?").join(", ")})
        ON CONFLICT (id) DO NOTHING${returning ? " RETURNING id" : ""}`,
      args: GRANT_COLUMNS.map((column) => fields[column]),
    }]);
    if (applied(inserted, returning)) return toGrant(fields);
    const stored = await this.read(String(fields.id));
    if (stored === undefined) {
      throw new ApprovalError("approval_store_error", "the grant was not inserted");
    }
    return requireSameGrant(stored, input, schema);
  }

  /** One grant, or `undefined`. */
  async read(id: string): Promise<ApprovalGrant | undefined> {
    const [row] = await this.#db.query({ sql: `${GRANT_SELECT} WHERE id = ?`, args: [id] });
    return row === undefined ? undefined : toGrant(row);
  }

  /** Grants, oldest first. */
  async list(filter: GrantFilter): Promise<ApprovalGrant[]> {
    const where: string[] = [];
    const args: SqlValue[] = [];
    if (filter.serverId !== undefined) where.push("server_id = ?"), args.push(filter.serverId);
    if (filter.toolName !== undefined) where.push("tool_name = ?"), args.push(filter.toolName);
    const rows = await this.#db.query({
      sql: `${GRANT_SELECT}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}
        ORDER BY created_at, id`,
      args,
    });
    return rows.map(toGrant);
  }

  /** A person revokes a grant (the input already checked). */
  async revoke(id: string, input: RevokeGrantInput): Promise<ApprovalGrant> {
    const [result] = await this.#db.batch([{
      sql: `UPDATE approval_grants SET revoked_by = ?, revoked_at = ?
        WHERE id = ? AND revoked_at IS NULL RETURNING ${GRANT_COLUMNS.join(", ")}`,
      args: [input.by, this.#now(), id],
    }]);
    if (result.rows.length === 1) return toGrant(result.rows[0]);
    const grant = await this.read(id);
    if (grant === undefined) {
      throw new ApprovalError("approval_grant_not_found", `no grant ${id}`);
    }
    throw new ApprovalError("approval_grant_revoked", `grant ${id} is already revoked`);
  }

  /** The grant's history, oldest first. */
  async events(id: string): Promise<GrantEvent[]> {
    const rows = await this.#db.query({
      sql: `SELECT ${GRANT_EVENT_COLUMNS.join(", ")} FROM approval_grant_events
        WHERE grant_id = ? ORDER BY seq`,
      args: [id],
    });
    return rows.map(toGrantEvent);
  }

  /** The statement that spends one use of `grantId` on `approvalId` at `at`. */
  use(approvalId: string, grantId: string, at: number): SqlStatement {
    return { sql: USE_GRANT_SQL, args: [approvalId, at, grantId, at, approvalId, at] };
  }

  /** Why `grant` may not approve `record` at `at`, or `undefined`. */
  refusal(grant: ApprovalGrant, record: ApprovalRecord, at: number): GrantRefusalCode | undefined {
    return this.#schemas.refusal(grant, record, at);
  }
}
