/**
 * Reconnecting a failed server in place: a new session, then discovery as at set-up; its tools
 * join the toolkit once it is ready.
 *
 * @module
 */
import {
  type ConnectionState,
  discoverInto,
  openServer,
  reloadServers,
} from "./connection_state.ts";
import { serverReport } from "./connection_report.ts";
import { ConnectConfigError } from "./errors.ts";
import { connectErrorOf } from "./failure.ts";
import { activate } from "./refresh.ts";
import type { ServerReport } from "./report.ts";
import { failedServerOf, type ServerState } from "./server_state.ts";

/** Sets a failed server up again in place: a new session, then discovery as at set-up. */
async function retry(state: ConnectionState, item: ServerState): Promise<ServerReport> {
  const old = { session: item.session, release: item.release, cause: item.catalog!.errorCode };
  Object.assign(item, openServer(state, item.server));
  await old.session.close().catch(() => {});
  old.release();
  await discoverInto(state, item, undefined);
  if (state.closing !== undefined) {
    throw connectErrorOf([{
      id: item.server.id,
      url: item.server.url,
      code: "mcp_connection_closed",
    }]);
  }
  const { errorCode, tools } = item.catalog!;
  if (errorCode === undefined) await activate(state, item);
  // Ready: the tools join. Failed again: the toolkit changes only if a tool (an owner spec's,
  // now on the new session) or the cause its tools answer with did.
  if (errorCode === undefined || tools.length > 0 || errorCode !== old.cause) {
    reloadServers(state);
  }
  if (errorCode !== undefined) throw connectErrorOf([failedServerOf(item)]);
  return structuredClone(serverReport(item, state.config));
}

/** Tries server `id` again when it failed; concurrent calls share one attempt. */
export function reconnect(state: ConnectionState, id: string): Promise<ServerReport> {
  const item = state.servers.find((entry) => entry.server.id === id);
  if (item === undefined) {
    return Promise.reject(
      new ConnectConfigError(
        "connect_config_invalid",
        `reconnect: "${String(id).slice(0, 48)}" is not a server of this connection`,
      ),
    );
  }
  if (state.closing !== undefined) {
    return Promise.reject(
      connectErrorOf([{ id, url: item.server.url, code: "mcp_connection_closed" }]),
    );
  }
  // Ready, and its session alive (a stdio server that exited has ended its session: start it anew).
  if (item.catalog!.errorCode === undefined && !(item.server.stdio && item.session.closed)) {
    return Promise.resolve(structuredClone(serverReport(item, state.config)));
  }
  return item.reconnecting ??= retry(state, item).finally(() => {
    item.reconnecting = undefined;
  });
}
