/**
 * What the gate's traces say about each tool, built once from the catalogs when the host passed
 * telemetry (never otherwise).
 *
 * @module
 */
import type { TracedTool } from "../telemetry/call_trace.ts";
import type { GateTool } from "./admission.ts";
import type { GateCatalog } from "./types.ts";

/**
 * The traced facts of every tool of the gate, by local name: the server and digests from the
 * catalog's snapshot (when it carries one) and the write binding.
 *
 * @param catalogs the gate's catalogs
 * @param tools the gate's tools by local name
 *
 * @category Gate
 */
export function tracedTools(
  catalogs: readonly GateCatalog[],
  tools: ReadonlyMap<string, GateTool>,
): Map<string, TracedTool> {
  const traced = new Map<string, TracedTool>();
  for (const catalog of catalogs) {
    const snapshot = catalog.snapshot;
    for (const plan of catalog.calls) {
      const tool = tools.get(plan.entry.localName);
      if (tool === undefined) continue;
      const binding = tool.kind === "write" ? tool.binding : undefined;
      const serverId = binding?.serverId ?? snapshot?.serverId;
      traced.set(plan.entry.localName, {
        remoteName: plan.entry.remoteName,
        localName: plan.entry.localName,
        protocolVersion: () => plan.monitor.protocolVersion,
        ...(serverId !== undefined ? { serverId } : {}),
        ...(binding === undefined && snapshot !== undefined
          ? { snapshotDigest: snapshot.revisionDigest }
          : {}),
        ...(binding !== undefined
          ? {
            writeCatalogDigest: binding.catalogDigest,
            bindingId: binding.bindingId,
            effect: binding.effect,
          }
          : {}),
        ...(snapshot?.verdicts !== undefined ? { verdicts: snapshot.verdicts } : {}),
      });
    }
  }
  return traced;
}
