/**
 * The durability settings of a local libSQL file: read back from the connection and checked,
 * because a pragma that did not stick fails silently.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";

/**
 * Reads the value of one `PRAGMA` on the connection it belongs to.
 *
 * @category Approvals
 */
export type PragmaReader = (pragma: string) => Promise<unknown>;

/**
 * What a connection reports about its durability.
 *
 * @category Approvals
 */
export interface DurabilitySettings {
  /** `PRAGMA journal_mode`, lower case (`wal` expected). */
  readonly journalMode: string;
  /** `PRAGMA synchronous`: 0 off, 1 normal, 2 full, 3 extra. */
  readonly synchronous: number;
  /**
   * `PRAGMA busy_timeout` in milliseconds: how long the driver sleeps inside a call waiting for a
   * lock. The embedded store keeps it at 0 and waits asynchronously (`busyTimeoutMs` option).
   */
  readonly busyTimeoutMs: number;
}

/**
 * SQLite's `synchronous=FULL`.
 *
 * @category Approvals
 */
export const SYNCHRONOUS_FULL = 2;

/**
 * Reads the settings of the connection `first` reads pragmas from.
 *
 * @category Approvals
 */
export async function readDurability(first: PragmaReader): Promise<DurabilitySettings> {
  return {
    journalMode: String(await first("journal_mode")).toLowerCase(),
    synchronous: Number(await first("synchronous")),
    busyTimeoutMs: Number(await first("busy_timeout")),
  };
}

/**
 * Throws `approval_store_not_durable` unless the file is in WAL mode with `synchronous` at FULL
 * or above: with less, a committed claim can be lost in a power failure and the write repeated.
 *
 * @category Approvals
 */
export function checkDurability(settings: DurabilitySettings): void {
  if (settings.journalMode !== "wal" || !(settings.synchronous >= SYNCHRONOUS_FULL)) {
    throw new ApprovalError(
      "approval_store_not_durable",
      "the approval database did not keep journal_mode=WAL and synchronous=FULL",
    );
  }
}
