/**
 * Serves a Web-standard handler on loopback through `node:http`, which Deno, Node and Bun all
 * have, so `sluice inbox` runs the same on each; stops on SIGINT or SIGTERM.
 *
 * @module
 */
import http from "node:http";
import process from "node:process";
import type { InboxHandler } from "../inbox/approval_inbox.ts";
import { toNodeListener } from "../inbox/node_adapter.ts";
import { CliError } from "./errors.ts";
import type { InboxServer } from "./inbox.ts";

/**
 * Listens on `address` and resolves once listening, with the port bound; rejects with
 * `cli_inbox_listen_failed` (and the system's code, such as `EADDRINUSE`) when it cannot.
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
  const server = http.createServer(toNodeListener(handler) as http.RequestListener);
  const finished = new Promise<void>((resolve) => server.on("close", () => resolve()));
  const stop = () => server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return new Promise((resolve, reject) => {
    server.once("error", (error: { code?: string }) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      reject(
        new CliError(
          "cli_inbox_listen_failed",
          `cannot listen on ${address.hostname}:${address.port} (${error.code ?? "failed"})`,
        ),
      );
    });
    server.listen(address.port, address.hostname, () => {
      const bound = server.address();
      resolve({ port: typeof bound === "object" && bound ? bound.port : address.port, finished });
    });
  });
}
