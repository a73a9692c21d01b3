/**
 * Serves a Web-standard handler on loopback through `node:http`, which Deno, Node and Bun all
 * have, so `sluice inbox` (until SIGINT or SIGTERM) and `sluice login`'s redirect listener (until
 * the browser came back) run the same on each.
 *
 * @module
 */
import http from "node:http";
import process from "node:process";
import type { InboxHandler } from "../inbox/approval_inbox.ts";
import { toNodeListener } from "../inbox/node_adapter.ts";
import { CliError, type CliErrorCode } from "./errors.ts";
import type { InboxServer } from "./inbox.ts";

/**
 * A server listening on loopback.
 *
 * @category CLI
 */
export interface LoopbackServer extends InboxServer {
  /** Stops listening and drops open connections; resolves once closed. */
  close(): Promise<void>;
}

/**
 * How {@link listenOnLoopback} listens.
 *
 * @category CLI
 */
export interface LoopbackOptions {
  /** The code a port it cannot listen on is refused with. */
  readonly code: Extract<CliErrorCode, `${string}_listen_failed`>;
  /** Stop on SIGINT or SIGTERM (a long-running server); else the signal ends the process. */
  readonly stopOnSignals: boolean;
}

/**
 * Listens on `address` and resolves once listening, with the port bound; rejects with
 * `options.code` (and the system's code, such as `EADDRINUSE`) when it cannot.
 *
 * @param handler the Web-standard handler
 * @param address host (loopback unless `sluice serve --host` says otherwise) and port (0: any
 *   free port)
 * @param options the refusal code and whether signals stop it
 *
 * @category CLI
 */
export function listenOnLoopback(
  handler: InboxHandler,
  address: { hostname: string; port: number },
  options: LoopbackOptions,
): Promise<LoopbackServer> {
  const server = http.createServer(toNodeListener(handler) as http.RequestListener);
  const finished = new Promise<void>((resolve) => server.on("close", () => resolve()));
  const stop = () => {
    server.close();
    // A browser keeps its connection alive; closing must not wait for it.
    server.closeAllConnections?.();
  };
  const unhook = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  if (options.stopOnSignals) {
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  }
  return new Promise((resolve, reject) => {
    server.once("error", (error: { code?: string }) => {
      unhook();
      reject(
        new CliError(
          options.code,
          `cannot listen on ${address.hostname}:${address.port} (${error.code ?? "failed"})`,
        ),
      );
    });
    server.listen(address.port, address.hostname, () => {
      const bound = server.address();
      resolve({
        port: typeof bound === "object" && bound ? bound.port : address.port,
        finished,
        close: () => {
          unhook();
          stop();
          return finished;
        },
      });
    });
  });
}

/**
 * `sluice inbox`'s server: {@link listenOnLoopback} until SIGINT or SIGTERM, a port it cannot
 * listen on refused with `cli_inbox_listen_failed`.
 *
 * @param handler the inbox handler
 * @param address loopback host and port (0: any free port)
 *
 * @category CLI
 */
export function serveOnNode(
  handler: InboxHandler,
  address: { hostname: "127.0.0.1"; port: number },
): Promise<InboxServer> {
  return listenOnLoopback(handler, address, {
    code: "cli_inbox_listen_failed",
    stopOnSignals: true,
  });
}
