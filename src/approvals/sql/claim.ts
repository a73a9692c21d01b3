/**
 * The claim of an approval, the one step that consumes it: one conditional `UPDATE` that checks
 * state, expiry and the whole expectation; when it changes no row, the record is read and the
 * reason recorded with another guarded statement (a refused claim as one atomic batch).
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";
import { planClaim } from "../machine.ts";
import type { ClaimExpectation, ClaimResult } from "../types.ts";
import { applied, type ApprovalRows, ATTEMPTS } from "./approval_rows.ts";
import type { SqlConnection } from "./connection.ts";

/** Claims approval `id` at `at` if it still matches `expected`, else says why not. */
export async function claimApproval(
  db: SqlConnection,
  rows: ApprovalRows,
  id: string,
  expected: ClaimExpectation,
  at: number,
): Promise<ClaimResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const claimed = await rows.move(id, "approved", "claimed", { claimed_at: at }, {
      sql: `expires_at > ? AND server_id = ? AND tool_name = ? AND remote_tool_name = ?
        AND catalog_digest = ? AND binding_id = ? AND scope_id = ? AND scope_revision = ?
        AND effect = ? AND arguments_digest = ?`,
      args: [
        at,
        expected.serverId,
        expected.toolName,
        expected.remoteToolName,
        expected.catalogDigest,
        expected.bindingId,
        expected.scopeId,
        expected.scopeRevision,
        expected.effect,
        expected.argumentsDigest,
      ],
    });
    if (claimed !== undefined) return { ok: true, approval: claimed };
    const record = await rows.read(id);
    if (record === undefined) return { ok: false, code: "approval_not_found" };
    const plan = planClaim(record, expected, at);
    switch (plan.kind) {
      case "claim":
        // It was claimable a moment after the UPDATE missed it: it moved; look again.
        continue;
      case "refuse":
        return { ok: false, code: plan.code, approval: record };
      case "expire": {
        const expired = await rows.move(id, record.state, "expired", { expired_at: at });
        if (expired !== undefined) {
          return { ok: false, code: "approval_expired", approval: expired };
        }
        continue;
      }
      case "consume": {
        // The refusal is recorded with the claim, so the claim's event names it too; both
        // statements in one batch, so nobody sees the refused claim half done.
        const code = plan.code;
        const [, consumed] = await db.batch([
          rows.update(
            id,
            "approved",
            "claimed",
            {
              claimed_at: at,
              refusal_code: code,
              refused_at: at,
            },
            { sql: "expires_at > ?", args: [at] },
            false,
          ),
          rows.update(
            id,
            "claimed",
            "not_started",
            {
              outcome_reason: code,
              outcome_at: at,
            },
            { sql: "refusal_code = ?", args: [code] },
            true,
          ),
        ]);
        if (applied(consumed, true)) {
          return {
            ok: false,
            code,
            approval: rows.remember(rows.fields(consumed.rows[0])),
          };
        }
        continue;
      }
    }
  }
  throw new ApprovalError("approval_invalid_transition", `approval ${id} kept changing`);
}
