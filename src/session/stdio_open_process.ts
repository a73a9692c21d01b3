/**
 * The npm package's `#stdio-open` under `deno`, `bun` and `node`, and what `stdio_open.ts`
 * re-exports in the sources: a stdio server's real session.
 *
 * @module
 */
import type { ConnectSession } from "./connect_session.ts";
import { StdioSession } from "./stdio_session.ts";
import type { StdioSessionOptions } from "./stdio_types.ts";

/**
 * A stdio server's session, started on first use.
 *
 * @param options command, bounds, deadline and observer
 */
export function openStdioSession(options: StdioSessionOptions): ConnectSession {
  return new StdioSession(options);
}
