/**
 * Standing grants at the gate: creating one (its arguments schema compiled with sluice's own
 * schema profile first, so every store refuses the same schemas the same way) and using one for a
 * pending call (the store checks the arguments against the grant's schema and consumes one use
 * atomically).
 *
 * @module
 */
import { compileSchema } from "../schema/compile.ts";
import { grantRefusal } from "../approvals/grants.ts";
import type {
  ApprovalGrant,
  ApprovalRecord,
  ApprovalStore,
  GrantInput,
} from "../approvals/types.ts";

/**
 * Records a standing grant. A grant's `argumentsSchema` is compiled with sluice's schema profile
 * before the store sees it: a schema the profile refuses throws `schema_unsupported` and nothing
 * is stored. Everything else is checked by the store (`approval_invalid_request`).
 *
 * @example
 * ```ts
 * import { type ApprovalRecord, type ApprovalStore, createGrant } from "@sluice/mcp";
 * declare const store: ApprovalStore, approval: ApprovalRecord;
 *
 * await createGrant(store, {
 *   serverId: "records", toolName: "write_record", bindingId: "records-write",
 *   catalogDigest: approval.catalogDigest, runId: "run-42", maxUses: 2,
 *   argumentsSchema: { type: "object", properties: { key: { pattern: "^draft-" } } },
 *   by: "alice",
 * });
 * ```
 *
 * @category Gate
 */
export async function createGrant(store: ApprovalStore, input: GrantInput): Promise<ApprovalGrant> {
  if (input?.argumentsSchema !== undefined) compileSchema(input.argumentsSchema);
  return await store.createGrant(input);
}

/**
 * The grant input that covers the tool of `approval` (server, tool, binding, catalog digest).
 *
 * @category Gate
 */
export function grantScopeOf(
  approval: ApprovalRecord,
): Pick<GrantInput, "serverId" | "toolName" | "bindingId" | "catalogDigest"> {
  return {
    serverId: approval.serverId,
    toolName: approval.toolName,
    bindingId: approval.bindingId,
    catalogDigest: approval.catalogDigest,
  };
}

/**
 * Uses standing grants for a gate's pending calls.
 *
 * @category Gate
 */
export class GrantUser {
  /**
   * Tries every grant of the call's tool that could approve `record` at `now`; the store checks
   * each grant's arguments schema against the call's arguments and consumes a use atomically.
   * Returns the approved record, or `undefined` when no grant approved it (the call then waits
   * for a person as usual). Store failures are that too: a grant never fails a call.
   */
  async approve(
    store: ApprovalStore,
    record: ApprovalRecord,
    now: number,
  ): Promise<ApprovalRecord | undefined> {
    let grants: ApprovalGrant[];
    try {
      grants = await store.listGrants({ serverId: record.serverId, toolName: record.toolName });
    } catch {
      return undefined;
    }
    for (const grant of grants) {
      if (grantRefusal(grant, record, now) !== undefined) continue;
      try {
        const result = await store.approveByGrant(record.id, grant.id, now);
        if (result.ok) return result.approval;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}
