/**
 * What an operator watches besides calls: approvals waiting for a person and `unknown` outcomes
 * waiting for reconciliation (observable gauges that read the approval store at each
 * collection), and a connection's catalogs turning stale or refusing a lock.
 *
 * @module
 */
import { ATTR, METRICS } from "./conventions.ts";
import type {
  GateTelemetry,
  TelemetryAttributes,
  TelemetryCounter,
  TelemetryObservableResult,
} from "./types.ts";

/**
 * What the gauges read of an approval (structurally: an `ApprovalRecord` fits).
 *
 * @category Telemetry
 */
export interface ObservedApproval {
  /** The host's server id. */
  readonly serverId: string;
  /** The tool's local name. */
  readonly toolName: string;
  /** The tool's name on the server. */
  readonly remoteToolName: string;
  /** When it was prepared, milliseconds since the Unix epoch (the store's clock). */
  readonly createdAt: number;
}

/**
 * The part of an approval store the gauges read (structurally: every `ApprovalStore` fits).
 *
 * @category Telemetry
 */
export interface ObservedApprovalStore {
  /** Approvals in one state. */
  list(filter: { readonly state: "pending" | "unknown" }): Promise<readonly ObservedApproval[]>;
}

/** The gauges' attribute set of one server and tool. */
function toolAttributes(approval: ObservedApproval): TelemetryAttributes {
  return {
    [ATTR.serverId]: approval.serverId,
    [ATTR.toolName]: approval.remoteToolName,
    [ATTR.localName]: approval.toolName,
  };
}

/** Per server and tool: how many approvals, and the oldest one's creation. */
function grouped(approvals: readonly ObservedApproval[]) {
  const groups = new Map<
    string,
    { attributes: TelemetryAttributes; count: number; oldest: number }
  >();
  for (const approval of approvals) {
    const key = JSON.stringify([approval.serverId, approval.toolName, approval.remoteToolName]);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, {
        attributes: toolAttributes(approval),
        count: 1,
        oldest: approval.createdAt,
      });
    } else {
      group.count++;
      group.oldest = Math.min(group.oldest, approval.createdAt);
    }
  }
  return [...groups.values()];
}

/**
 * Observes `store` for operators, through the host's meter: `sluice.approvals.pending` (approvals
 * waiting for a person) and `sluice.approvals.pending.age` (seconds the oldest has waited), and
 * `sluice.approvals.unknown` (outcomes awaiting a person's reconciliation), each by
 * `sluice.server.id`, `gen_ai.tool.name` and `sluice.tool.local_name`. The store is read at each
 * collection (one `list` per state), never on the call path. A store that fails to answer is
 * skipped for that collection. Returns the function that stops observing. Needs a meter with
 * `createObservableGauge`; without one nothing is observed.
 *
 * @example
 * ```ts
 * import { metrics } from "@opentelemetry/api";
 * import { MemoryApprovalStore, observeApprovals } from "@sluice/mcp";
 *
 * const store = new MemoryApprovalStore();
 * const stop = observeApprovals(store, { meter: metrics.getMeter("@sluice/mcp") });
 * // ... at shutdown
 * stop();
 * ```
 *
 * @param store the approval store (any of sluice's)
 * @param telemetry the host's meter
 * @param now the clock of the age, milliseconds (default `Date.now`)
 *
 * @category Telemetry
 */
export function observeApprovals(
  store: ObservedApprovalStore,
  telemetry: Pick<GateTelemetry, "meter">,
  now: () => number = Date.now,
): () => void {
  const meter = telemetry.meter;
  if (meter?.createObservableGauge === undefined) return () => {};
  const pending = meter.createObservableGauge(METRICS.approvalsPending, {
    description: "Approvals waiting for a person's decision.",
    unit: "{approval}",
  });
  const age = meter.createObservableGauge(METRICS.approvalsPendingAge, {
    description: "How long the oldest approval still pending has waited.",
    unit: "s",
  });
  const unknown = meter.createObservableGauge(METRICS.approvalsUnknown, {
    description: "Writes whose outcome is unknown, awaiting a person's reconciliation.",
    unit: "{approval}",
  });
  // One read of the pending approvals serves both of their gauges within a collection.
  let reading: Promise<ReturnType<typeof grouped> | undefined> | undefined;
  const pendingNow = () => {
    reading ??= store.list({ state: "pending" }).then(grouped, () => undefined).finally(() => {
      queueMicrotask(() => (reading = undefined));
    });
    return reading;
  };
  const observePending = async (result: TelemetryObservableResult) => {
    for (const group of await pendingNow() ?? []) result.observe(group.count, group.attributes);
  };
  const observeAge = async (result: TelemetryObservableResult) => {
    const at = now();
    for (const group of await pendingNow() ?? []) {
      result.observe(Math.max(0, at - group.oldest) / 1000, group.attributes);
    }
  };
  const observeUnknown = async (result: TelemetryObservableResult) => {
    const found = await store.list({ state: "unknown" }).then(grouped, () => []);
    for (const group of found) result.observe(group.count, group.attributes);
  };
  pending.addCallback(observePending);
  age.addCallback(observeAge);
  unknown.addCallback(observeUnknown);
  return () => {
    pending.removeCallback(observePending);
    age.removeCallback(observeAge);
    unknown.removeCallback(observeUnknown);
  };
}

const COUNTERS = new WeakMap<Pick<GateTelemetry, "meter">, CatalogCounters>();

/**
 * The catalog counters of `telemetry`, made on first use.
 *
 * @param telemetry the host's meter
 */
export function catalogCountersOf(telemetry: Pick<GateTelemetry, "meter">): CatalogCounters {
  let counters = COUNTERS.get(telemetry);
  if (counters === undefined) {
    counters = new CatalogCounters(telemetry);
    COUNTERS.set(telemetry, counters);
  }
  return counters;
}

/**
 * A connection's catalog counters: `sluice.catalog.stale` (a server's catalog turned stale: a
 * tool list change heard, or the change stream lost) and `sluice.catalog.lock_mismatches` (a
 * bound tool whose listed definition does not match the lock, per discovery).
 *
 * @category Telemetry
 */
export class CatalogCounters {
  readonly #stale: TelemetryCounter | undefined;
  readonly #mismatches: TelemetryCounter | undefined;

  /**
   * The counters of `telemetry`'s meter.
   *
   * @param telemetry the host's meter
   */
  constructor(telemetry: Pick<GateTelemetry, "meter">) {
    this.#stale = telemetry.meter?.createCounter(METRICS.catalogStale, {
      description: "Times a server's catalog turned stale.",
      unit: "{change}",
    });
    this.#mismatches = telemetry.meter?.createCounter(METRICS.lockMismatches, {
      description: "Bound tools whose listed definition did not match the lock, per discovery.",
      unit: "{tool}",
    });
  }

  /**
   * A server's catalog turned stale.
   *
   * @param serverId the host's server id
   * @param reason why (`tools_list_changed`, `change_stream_ended`)
   */
  stale(serverId: string, reason: string): void {
    this.#stale?.add(1, { [ATTR.serverId]: serverId, [ATTR.staleReason]: reason });
  }

  /**
   * A discovery refused a bound tool for not matching the lock.
   *
   * @param serverId the host's server id
   * @param tool the tool's name on the server
   */
  lockMismatch(serverId: string, tool: string): void {
    this.#mismatches?.add(1, { [ATTR.serverId]: serverId, [ATTR.toolName]: tool });
  }
}
