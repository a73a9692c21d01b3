/**
 * A tool as a model and a host see it: names, description, schemas, policy; a write tool adds
 * the identity its approvals are bound to. It has no call path of its own: a `Gate` (a
 * read-only one for reads) runs its calls from the call plan discovery produced beside it.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { ReadPolicy, WriteEffect, WritePolicy } from "../catalog/bindings.ts";
import type { SnapshotEntry, WriteSnapshotEntry } from "../catalog/snapshot.ts";
import type { ApprovalBinding } from "../approvals/types.ts";

/**
 * A model-facing tool backed by one remote tool of a snapshot. Plain data: its calls run
 * through a `Gate` (`new Gate({ catalogs: [reads] })` for reads only).
 *
 * @category Discovery and calls
 */
export interface ToolRegistration {
  /** Name the model sees. */
  readonly localName: string;
  /** Name on the server. */
  readonly remoteName: string;
  /** The host's policy title. */
  readonly title: string;
  /** The server's description (model-facing). */
  readonly description: string;
  /** The input schema as discovered. */
  readonly inputSchema: Readonly<JsonObject>;
  /** The output schema as discovered, or `null`. */
  readonly outputSchema: Readonly<JsonObject> | null;
  /** The host's policy. */
  readonly policy: ReadPolicy;
  /** The host's concurrency declaration (recorded, not acted on). */
  readonly concurrencySafe: boolean;
}

/**
 * The read registration of one snapshot entry.
 *
 * @param entry the frozen snapshot entry
 *
 * @category Discovery and calls
 */
export function createRegistration(entry: SnapshotEntry): ToolRegistration {
  return Object.freeze({
    localName: entry.localName,
    remoteName: entry.remoteName,
    title: entry.policy.title,
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    policy: entry.policy,
    concurrencySafe: entry.concurrencySafe,
  });
}

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
 * The binding identity of a write registration, as an approval records it.
 *
 * @param registration the write registration
 *
 * @category Discovery and calls
 */
export function approvalFieldsOf(registration: WriteToolRegistration): ApprovalBinding {
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
