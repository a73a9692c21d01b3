/**
 * A connection's lock: what it checks listed tools against (`connect({ lock })`), and the lock
 * of what runs now (`connection.lock()`).
 *
 * @module
 */
import { createLock, type LockedServer, lockServer, type SluiceLock } from "../catalog/lock.ts";
import type { ServerExpectations } from "./discovery.ts";
import type { ServerState } from "./server_state.ts";

/** What a server's listed tools are checked against under `lock`. */
export function expectationsOf(lock: SluiceLock | undefined, id: string): ServerExpectations {
  if (lock === undefined) return { locked: false };
  const server = Object.hasOwn(lock.servers, id) ? lock.servers[id] : undefined;
  return { locked: true, ...(server ? { server } : {}) };
}

/** The lock of the contacted servers' ready tools, as each server listed them. */
export async function lockOf(servers: readonly ServerState[]): Promise<SluiceLock> {
  const locked: Record<string, LockedServer> = {};
  for (const item of servers) {
    const version = item.session.protocolVersion;
    if (version === undefined) continue;
    const ready = item.catalog!.tools.filter((tool) => tool.source === "server");
    locked[item.server.id] = await lockServer(
      version,
      ready.map((tool) => item.catalog!.definitions.get(tool.allowed.tool)!),
      // The verdicts discovery judged the tools by (with the host's other names).
      item.catalog!.findings,
    );
  }
  return createLock(locked);
}
