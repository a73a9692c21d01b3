/**
 * A connection's report: each server's state and the ready and skipped tools, with the provider
 * exports of the toolkit of now.
 *
 * @module
 */
import type { ApprovalDecider } from "../catalog/bindings.ts";
import { toolStatus } from "../calls/call_plan.ts";
import { reportOf } from "../providers/reports.ts";
import type { ConnectAllConfig } from "./config.ts";
import type { ConnectionState } from "./connection_state.ts";
import { serverFailureReason } from "./failure.ts";
import {
  type ChangeMechanism,
  type ConnectReport,
  reportedLock,
  type ReportedProviders,
  reportedProviders,
  type ServerReport,
} from "./report.ts";
import type { ServerState } from "./server_state.ts";
import { type Toolkit, toolkitExports } from "./toolkit.ts";

/** How a server's tool list changes reach the connection now. */
function mechanismOf(item: ServerState): ChangeMechanism {
  const stream = item.session.changeStream;
  if (stream !== undefined) return stream;
  if (item.ttlMs !== undefined) return "ttl";
  return item.session.era === "legacy" ? "notifications" : "none";
}

/** The stale ready tools of a server, and why (the first change not yet resolved). */
function staleOf(item: ServerState): Pick<ServerReport, "stale" | "staleTools"> {
  const stale = item.catalog!.tools.filter((tool) => toolStatus(tool.plan) === "stale")
    .map((tool) => tool.allowed.tool);
  if (stale.length === 0) return {};
  const monitor = item.monitor;
  const since = item.catalog!.listing?.generation ?? 0;
  return { stale: monitor.staleReason(since) ?? "tools_list_changed", staleTools: stale };
}

/** One server's state. */
export function serverReport(item: ServerState, config: ConnectAllConfig): ServerReport {
  const { session, catalog } = item;
  const era = session.era;
  const errorCode = catalog!.errorCode;
  return {
    id: item.server.id,
    status: errorCode !== undefined ? "failed" : era ? "ready" : "deferred",
    ...(era ? { era, protocolVersion: session.protocolVersion } : {}),
    ...(errorCode !== undefined
      ? { errorCode, reason: serverFailureReason(errorCode, item.server.url) }
      : {}),
    catalogDigest: catalog!.snapshot?.revisionDigest ?? null,
    writeCatalogDigest: catalog!.writeSnapshot?.revisionDigest ?? null,
    transport: item.fetch.describe(),
    handshakes: session.stats.handshakes,
    ...staleOf(item),
    ...(config.changeDetection === true ? { changeDetection: mechanismOf(item) } : {}),
    ...(catalog!.lock ? { lock: reportedLock(catalog!.lock) } : {}),
    ...(session.diagnostics !== undefined ? { stdio: session.diagnostics } : {}),
  };
}

function buildReport(
  servers: readonly ServerState[],
  decidedBy: ApprovalDecider,
  config: ConnectAllConfig,
): Omit<ConnectReport, "providers"> {
  const ready = servers.flatMap((item) =>
    item.catalog!.tools.map((tool) => ({
      name: tool.allowed.localName,
      server: tool.allowed.server,
      tool: tool.allowed.tool,
      requiresApproval: tool.policy.requiresApproval,
      approvalReason: tool.policy.reason,
      source: tool.source,
      ...(tool.policy.requiresApproval ? { decidedBy } : {}),
      deferred: tool.policy.requiresApproval && decidedBy === "store",
      ...(tool.screen !== undefined ? { screen: tool.screen } : {}),
    }))
  );
  const skipped = servers.flatMap((item) => item.catalog!.skipped);
  return structuredClone({
    ready,
    skipped,
    servers: servers.map((item) => serverReport(item, config)),
  });
}

/**
 * The provider exports depend only on the model-facing tools, a frozen array the toolkit
 * replaces when a revision is accepted: each mode is made once per such array, when first
 * read, from the toolkit's own exports (which its toOpenAITools() and the rest return).
 */
export class ProvidersReport {
  #shown: { tools: Toolkit["tools"]; reports: ReportedProviders } | undefined;

  /** The provider reports of the toolkit's tools of now. */
  of(toolkit: Toolkit): ReportedProviders {
    if (this.#shown?.tools !== toolkit.tools) {
      const exports = toolkitExports(toolkit);
      this.#shown = {
        tools: toolkit.tools,
        reports: reportedProviders((mode) => reportOf(exports, mode), toolkit.tools),
      };
    }
    return this.#shown.reports;
  }
}

/** The connection's report: every server, tool and provider export of now. */
export function connectionReport(
  state: ConnectionState,
  providers: ProvidersReport,
): ConnectReport {
  return {
    ...buildReport(state.servers, state.decidedBy, state.config),
    providers: providers.of(state.toolkit),
  };
}
