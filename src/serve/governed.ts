/**
 * The governed MCP server one client talks to, whatever carries it (Streamable HTTP or stdio):
 * `tools/list` answers the toolkit's tools the client may see, under their local names and with
 * their admitted input schemas; `tools/call` runs `toolkit.call` (so the gate) and answers the
 * envelope. It also keeps what every carrier shares: the per-client concurrency slots, the calls
 * in flight, and the shutdown that lets them end with their outcome.
 *
 * @module
 */
import type { CallToolResult, ListToolsResult, Server } from "@modelcontextprotocol/server";
import type { Toolkit, ToolkitEnvelope, ToolkitTool } from "../connect/mod.ts";
import { type ServedCallIds, servedCallIds } from "./call_ids.ts";
import { clientMay, type ServeClient } from "./clients.ts";
import { emitServeEvent, type ServeEvent } from "./events.ts";
import { CallSlots, type ServeLimits } from "./limits.ts";
import { type ServedEnvelope, servedResult } from "./result.ts";
import { serverSdk } from "./sdk.ts";
import { ServedNames, type ServedToolNames } from "./names.ts";
import { registerTaskHandlers } from "./task_handlers.ts";
import { ServedTasks, type TaskOutcome } from "./tasks.ts";

/**
 * What a governed server needs besides the toolkit.
 *
 * @category sluice serve
 */
export interface GovernedOptions {
  readonly limits: ServeLimits;
  /** The server's name and version in the MCP handshake. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly onEvent?: (event: ServeEvent) => void;
  /** Local names (default) or the upstreams' own, for clients. */
  readonly toolNames?: ServedToolNames;
}

const DEFAULT_SERVER_INFO = { name: "sluice-serve", version: "1" } as const;

/**
 * The toolkit served to clients: one MCP server per client connection or request, sharing the
 * limits and the calls in flight.
 *
 * @category sluice serve
 */
export class GovernedTools {
  readonly #toolkit: Toolkit;
  readonly #options: GovernedOptions;
  readonly #slots: CallSlots;
  readonly #inFlight = new Set<Promise<unknown>>();
  // The same approval-bound call sent again while it runs waits for it and gets its envelope,
  // rather than the store's "already claimed, outcome not known yet".
  readonly #running = new Map<string, Promise<ToolkitEnvelope>>();
  // One controller per call, made in the call's own request: a Worker refuses an abort signal
  // made in another request's context. Shutdown aborts those still open after the wait.
  readonly #aborts = new Set<AbortController>();
  // The list the clients were last told of; a new `toolkit.tools` (an accepted revision, a
  // server reconnected) is announced once, then this follows it.
  #listed: readonly ToolkitTool[];
  readonly #listeners = new Set<() => void>();
  readonly #tasks: ServedTasks;
  readonly #names: ServedNames;
  #approval: { of: readonly ToolkitTool[] | undefined; names: ReadonlySet<string> } = {
    of: undefined,
    names: new Set(),
  };

  /**
   * @param toolkit the connection's toolkit
   * @param options limits, server info and the audit sink
   */
  constructor(toolkit: Toolkit, options: GovernedOptions) {
    this.#toolkit = toolkit;
    this.#options = options;
    this.#slots = new CallSlots(options.limits.maxConcurrentCalls);
    this.#listed = toolkit.tools;
    this.#names = new ServedNames(options.toolNames);
    this.#names.check(toolkit.tools);
    this.#names.use(toolkit.tools);
    this.#tasks = new ServedTasks({
      pollMs: options.limits.taskPollMs,
      ttlMs: options.limits.taskTtlMs,
      perClient: options.limits.maxTasksPerClient,
    });
  }

  /**
   * Tells `listener` each time the served list changed (see {@link sync}); returns the function
   * that stops telling it.
   *
   * @param listener sends `notifications/tools/list_changed` on one carrier
   */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Whether the toolkit's tools are no longer the list the clients were served; if so, every
   * listener is told once. The toolkit's list changes only when its owner accepts a staged
   * revision or a failed server reconnects: an upstream change by itself only stages a
   * revision, so the served list stays pinned until a person accepts it.
   */
  sync(): boolean {
    const now = this.#toolkit.tools;
    if (now === this.#listed) return false;
    this.#listed = now;
    this.#names.use(now);
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A carrier that went away misses the notification; it lists again on reconnect.
      }
    }
    return true;
  }

  /** How many tool calls are in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * A low-level MCP server for `client`, with the two tool handlers.
   *
   * @param client the authenticated client
   */
  server(client: ServeClient): Server {
    const server = new serverSdk.Server(this.#options.serverInfo ?? DEFAULT_SERVER_INFO, {
      // Tasks are a 2025-11-25 utility: the SDK leaves them out of a 2026-07-28 handshake.
      capabilities: {
        tools: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
    });
    server.setRequestHandler("tools/list", () => {
      this.sync();
      const names = this.#names;
      const tools = this.#listed.filter((tool) =>
        clientMay(client, tool.name) && names.external(tool.name) !== undefined
      ).map((tool) => ({
        name: names.external(tool.name)!,
        description: tool.description,
        inputSchema: tool.inputSchema,
        // A call that waits for a person may run as a task the client polls.
        ...(tool.requiresApproval ? { execution: { taskSupport: "optional" } } : {}),
      }));
      emitServeEvent(this.#options.onEvent, {
        kind: "list",
        client: client.name,
        tools: tools.length,
      });
      return { tools } as unknown as ListToolsResult;
    });
    server.setRequestHandler("tools/call", (request) => {
      const params = request.params as typeof request.params & { task?: { ttl?: unknown } };
      const name = this.#names.local(params.name);
      if (params.task !== undefined && params.task !== null) {
        return this.#callAsTask(client, name, params.arguments, params._meta, params.task);
      }
      return this.#call(client, name, params.arguments, params._meta);
    });
    registerTaskHandlers(server, client.name, this.#tasks);
    return server;
  }

  /**
   * Lets the calls in flight finish, aborting those still running after
   * `limits.shutdownTimeoutMs` (each still ends with its recorded outcome).
   */
  async drain(): Promise<void> {
    // Tasks stop waiting for decisions at once; a dispatch under way is a call in flight.
    this.#tasks.stopAll();
    const timer = setTimeout(() => {
      for (const controller of this.#aborts) controller.abort();
    }, this.#options.limits.shutdownTimeoutMs);
    try {
      while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #call(
    client: ServeClient,
    name: unknown,
    args: unknown,
    meta: Readonly<Record<string, unknown>> | undefined,
  ): Promise<CallToolResult> {
    const start = performance.now();
    const served = typeof name === "string" && clientMay(client, name) ? name : undefined;
    // A read meets no approval: its call id needs no digest of the arguments.
    const ids = await servedCallIds(client.name, served ?? "", args, meta, this.#approving(served));
    let envelope: ServedEnvelope;
    const release = this.#slots.take(client.name);
    if (served === undefined) {
      // A tool the client may not see is answered as nobody's tool: the list stays private.
      envelope = { text: [], structured: null, errorCode: "unknown_tool" };
      release?.();
    } else if (release === undefined) {
      envelope = { text: [], structured: null, errorCode: "serve_client_busy" };
    } else {
      try {
        envelope = await this.#run(served, args, ids);
      } finally {
        release();
      }
    }
    this.#emitCall(client, served, envelope, ids, start);
    return servedResult(envelope) as unknown as CallToolResult;
  }

  /**
   * A task-augmented call: a tool that needs approval answers at once with a task whose work
   * is the call, waiting for the decision; the same call sent again is the same task. Any other
   * tool answers "method not found", as the tasks utility says for a tool without task support.
   */
  async #callAsTask(
    client: ServeClient,
    name: unknown,
    args: unknown,
    meta: Readonly<Record<string, unknown>> | undefined,
    task: { ttl?: unknown },
  ): Promise<CallToolResult> {
    const served = typeof name === "string" && clientMay(client, name) ? name : undefined;
    const tool = served === undefined ? undefined : this.#listed.find((t) => t.name === served);
    if (tool?.requiresApproval !== true) {
      throw new serverSdk.ProtocolError(-32601, "tools/call: this tool does not run as a task");
    }
    const start = performance.now();
    const ids = await servedCallIds(client.name, tool.name, args, meta);
    const view = this.#tasks.create(
      client.name,
      `${ids.runId}\u0000${ids.callId}`,
      task.ttl,
      async (signal, note) => {
        const outcome = await this.#untilDecided(tool.name, args, ids, signal, note);
        this.#emitCall(client, tool.name, outcome.envelope, ids, start, view?.taskId);
        return outcome;
      },
    );
    if (view === undefined) {
      return servedResult({
        text: [],
        structured: null,
        errorCode: "serve_client_busy",
      }) as unknown as CallToolResult;
    }
    // Content beside the task, for a host that shows the model something at once.
    const note = `This call needs a person's approval; it runs as task ${view.taskId}.`;
    return {
      task: view,
      content: [{ type: "text", text: note }],
      _meta: { "io.modelcontextprotocol/model-immediate-response": note },
    } as unknown as CallToolResult;
  }

  /** Runs the call; while its approval is pending, looks again every poll interval. */
  async #untilDecided(
    name: string,
    args: unknown,
    ids: ServedCallIds,
    signal: AbortSignal,
    note: (statusMessage: string) => void,
  ): Promise<TaskOutcome & { envelope: ToolkitEnvelope }> {
    for (;;) {
      const envelope = await this.#run(name, args, ids);
      if (envelope.errorCode !== "approval_pending" || signal.aborted) {
        const result = servedResult(envelope) as unknown as CallToolResult;
        return { result, failed: envelope.errorCode !== undefined, envelope };
      }
      note(
        `Waiting for a person's approval in the approval store. Approval id: ${envelope.approvalId}.`,
      );
      await sleep(this.#options.limits.taskPollMs, signal);
    }
  }

  /** Whether the served tool `name` needs an approval (so its calls have stable ids). */
  #approving(name: string | undefined): boolean {
    if (name === undefined) return false;
    if (this.#approval.of !== this.#listed) {
      const names = this.#listed.filter((tool) => tool.requiresApproval).map((tool) => tool.name);
      this.#approval = { of: this.#listed, names: new Set(names) };
    }
    return this.#approval.names.has(name);
  }

  #emitCall(
    client: ServeClient,
    served: string | undefined,
    envelope: ServedEnvelope,
    ids: ServedCallIds,
    start: number,
    taskId?: string,
  ): void {
    if (this.#options.onEvent === undefined) return;
    emitServeEvent(this.#options.onEvent, {
      kind: "call",
      client: client.name,
      ...(served === undefined ? {} : { tool: served }),
      ok: envelope.errorCode === undefined,
      ...(envelope.errorCode === undefined ? {} : { errorCode: envelope.errorCode }),
      ...(envelope.effect === undefined ? {} : { effect: envelope.effect }),
      ...(envelope.approvalId === undefined ? {} : { approvalId: envelope.approvalId }),
      ...(taskId === undefined ? {} : { taskId }),
      runId: ids.runId,
      durationMs: performance.now() - start,
    });
  }

  #run(name: string, args: unknown, ids: ServedCallIds): Promise<ToolkitEnvelope> {
    const toolkit = this.#toolkit;
    const coalesce = this.#approving(name);
    const key = `${ids.runId}\u0000${ids.callId}`;
    const joined = coalesce ? this.#running.get(key) : undefined;
    if (joined !== undefined) return joined;
    const controller = new AbortController();
    this.#aborts.add(controller);
    const call = toolkit.call(name, args ?? {}, { ...ids, signal: controller.signal });
    this.#inFlight.add(call);
    if (coalesce) this.#running.set(key, call);
    call.finally(() => {
      this.#aborts.delete(controller);
      this.#inFlight.delete(call);
      if (this.#running.get(key) === call) this.#running.delete(key);
    });
    return call;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
