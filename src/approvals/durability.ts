/**
 * The durability settings of a local libSQL file: read back from the connection and checked,
 * because a pragma that did not stick fails silently.
 *
 * @module
 */
import type { Client } from "@libsql/client";
import { ApprovalError } from "./errors.ts";

/** What a connection reports about its durability. */
export interface DurabilitySettings {
  /** `PRAGMA journal_mode`, lower case (`wal` expected). */
  readonly journalMode: string;
  /** `PRAGMA synchronous`: 0 off, 1 normal, 2 full, 3 extra. */
  readonly synchronous: number;
  /** `PRAGMA busy_timeout` in milliseconds. */
  readonly busyTimeoutMs: number;
}

/** SQLite's `synchronous=FULL`. */
export const SYNCHRONOUS_FULL = 2;

/** Reads the settings of the connection behind `executor`. */
export async function readDurability(
  executor: Pick<Client, "execute">,
): Promise<DurabilitySettings> {
  const first = async (pragma: string) => (await executor.execute(`PRAGMA ${pragma}`)).rows[0]?.[0];
  return {
    journalMode: String(await first("journal_mode")).toLowerCase(),
    synchronous: Number(await first("synchronous")),
    busyTimeoutMs: Number(await first("busy_timeout")),
  };
}

/**
 * Throws `approval_store_not_durable` unless the file is in WAL mode with `synchronous` at FULL
 * or above: with less, a committed claim can be lost in a power failure and the write repeated.
 */
export function checkDurability(settings: DurabilitySettings): void {
  if (settings.journalMode !== "wal" || !(settings.synchronous >= SYNCHRONOUS_FULL)) {
    throw new ApprovalError(
      "approval_store_not_durable",
      "the approval database did not keep journal_mode=WAL and synchronous=FULL",
    );
  }
}

/** Sets the durability pragmas on a local file, reads them back and checks them. */
export async function configureDurability(
  client: Pick<Client, "execute">,
  busyTimeoutMs: number,
): Promise<DurabilitySettings> {
  await client.execute(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("PRAGMA synchronous = FULL");
  const settings = await readDurability(client);
  checkDurability(settings);
  return settings;
}
