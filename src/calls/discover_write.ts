/**
 * Write discovery: the bound write tools of one server into a `schemaVersion: 2` catalog and
 * write registrations that only a `Gate` runs.
 *
 * @module
 */
import type { SdkClientLike } from "../session/from_client.ts";
import type { McpSession } from "../session/session.ts";
import type { UnfitTool } from "../catalog/selection.ts";
import {
  buildWriteSnapshot,
  mapByLocalName,
  type WriteSnapshot,
  type WriteSnapshotEntry,
} from "../catalog/snapshot.ts";
import {
  resolveWriteBindings,
  type WriteEffect,
  type WritePolicy,
  type WriteToolBindings,
} from "../catalog/write_bindings.ts";
import type { ToolRegistration } from "./registration.ts";
import type { ApprovalBindingFields, CallPlan } from "./call_plan.ts";
import { callPlanOf, discovered, type DiscoverOptions, findBound, unfitOf } from "./discover.ts";
import type { StaleReason } from "../catalog/monitor.ts";

/**
 * The identity an approval of this tool is bound to. `bindingRevision` is the complete
 * write-catalog digest (the snapshot's `revisionDigest`), which covers the host's own binding
 * revision, the server identity, every schema and the scope identity; it is never the host's
 * revision string itself, so a changed schema invalidates approvals just like a changed binding.
 *
 * @category Discovery and calls
 */
export interface WriteApprovalBinding {
  /** The host's binding id. */
  readonly bindingId: string;
  /** The write-catalog digest (`sha256:<hex>`). */
  readonly bindingRevision: string;
  /** The host's scope id. */
  readonly scopeId: string;
  /** The host's scope revision. */
  readonly scopeRevision: string;
  /** The declared effect. */
  readonly effect: WriteEffect;
}

/**
 * A write tool of a write catalog: the fields of a read {@link ToolRegistration} (the
 * description is model-facing and grants nothing) plus the identity its approvals are bound
 * to. Like every registration it is plain data: its calls run through a `Gate`, which gets a
 * durable approval first.
 *
 * @category Discovery and calls
 */
export interface WriteToolRegistration
  extends Omit<ToolRegistration, "policy" | "concurrencySafe"> {
  /** The host's id for the server. */
  readonly serverId: string;
  /** The host's confirm policy. */
  readonly policy: WritePolicy;
  /** Always `false`. */
  readonly concurrencySafe: false;
  /** What an approval of a call to this tool is bound to. */
  readonly approvalBinding: WriteApprovalBinding;
}

/**
 * What write discovery returns: the frozen write snapshot, its registrations and their call
 * plans (same order), for a `Gate`.
 *
 * @category Discovery and calls
 */
export interface WriteDiscoveryResult {
  /** The detached, deeply frozen write catalog (`schemaVersion: 2`). */
  readonly snapshot: WriteSnapshot;
  /** Write tools, one per snapshot entry, sorted by local name. */
  readonly registrations: readonly WriteToolRegistration[];
  /** What a `Gate` runs each tool's calls with, one per registration, same order. */
  readonly calls: readonly CallPlan[];
  /** Bound tools left out with `onUnfit: "skip"`, each with its error (empty otherwise). */
  readonly skipped: readonly UnfitTool[];
  /** `true` when a change was heard while discovery was listing (see `DiscoveryResult`). */
  readonly stale: boolean;
  /** Why, when `stale`. */
  readonly staleReason?: StaleReason;
}

/**
 * Discovers the bound write tools of one server into a `schemaVersion: 2` snapshot that records
 * the host's authorization identity, and write registrations for a `Gate`. Every binding must
 * state `policy: { mode: "confirm", title, effect }` with the same `effect` as the binding, a
 * scope validator function, and non-empty `bindingId`, `bindingRevision`, `scopeId` and
 * `scopeRevision`; server annotations never grant or waive any of it. The listing, schema and
 * budget checks are the read discovery's.
 *
 * Throws a `DiscoveryError` (codes `binding_*`, `limits_invalid`, `mcp_*`).
 *
 * @param source the host's connected SDK client (v1 or v2), or a session
 * @param serverId the host's id for this server
 * @param bindings the host's write bindings keyed by remote tool name
 * @param options the session's monitor, optional limits, listing, skip rule and abort signal
 *
 * @example
 * ```ts
 * import { type CatalogMonitor, discoverWriteTools } from "@sluice/mcp";
 * import type { Client } from "@modelcontextprotocol/client";
 * declare const client: Client, monitor: CatalogMonitor; // connected, as for discoverTools
 *
 * const writes = await discoverWriteTools(client, "records", {
 *   write_record: {
 *     localName: "save_record",
 *     policy: { mode: "confirm", title: "Save a record", effect: "write" },
 *     effect: "write",
 *     scope: (state, args) => args.key === "allowed" ? undefined : "other key",
 *     bindingId: "records.save",
 *     bindingRevision: "3",
 *     scopeId: "team-a",
 *     scopeRevision: "12",
 *   },
 * }, { monitor });
 * ```
 *
 * @category Discovery and calls
 */
export async function discoverWriteTools(
  source: SdkClientLike | McpSession,
  serverId: string,
  bindings: WriteToolBindings,
  options: DiscoverOptions,
): Promise<WriteDiscoveryResult> {
  const found = await findBound(source, serverId, () => resolveWriteBindings(bindings), options);
  const entries = found.selected.map((item): WriteSnapshotEntry => ({
    ...item.base,
    policy: item.binding.policy,
    concurrencySafe: false,
    authorization: {
      bindingId: item.binding.bindingId,
      bindingRevision: item.binding.bindingRevision,
      scopeId: item.binding.scopeId,
      scopeRevision: item.binding.scopeRevision,
      effect: item.binding.policy.effect,
    },
  }));
  const snapshot = await buildWriteSnapshot({ ...found.header, entries });
  const registrations = snapshot.entries.map((entry) =>
    createWriteRegistration(serverId, entry, snapshot.revisionDigest)
  );
  const calls = mapByLocalName(
    snapshot.entries,
    found.selected,
    (item) => item.base.localName,
    (entry, item) => ({ entry, item }),
  ).map(({ entry, item }, index) =>
    callPlanOf(found, entry, item, {
      approval: {
        binding: approvalFieldsOf(registrations[index]),
        decidedBy: entry.policy.decidedBy,
      },
    })
  );
  return discovered({ snapshot, registrations, ...unfitOf(found) }, calls);
}

/**
 * The binding identity of a write registration, as an approval records it.
 *
 * @param registration the write registration
 *
 * @category Discovery and calls
 */
export function approvalFieldsOf(registration: WriteToolRegistration): ApprovalBindingFields {
  const binding = registration.approvalBinding;
  return Object.freeze({
    serverId: registration.serverId,
    toolName: registration.localName,
    remoteToolName: registration.remoteName,
    catalogDigest: binding.bindingRevision,
    bindingId: binding.bindingId,
    scopeId: binding.scopeId,
    scopeRevision: binding.scopeRevision,
    effect: binding.effect,
  });
}

/**
 * Builds the frozen write registration of one write-snapshot entry. Its
 * `approvalBinding.bindingRevision` is the whole write catalog's digest.
 *
 * @param serverId the host's id for the server
 * @param entry the frozen write-snapshot entry
 * @param revisionDigest the write snapshot's `revisionDigest`
 *
 * @category Discovery and calls
 */
export function createWriteRegistration(
  serverId: string,
  entry: WriteSnapshotEntry,
  revisionDigest: string,
): WriteToolRegistration {
  const { authorization } = entry;
  return Object.freeze({
    localName: entry.localName,
    remoteName: entry.remoteName,
    serverId,
    title: entry.policy.title,
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    policy: entry.policy,
    concurrencySafe: false,
    approvalBinding: Object.freeze({
      bindingId: authorization.bindingId,
      bindingRevision: revisionDigest,
      scopeId: authorization.scopeId,
      scopeRevision: authorization.scopeRevision,
      effect: authorization.effect,
    }),
  });
}
