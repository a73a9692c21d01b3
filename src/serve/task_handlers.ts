/**
 * The `tasks/*` request handlers of a served connection (protocol 2025-11-25): each answers
 * from the endpoint's tasks, only the calling client's.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/server";
import type { ServedTasks } from "./tasks.ts";

/**
 * Answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` on `server` for
 * `client`.
 *
 * @param server the client's MCP server
 * @param client the client's name
 * @param tasks the endpoint's tasks
 *
 * @category sluice serve
 */
export function registerTaskHandlers(server: Server, client: string, tasks: ServedTasks): void {
  // The SDK's method types leave the 2025 task methods out; its 2025 registry has them.
  const on = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    handler: (request: unknown) => unknown,
  ) => void;
  on("tasks/get", (request) => tasks.get(client, param(request, "taskId")));
  on("tasks/result", (request) => tasks.result(client, param(request, "taskId")));
  on("tasks/list", (request) => tasks.list(client, param(request, "cursor")));
  on("tasks/cancel", (request) => tasks.cancel(client, param(request, "taskId")));
}

/** A request's parameter, whatever the SDK typed the request as. */
function param(request: unknown, name: string): unknown {
  return (request as { params?: Record<string, unknown> }).params?.[name];
}
