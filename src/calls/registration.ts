/**
 * A read tool as a model and a host see it: names, description, schemas, policy. It has no
 * call path of its own; a `Gate` (a read-only one for reads) runs its calls from the call plan
 * discovery produced beside it.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { ReadPolicy } from "../catalog/bindings.ts";
import type { SnapshotEntry } from "../catalog/snapshot.ts";

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
