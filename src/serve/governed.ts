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
import { emitCallEvent, emitServeEvent, type ServeEvent } from "./events.ts";
import { CallSlots, type ServeLimits } from "./limits.ts";
import { type ServedEnvelope, servedResult } from "./result.ts";
import { serverSdk } from "./sdk.ts";
import { listedTools, ServedNames, type ServedToolNames } from "./names.ts";
import type { ApprovalStore } from "../approvals/mod.ts";
import {
  missingTasksCapability,
  registerTaskHandlers,
  taskEra,
  TASKS_EXTENSION,
} from "./task_handlers.ts";
import { busyResult, pendingNote, taskOutcome } from "./task_outcome.ts";
import { undecided, untilDecided } from "./decided.ts";
import { type AdoptedTask, ServedTasks, type TaskView } from "./tasks.ts";
import { type CallInput, callInput, declineAll } from "./call_input.ts";
import { InputRounds, type Step } from "./input_rounds.ts";
import { inputThenTask } from "./input_task.ts";
import type { DownstreamAsk, DownstreamProgress, InputRelay } from "./relay.ts";

/**
 * How a served tool runs as a task: `optional` (a client that negotiated tasks gets a task, any
 * other the plain result) or `required` (a 2026-07-28 client without the Tasks extension is
 * refused -32021).
 *
 * @category sluice serve
 */
export type ServedTaskSupport = "optional" | "required";

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
  /** Served tools (local names) the operator runs as tasks: long-running reads. */
  readonly taskTools?: Readonly<Record<string, ServedTaskSupport>>;
  /** The approval store, so a task another instance made is found (a fleet). */
  readonly store?: ApprovalStore;
  /** Routes the upstreams' requests for input to the client of each call. */
  readonly relay?: InputRelay;
  /** Task tools whose upstream asks for input before its work: rounds first, then the task. */
  readonly inputBeforeTask?: readonly string[];
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
  // The clients served so far, by name: a task found in the store is checked against its
  // client's allowlist.
  readonly #clients = new Map<string, ServeClient>();
  readonly #rounds = new InputRounds();
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
    }, (client, taskId) => this.#adopt(client, taskId));
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
   * @param stateful whether the carrier keeps the client's connection (stdio), so a 2025
   *   client can be sent `elicitation/create` on a call's stream
   */
  server(client: ServeClient, stateful = false): Server {
    this.#clients.set(client.name, client);
    const server = new serverSdk.Server(this.#options.serverInfo ?? DEFAULT_SERVER_INFO, {
      // `tasks` is the 2025-11-25 utility (the SDK leaves it out of a 2026-07-28 handshake);
      // 2026-07-28 clients see the Tasks extension.
      capabilities: {
        tools: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        extensions: { [TASKS_EXTENSION]: {} },
      },
    });
    server.setRequestHandler("tools/list", () => {
      this.sync();
      const tools = listedTools(
        this.#listed,
        client,
        this.#names,
        (tool) => this.#taskSupport(tool),
      );
      emitServeEvent(this.#options.onEvent, {
        kind: "list",
        client: client.name,
        tools: tools.length,
      });
      return { tools } as unknown as ListToolsResult;
    });
    server.setRequestHandler("tools/call", (request, ctx) => {
      const params = request.params as typeof request.params & { task?: { ttl?: unknown } };
      const name = this.#names.local(params.name);
      const era = taskEra(request, ctx);
      const input = callInput(params, ctx, era.modern, server, stateful);
      if (era.modern) {
        const tool = this.#tool(client, name);
        const support = tool === undefined ? undefined : this.#taskSupport(tool);
        if (support === "required" && !era.declaresTasks) throw missingTasksCapability();
        if (support !== undefined && era.declaresTasks) {
          return this.#callAsModernTask(client, tool!, params.arguments, params._meta, input);
        }
        if (input.state !== undefined) {
          const resumed = this.#rounds.resume<CallToolResult>(
            client.name,
            input.state,
            input.responses,
          );
          return this.#rounds.step(resumed, input.state as string).then(answerOf);
        }
        if (input.inputs !== undefined) {
          const result = this.#call(client, name, params.arguments, params._meta, input);
          return this.#rounds.step({ client: client.name, inputs: input.inputs, result })
            .then(answerOf);
        }
        // A legacy `task` hint on a 2026-07-28 request is tolerated and ignored.
      } else if (params.task !== undefined && params.task !== null) {
        return this.#callAsTask(client, name, params.arguments, params._meta, params.task, input);
      }
      return this.#call(client, name, params.arguments, params._meta, input);
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
    input: CallInput,
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
        envelope = await this.#run(served, args, ids, undefined, input.ask, input.progress);
      } finally {
        release();
      }
    }
    emitCallEvent(this.#options.onEvent, client.name, served, envelope, ids, start);
    return servedResult(envelope) as unknown as CallToolResult;
  }

  /**
   * A task-augmented call (2025-11-25): a tool that needs approval or that the operator runs as
   * a task answers at once with a task whose work is the call; the same call sent again is the
   * same task. Any other tool answers "method not found", as the tasks utility says for a tool
   * without task support.
   */
  async #callAsTask(
    client: ServeClient,
    name: unknown,
    args: unknown,
    meta: Readonly<Record<string, unknown>> | undefined,
    task: { ttl?: unknown },
    input: CallInput,
  ): Promise<CallToolResult> {
    const tool = this.#tool(client, name);
    if (tool === undefined || this.#taskSupport(tool) === undefined) {
      throw new serverSdk.ProtocolError(-32601, "tools/call: this tool does not run as a task");
    }
    const view = await this.#startTask(client, tool, args, meta, input, task.ttl);
    if (view === undefined) return busyResult();
    // Content beside the task, for a host that shows the model something at once.
    const note = `This call runs as task ${view.taskId}.`;
    return {
      task: view,
      content: [{ type: "text", text: note }],
      _meta: { "io.modelcontextprotocol/model-immediate-response": note },
    } as unknown as CallToolResult;
  }

  /**
   * A call from a client that negotiated the Tasks extension (2026-07-28): a call that needs a
   * person's approval becomes a task once it is recorded pending (one that has its outcome at
   * once answers it, the immediate-result shortcut); a tool the operator runs as a task always
   * becomes one. The answer is the flat `CreateTaskResult`.
   */
  async #callAsModernTask(
    client: ServeClient,
    tool: ToolkitTool,
    args: unknown,
    meta: Readonly<Record<string, unknown>> | undefined,
    input: CallInput,
  ): Promise<CallToolResult> {
    if (input.inputs !== undefined && this.#options.inputBeforeTask?.includes(tool.name)) {
      const run = (ids: ServedCallIds) => this.#run(tool.name, args, ids, undefined, input.ask);
      const context = { rounds: this.#rounds, tasks: this.#tasks, onEvent: this.#options.onEvent };
      return inputThenTask(context, client.name, tool.name, args, run, input);
    }
    const view = await this.#startTask(client, tool, args, meta, input, undefined, true);
    if (view === undefined) return busyResult();
    if ("content" in view) return view;
    return this.#tasks.created(view) as unknown as CallToolResult;
  }

  /**
   * Starts the task of one call. A call that needs approval runs once first: pending, its task
   * is named by the approval's id (so any instance sharing the store finds it); decided at once,
   * `direct` answers its result (the 2025 form makes an ended task of it).
   */
  async #startTask(
    client: ServeClient,
    tool: ToolkitTool,
    args: unknown,
    meta: Readonly<Record<string, unknown>> | undefined,
    input: CallInput,
    ttl: unknown,
    direct = false,
  ): Promise<TaskView | CallToolResult | undefined> {
    const start = performance.now();
    const approving = tool.requiresApproval;
    const ids = await servedCallIds(client.name, tool.name, args, meta, approving);
    const key = `${ids.runId}\u0000${ids.callId}`;
    const emit = (envelope: ServedEnvelope, taskId?: string) =>
      emitCallEvent(this.#options.onEvent, client.name, tool.name, envelope, ids, start, taskId);
    if (!approving) {
      const taskId = crypto.randomUUID();
      const view = this.#tasks.create(client.name, key, ttl, async (signal) => {
        const envelope = await this.#run(tool.name, args, ids, signal, input.ask);
        emit(envelope, taskId);
        return taskOutcome(envelope);
      }, taskId);
      if (input.inputs !== undefined) this.#tasks.attachInputs(taskId, input.inputs);
      return view;
    }
    const first = await this.#run(tool.name, args, ids, undefined, input.ask);
    if (first.errorCode !== "approval_pending" || first.approvalId === undefined) {
      emit(first);
      if (direct) return servedResult(first) as unknown as CallToolResult;
      return this.#tasks.create(client.name, key, ttl, () => Promise.resolve(taskOutcome(first)));
    }
    const approvalId = first.approvalId;
    const view = this.#tasks.create(client.name, key, ttl, async (signal, note) => {
      note(pendingNote(approvalId));
      const envelope = await untilDecided(
        () => this.#run(tool.name, args, ids, undefined, input.ask),
        this.#options.store,
        this.#options.limits.taskPollMs,
        signal,
        note,
      );
      emit(envelope, approvalId);
      return taskOutcome(envelope);
    }, approvalId);
    if (input.inputs !== undefined) this.#tasks.attachInputs(approvalId, input.inputs);
    return view;
  }

  /**
   * A task another instance of a fleet made: the approval of that id in the shared store, when
   * it is this client's call of a tool served here. Its work here waits for the decision as the
   * maker's does; whichever instance claims the approved call first dispatches it, once.
   */
  async #adopt(client: string, taskId: string): Promise<AdoptedTask | undefined> {
    const store = this.#options.store;
    if (store === undefined) return undefined;
    const record = await store.get(taskId);
    if (record === undefined || record.runId === undefined || record.callId === undefined) {
      return undefined;
    }
    const served = this.#clients.get(client);
    if (served === undefined || !record.runId.startsWith(`serve:${client}:`)) return undefined;
    // Only a tool this client may still call here: its allowlist holds on every instance.
    const tool = this.#listed.find((entry) =>
      entry.server === record.serverId && entry.tool === record.remoteToolName &&
      entry.requiresApproval && clientMay(served, entry.name)
    );
    if (tool === undefined) return undefined;
    const ids: ServedCallIds = { runId: record.runId, callId: record.callId };
    const args = record.arguments;
    const start = performance.now();
    // One step now, so the answer already says where the call stands (a decided approval is
    // claimed and run here, as a Worker's request must before it ends).
    const first = await this.#run(tool.name, args, ids);
    if (!(await undecided(first, this.#options.store))) {
      emitCallEvent(this.#options.onEvent, client, tool.name, first, ids, start, taskId);
      return {
        key: `${ids.runId}\u0000${ids.callId}`,
        work: () => Promise.resolve(taskOutcome(first)),
      };
    }
    return {
      key: `${ids.runId}\u0000${ids.callId}`,
      work: async (signal, note) => {
        note(pendingNote(taskId));
        const envelope = await untilDecided(
          () => this.#run(tool.name, args, ids),
          this.#options.store,
          this.#options.limits.taskPollMs,
          signal,
          note,
        );
        emitCallEvent(this.#options.onEvent, client, tool.name, envelope, ids, start, taskId);
        return taskOutcome(envelope);
      },
    };
  }

  /** The served tool `name` names for `client`, if it may call it. */
  #tool(client: ServeClient, name: unknown): ToolkitTool | undefined {
    if (typeof name !== "string" || !clientMay(client, name)) return undefined;
    return this.#listed.find((tool) => tool.name === name);
  }

  /** How `tool` runs as a task, if it may: calls that need approval always may. */
  #taskSupport(tool: ToolkitTool): ServedTaskSupport | undefined {
    const declared = this.#options.taskTools?.[tool.name];
    if (declared !== undefined) return declared;
    return tool.requiresApproval ? "optional" : undefined;
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

  #run(
    name: string,
    args: unknown,
    ids: ServedCallIds,
    signal?: AbortSignal,
    ask?: DownstreamAsk,
    progress?: DownstreamProgress,
  ): Promise<ToolkitEnvelope> {
    const toolkit = this.#toolkit;
    const coalesce = this.#approving(name);
    const key = `${ids.runId}\u0000${ids.callId}`;
    const joined = coalesce ? this.#running.get(key) : undefined;
    if (joined !== undefined) return joined;
    const controller = new AbortController();
    this.#aborts.add(controller);
    signal?.addEventListener("abort", () => controller.abort(), { once: true });
    // The upstream's requests for input during this call reach its client (or are declined).
    const unroute = this.#options.relay?.route(ids, ask ?? declineAll, progress);
    const call = toolkit.call(name, args ?? {}, { ...ids, signal: controller.signal });
    this.#inFlight.add(call);
    if (coalesce) this.#running.set(key, call);
    call.finally(() => {
      unroute?.();
      this.#aborts.delete(controller);
      this.#inFlight.delete(call);
      if (this.#running.get(key) === call) this.#running.delete(key);
    });
    return call;
  }
}

/** A round's answer to the client: the call's result, or `input_required`. */
function answerOf(step: Step<CallToolResult>): CallToolResult {
  return "value" in step ? step.value : step.inputRequired as unknown as CallToolResult;
}
