/**
 * The `tasks/*` request handlers of a served connection, each answering from the endpoint's
 * tasks, only the calling client's. A 2025-11-25 request gets the tasks utility (`tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`); a 2026-07-28 request the Tasks extension
 * (SEP-2663): `tasks/get` inlines the result or error, `tasks/cancel` and `tasks/update` answer
 * an empty ack, `tasks/result` and `tasks/list` do not exist (-32601), and a request that does
 * not declare the extension is refused -32021.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/server";
import { serverSdk } from "./sdk.ts";
import type { ServedTasks } from "./tasks.ts";

/**
 * The Tasks extension's identifier (2026-07-28, SEP-2663), advertised under
 * `capabilities.extensions` and declared by clients the same way.
 *
 * @category sluice serve
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
const METHOD_NOT_FOUND = -32601;

/** A Standard Schema that takes any params as they are (each handler checks what it reads). */
const ANY_PARAMS = Object.freeze({
  "~standard": Object.freeze({
    version: 1 as const,
    vendor: "sluice",
    validate: (value: unknown) => ({ value }),
  }),
});

/** What a request's era and declarations say about tasks. */
export interface TaskEra {
  /** A 2026-07-28 request (per-request envelope). */
  readonly modern: boolean;
  /** The request declares the Tasks extension (envelope or its own `_meta`). */
  readonly declaresTasks: boolean;
}

/**
 * The era of one request and whether it declares the Tasks extension, from the handler context
 * the server SDK passes (`ctx.mcpReq.envelope` on 2026-07-28) and the request's own `_meta`
 * (the per-request opt-in).
 *
 * @param request the request as the SDK hands it
 * @param ctx the handler context
 *
 * @category sluice serve
 */
export function taskEra(request: unknown, ctx: unknown): TaskEra {
  const envelope = (ctx as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined)
    ?.mcpReq?.envelope;
  const modern = typeof envelope?.[PROTOCOL_VERSION_META_KEY] === "string";
  const meta = (request as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const declaresTasks = declares(envelope?.[CLIENT_CAPABILITIES_META_KEY]) ||
    declares(meta?.[CLIENT_CAPABILITIES_META_KEY]);
  return { modern, declaresTasks };
}

/**
 * The error a 2026-07-28 request gets when it needs the Tasks extension and did not declare it.
 *
 * @category sluice serve
 */
export function missingTasksCapability(): Error {
  return new serverSdk.MissingRequiredClientCapabilityError({
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/**
 * Answers the task methods on `server` for `client`.
 *
 * @param server the client's MCP server
 * @param client the client's name
 * @param tasks the endpoint's tasks
 *
 * @category sluice serve
 */
export function registerTaskHandlers(server: Server, client: string, tasks: ServedTasks): void {
  // The SDK types and routes only its own eras' methods by name (`tasks/update` is in neither
  // registry): each task method is registered with its own, permissive params schema, and the
  // handlers read the params themselves.
  const register = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    schemas: { params: typeof ANY_PARAMS },
    handler: (params: unknown, ctx: unknown) => unknown,
  ) => void;
  const on = (method: string, handler: (request: unknown, ctx: unknown) => unknown) =>
    register(method, { params: ANY_PARAMS }, (params, ctx) => handler({ params }, ctx));
  const modern = (request: unknown, ctx: unknown): boolean => {
    const era = taskEra(request, ctx);
    if (era.modern && !era.declaresTasks) throw missingTasksCapability();
    return era.modern;
  };
  on(
    "tasks/get",
    (request, ctx) =>
      modern(request, ctx)
        ? tasks.detailed(client, param(request, "taskId"))
        : tasks.get(client, param(request, "taskId")),
  );
  on("tasks/cancel", async (request, ctx) => {
    if (!modern(request, ctx)) return await tasks.cancel(client, param(request, "taskId"));
    await tasks.cancel(client, param(request, "taskId"), true);
    return {};
  });
  on("tasks/update", async (request, ctx) => {
    if (!modern(request, ctx)) {
      throw new serverSdk.ProtocolError(METHOD_NOT_FOUND, "Method not found");
    }
    // The answers go to the requests of the task's call they name (relayed upstream).
    // The server SDK lifts `inputResponses` out of the params into the handler's context.
    const lifted = (ctx as { mcpReq?: { inputResponses?: unknown } } | undefined)?.mcpReq
      ?.inputResponses;
    await tasks.update(
      client,
      param(request, "taskId"),
      lifted ?? param(request, "inputResponses"),
    );
    return {};
  });
  on("tasks/result", (request, ctx) => {
    if (taskEra(request, ctx).modern) throw removedMethod("tasks/result");
    return tasks.result(client, param(request, "taskId"));
  });
  on("tasks/list", (request, ctx) => {
    if (taskEra(request, ctx).modern) throw removedMethod("tasks/list");
    return tasks.list(client, param(request, "cursor"));
  });
}

function removedMethod(method: string): Error {
  return new serverSdk.ProtocolError(METHOD_NOT_FOUND, `Method not found: ${method}`);
}

function declares(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return typeof extensions === "object" && extensions !== null &&
    extensions[TASKS_EXTENSION] !== undefined;
}

/** A request's parameter, whatever the SDK typed the request as. */
function param(request: unknown, name: string): unknown {
  return (request as { params?: Record<string, unknown> }).params?.[name];
}
