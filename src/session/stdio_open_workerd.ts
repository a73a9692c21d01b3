/**
 * The npm package's `#stdio-open` under `workerd`, `worker`, `browser` and the default: where no
 * process can be started, a stdio server's session fails its set-up with
 * `stdio_unsupported_runtime` and holds no stdio code.
 *
 * @module
 */
import type { ConnectSession } from "./connect_session.ts";
import { setupFailed } from "./handshake.ts";
import type { StdioSessionOptions } from "./stdio_types.ts";

/**
 * A session that refuses every request: this runtime cannot start a stdio server.
 *
 * @param options the entry's options (only the observer is used: it is closed with the session)
 */
export function openStdioSession(options: StdioSessionOptions): ConnectSession {
  let closed = false;
  const refuse = () => Promise.reject(setupFailed("stdio_unsupported_runtime"));
  return {
    kind: "mcp_session",
    get closed() {
      return closed;
    },
    era: undefined,
    protocolVersion: undefined,
    stats: { handshakes: 0, expiredRecoveries: 0 },
    changeStream: undefined,
    ready: refuse,
    request: refuse,
    onStreamReopened: () => () => {},
    close: () => {
      if (!closed) options.observer.close();
      closed = true;
      return Promise.resolve();
    },
  };
}
