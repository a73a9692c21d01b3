import type { JsonObject } from "../identity/mod.ts";
import type { SdkClientLike } from "../calls/session.ts";
import { attachCallInternals, createCallLayers } from "../calls/registration.ts";
import { type DiscoverOptions, discoverSelection } from "./discover.ts";
import {
  buildWriteSnapshot,
  deepFreeze,
  type WriteSnapshot,
  type WriteSnapshotEntry,
} from "./snapshot.ts";
import {
  resolveWriteBindings,
  type WriteEffect,
  type WritePolicy,
  type WriteToolBindings,
} from "./write_bindings.ts";

/**
 * The identity an approval of this tool is bound to. `bindingRevision` is the complete
 * write-catalog digest (the snapshot's `revisionDigest`), which covers the host's own binding
 * revision, the server identity, every schema and the scope identity; it is never the host's
 * revision string itself, so a changed schema invalidates approvals just like a changed binding.
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
 * A write tool of a write catalog. It has no `call` method on purpose: writes run only through
 * a `Gate`, which gets a durable approval first.
 */
export interface WriteToolRegistration {
  /** Name the model sees. */
  readonly localName: string;
  /** Name on the server. */
  readonly remoteName: string;
  /** The host's id for the server. */
  readonly serverId: string;
  /** The host's policy title. */
  readonly title: string;
  /** The server's description (model-facing; grants nothing). */
  readonly description: string;
  /** The input schema as discovered. */
  readonly inputSchema: Readonly<JsonObject>;
  /** The output schema as discovered, or `null`. */
  readonly outputSchema: Readonly<JsonObject> | null;
  /** The host's confirm policy. */
  readonly policy: WritePolicy;
  /** Always `false`. */
  readonly concurrencySafe: false;
  /** What an approval of a call to this tool is bound to. */
  readonly approvalBinding: WriteApprovalBinding;
}

/** What write discovery returns: the frozen write snapshot and its registrations. */
export interface WriteDiscoveryResult {
  /** The detached, deeply frozen write catalog (`schemaVersion: 2`). */
  readonly snapshot: WriteSnapshot;
  /** Write tools, one per snapshot entry, sorted by local name. */
  readonly registrations: readonly WriteToolRegistration[];
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
 * @param client the host's connected SDK client (v1 or v2)
 * @param serverId the host's id for this server
 * @param bindings the host's write bindings keyed by remote tool name
 * @param options the session's monitor, optional limits and abort signal
 *
 * @example
 * ```ts ignore
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
 */
export async function discoverWriteTools(
  client: SdkClientLike,
  serverId: string,
  bindings: WriteToolBindings,
  options: DiscoverOptions,
): Promise<WriteDiscoveryResult> {
  const found = await discoverSelection(
    client,
    serverId,
    () => resolveWriteBindings(bindings),
    options,
  );
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
  const snapshot = await buildWriteSnapshot({
    serverId,
    protocolVersion: found.protocolVersion,
    changeDetection: found.changeDetection,
    entries,
  });
  const byName = new Map(found.selected.map((item) => [item.base.localName, item]));
  const registrations = snapshot.entries.map((entry): WriteToolRegistration => {
    const item = byName.get(entry.localName)!;
    const registration: WriteToolRegistration = Object.freeze({
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
        bindingId: entry.authorization.bindingId,
        bindingRevision: snapshot.revisionDigest,
        scopeId: entry.authorization.scopeId,
        scopeRevision: entry.authorization.scopeRevision,
        effect: entry.authorization.effect,
      }),
    });
    attachCallInternals(
      registration,
      createCallLayers({
        entry,
        session: found.session,
        monitor: found.monitor,
        generation: found.generation,
        limits: found.limits,
        scope: item.binding.scope,
        validateInput: item.validateInput,
        validateOutput: item.validateOutput,
      }),
    );
    return registration;
  });
  return deepFreeze({ snapshot, registrations });
}
