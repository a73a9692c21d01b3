/**
 * Approval by a standing grant: one batch spends a use of the grant (a guarded `UPDATE` of its
 * row) and moves the approval `pending → approved` only if that use was recorded for it. A grant
 * with an arguments schema is read first and its schema checked against the approval's
 * arguments (both written once, so the check cannot go stale before the batch).
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import { grantDecider } from "../grants.ts";
import type { GrantApprovalResult } from "../types.ts";
import { applied, type ApprovalRows, ATTEMPTS } from "./approval_rows.ts";
import type { SqlConnection } from "./connection.ts";
import type { GrantRows } from "./grant_rows.ts";
import { toGrant } from "./rows.ts";

/** Approves `approvalId` by `grantId` at `at`, or says why not. */
export async function approveByGrantAt(
  db: SqlConnection,
  rows: ApprovalRows,
  grants: GrantRows,
  approvalId: string,
  grantId: string,
  at: number,
): Promise<GrantApprovalResult> {
  const refused = await grantSchemaRefusal(rows, grants, approvalId, grantId, at);
  if (refused !== undefined) return { ok: false, code: refused };
  const by = grantDecider(grantId);
  // Where writers run side by side, the approval's row is locked first: two grants racing for
  // one approval then never both spend a use on it.
  const lock = db.dialect.rowLock;
  const locking = lock === undefined
    ? []
    : [{ sql: `SELECT id FROM approvals WHERE id = ?${lock}`, args: [approvalId] }];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [used, approved] = (await db.batch([
      ...locking,
      grants.use(approvalId, grantId, at),
      rows.update(approvalId, "pending", "approved", {
        decided_by: by,
        decided_at: at,
        decision_note: null,
        grant_id: grantId,
      }, {
        sql: "EXISTS (SELECT 1 FROM approval_grants WHERE id = ? AND last_approval_id = ?)",
        args: [grantId, approvalId],
      }, true),
    ])).slice(locking.length);
    if (applied(used, true) && applied(approved, true)) {
      rows.forget(approvalId);
      return {
        ok: true,
        approval: rows.remember(rows.fields(approved.rows[0])),
        grant: toGrant(used.rows[0]),
      };
    }
    const record = await rows.read(approvalId);
    if (record === undefined) return { ok: false, code: "approval_not_found" };
    const grant = await grants.read(grantId);
    if (grant === undefined) return { ok: false, code: "approval_grant_not_found" };
    const code = grants.refusal(grant, record, at);
    if (code !== undefined) return { ok: false, code };
  }
  throw new ApprovalError(
    "approval_invalid_transition",
    `approval ${approvalId} kept changing`,
  );
}

/**
 * Why the grant may not approve the approval when its arguments schema decides it (the grant
 * or the approval missing, or the schema refusing the arguments); `undefined` otherwise, and for
 * a grant without a schema, whose use the batch alone decides.
 */
async function grantSchemaRefusal(
  rows: ApprovalRows,
  grants: GrantRows,
  approvalId: string,
  grantId: string,
  at: number,
): Promise<Extract<GrantApprovalResult, { ok: false }>["code"] | undefined> {
  const grant = await grants.read(grantId);
  if (grant === undefined) return "approval_grant_not_found";
  if (grant.argumentsSchema === undefined) return undefined;
  const record = await rows.read(approvalId);
  if (record === undefined) return "approval_not_found";
  return grants.refusal(grant, record, at);
}
