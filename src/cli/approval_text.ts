/**
 * How `sluice approvals` prints an approval: one line in a list, or everything being approved
 * and its history. Every field is made terminal-safe on its own.
 *
 * @module
 */
import type { ApprovalEvent, ApprovalRecord } from "../approvals/types.ts";
import { terminalSafe, terminalSafeJson } from "./terminal.ts";

const iso = (ms: number) => new Date(ms).toISOString();

function expiryText(record: ApprovalRecord, now: number): string {
  const open = record.state === "pending" || record.state === "approved";
  return iso(record.expiresAt) + (open && record.expiresAt <= now ? " (past expiry)" : "");
}

export function listLine(record: ApprovalRecord, now: number): string {
  return [
    record.id,
    record.state.padEnd(11),
    record.effect.padEnd(11),
    `${record.serverId}/${record.toolName}`,
    `expires ${expiryText(record, now)}`,
  ].map(terminalSafe).join("  ");
}

/**
 * The full description of one approval, as people see it before deciding.
 *
 * @category CLI
 */
export function describeApproval(
  record: ApprovalRecord,
  events: readonly ApprovalEvent[],
  now: number,
): string {
  const lines: [string, string][] = [
    ["approval", record.id],
    ["state", record.state],
    ["server", record.serverId],
    ["tool", `${record.toolName} (remote ${record.remoteToolName})`],
    ["effect", record.effect],
    ["catalog digest", record.catalogDigest],
    ["binding", record.bindingId],
    ["scope", `${record.scopeId} (revision ${record.scopeRevision})`],
    ["expires", expiryText(record, now)],
    ["created", iso(record.createdAt)],
  ];
  if (record.runId !== undefined) lines.push(["run / call", `${record.runId} / ${record.callId}`]);
  if (record.decision !== undefined) {
    const note = record.decision.note === undefined ? "" : ` (${record.decision.note})`;
    lines.push([
      "decision",
      `${record.decision.decision} by ${record.decision.by} at ${iso(record.decision.at)}${note}`,
    ]);
  }
  if (record.claimedAt !== undefined) lines.push(["claimed", iso(record.claimedAt)]);
  if (record.refusal !== undefined) lines.push(["refused", record.refusal.code]);
  if (record.receipt !== undefined) {
    lines.push(["receipt", `${record.receipt.resultDigest} at ${iso(record.receipt.at)}`]);
  }
  if (record.outcomeReason !== undefined) lines.push(["outcome reason", record.outcomeReason]);
  if (record.supersededBy !== undefined) lines.push(["superseded by", record.supersededBy]);
  if (record.supersedes !== undefined) lines.push(["edit of", record.supersedes]);
  if (record.grantId !== undefined) lines.push(["grant", record.grantId]);
  if (record.reconciliation !== undefined) {
    const r = record.reconciliation;
    lines.push(["reconciled", `${r.outcome} by ${r.by} at ${iso(r.at)}: ${r.evidence}`]);
  }
  lines.push(["arguments digest", record.argumentsDigest]);
  // Every field is escaped on its own, so a newline or U+2028 in a name, note or argument can
  // never start a line of its own; only the layout below breaks lines.
  const out = lines.map(([key, value]) => `${(key + ":").padEnd(18)}${terminalSafe(value)}`);
  out.push("arguments:", terminalSafeJson(record.arguments, 2));
  out.push("history:");
  for (const event of events) {
    const by = event.by === undefined ? "" : ` by ${event.by}`;
    const detail = event.detail === undefined ? "" : ` (${event.detail})`;
    out.push(terminalSafe(`  ${iso(event.at)}  ${event.from ?? "-"} -> ${event.to}${by}${detail}`));
  }
  return out.join("\n");
}
