/**
 * MCP tasks for served calls, in both forms a client may speak: the 2025-11-25 tasks utility
 * (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`; fields `ttl`, `pollInterval`) and
 * the 2026-07-28 Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`: `tasks/get` inlines
 * the result or the error, `tasks/cancel` answers an empty ack, fields `ttlMs`,
 * `pollIntervalMs`). A task's work is the served call; the server SDK has no task runtime, so
 * sluice answers these methods itself.
 *
 * A call that waits for a person's approval is a task whose id is the approval's id: another
 * gateway sharing the store adopts it when the client polls there (see `lookup`), so any
 * instance of a fleet answers. A long-running read the operator declared a task tool lives in
 * the process that runs it (its result is in no store).
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { serverSdk } from "./sdk.ts";
import type { PendingInputs } from "./relay.ts";

/**
 * The `_meta` key that ties a 2025-11-25 result to its task.
 *
 * @category sluice serve
 */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** The task statuses sluice uses (it never asks the client for input). */
export type ServedTaskStatus = "working" | "completed" | "failed" | "cancelled";

/** A task as the 2025-11-25 tasks utility shows it. */
export interface TaskView {
  readonly taskId: string;
  readonly status: ServedTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttl: number;
  readonly pollInterval: number;
}

/** A task as the 2026-07-28 Tasks extension shows it (`tasks/get`'s DetailedTask). */
export interface ModernTaskView {
  readonly taskId: string;
  /** `input_required` while the upstream call waits for the client's answers. */
  readonly status: ServedTaskStatus | "input_required";
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** A completed task's result (a tool error is `isError` in it). */
  readonly result?: CallToolResult;
  /** A failed task's protocol-level error. */
  readonly error?: TaskError;
  /** What the upstream asks of the client, by key (status `input_required`). */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
}

/** A protocol-level error of a failed task, in the JSON-RPC error shape. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** What a task's work reports when it ends. */
export interface TaskOutcome {
  readonly result: CallToolResult;
  /** The call produced no result (2025-11-25 `failed`). */
  readonly failed: boolean;
  /**
   * Set when no result could be had for a protocol-level reason (the upstream answered a
   * JSON-RPC error, the transport failed, the deadline passed): 2026-07-28 `failed`. A tool that
   * ran and reported an error, or a refused call, is `completed` with an `isError` result.
   */
  readonly error?: TaskError;
}

/** The task limits taken from the endpoint's limits. */
export interface TaskLimits {
  /** Suggested poll interval, and how often a waiting task looks at the store again. */
  readonly pollMs: number;
  /** Longest (and default) task lifetime: after it, a task is forgotten. */
  readonly ttlMs: number;
  /** Most tasks one client may hold at once (ended ones count until their ttl). */
  readonly perClient: number;
}

/** The work of a task: the call, to its outcome. */
export type TaskWork = (
  signal: AbortSignal,
  note: (statusMessage: string) => void,
) => Promise<TaskOutcome>;

/** A task another instance made, found in the store: its key and its work here. */
export interface AdoptedTask {
  readonly key: string;
  readonly work: TaskWork;
}

/**
 * Finds the task `taskId` of `client` that this process does not hold (an approval in the
 * shared store), or `undefined`.
 */
export type TaskLookup = (client: string, taskId: string) => Promise<AdoptedTask | undefined>;

interface TaskRecord {
  view: TaskView;
  // The 2026-07-28 status: a tool error is `completed` there, `failed` in 2025-11-25.
  modern: ServedTaskStatus;
  readonly client: string;
  readonly key: string;
  readonly expiresAt: number;
  readonly stop: AbortController;
  readonly ended: Promise<void>;
  outcome?: TaskOutcome;
  // The upstream's requests for client input relayed to this task's client (2026-07-28).
  inputs?: PendingInputs;
}

const INVALID_PARAMS = -32602;
const PAGE = 100;
const NOT_FOUND = "Failed to retrieve task: Task not found";

/**
 * The tasks of one endpoint, per client. A task's work is the served call itself: it runs
 * until the call has an outcome other than "awaiting approval", then the task ends.
 *
 * @category sluice serve
 */
export class ServedTasks {
  readonly #limits: TaskLimits;
  readonly #lookup: TaskLookup | undefined;
  readonly #tasks = new Map<string, TaskRecord>();
  // (client, run and call ids) -> task id: the same call sent again is the same task.
  readonly #byKey = new Map<string, string>();

  /**
   * @param limits poll interval, lifetime and per-client count
   * @param lookup finds a task another instance of a fleet made (in the shared store)
   */
  constructor(limits: TaskLimits, lookup?: TaskLookup) {
    this.#limits = limits;
    this.#lookup = lookup;
  }

  /** The suggested poll interval, in milliseconds. */
  get pollMs(): number {
    return this.#limits.pollMs;
  }

  /**
   * The task of `key` for `client`, made when there is none: `work` runs it (it is handed a
   * signal that cancelling, the ttl or shutdown abort, and `note` to say what it waits for in
   * the task's `statusMessage`). Returns `undefined` when the client already holds as many
   * tasks as it may.
   *
   * @param client the client's name
   * @param key the call's run and call ids
   * @param ttl the ttl the client asked for, if any
   * @param work the call, to its outcome
   * @param taskId the task's id (an approval's id); default a fresh UUID
   */
  create(
    client: string,
    key: string,
    ttl: unknown,
    work: TaskWork,
    taskId: string = crypto.randomUUID(),
  ): TaskView | undefined {
    this.#sweep();
    const known = this.#byKey.get(`${client}\u0000${key}`) ?? taskId;
    const held = this.#tasks.get(known);
    if (held !== undefined && held.client === client) return held.view;
    if (held !== undefined) return undefined;
    let count = 0;
    for (const task of this.#tasks.values()) if (task.client === client) count++;
    if (count >= this.#limits.perClient) return undefined;
    const lifetime = typeof ttl === "number" && ttl > 0
      ? Math.min(Math.floor(ttl), this.#limits.ttlMs)
      : this.#limits.ttlMs;
    const now = new Date().toISOString();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), lifetime);
    const record: TaskRecord = {
      view: Object.freeze({
        taskId,
        status: "working",
        statusMessage: "The call is running.",
        createdAt: now,
        lastUpdatedAt: now,
        ttl: lifetime,
        pollInterval: this.#limits.pollMs,
      }),
      modern: "working",
      client,
      key: `${client}\u0000${key}`,
      expiresAt: Date.now() + lifetime,
      stop,
      ended: Promise.resolve(),
    };
    const note = (statusMessage: string) => {
      if (record.view.status !== "working" || record.view.statusMessage === statusMessage) return;
      record.view = Object.freeze({
        ...record.view,
        statusMessage,
        lastUpdatedAt: new Date().toISOString(),
      });
    };
    (record as { ended: Promise<void> }).ended = work(stop.signal, note).then((outcome) => {
      clearTimeout(timer);
      if (record.view.status !== "working") return;
      record.outcome = outcome;
      this.#settle(record, outcome.failed ? "failed" : "completed");
      record.modern = outcome.error === undefined ? "completed" : "failed";
    });
    this.#tasks.set(taskId, record);
    this.#byKey.set(record.key, taskId);
    return record.view;
  }

  /**
   * The task `taskId` of `client` (2025-11-25 form), or the protocol's invalid-params error.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  async get(client: string, taskId: unknown): Promise<TaskView> {
    return (await this.#own(client, taskId)).view;
  }

  /**
   * The task `taskId` of `client` as the Tasks extension's `tasks/get` answers it: status and
   * metadata, with the result (completed) or the error (failed) inlined.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  async detailed(client: string, taskId: unknown): Promise<ModernTaskView> {
    return modernView(await this.#own(client, taskId));
  }

  /**
   * The Tasks extension's `CreateTaskResult` of a task just made (a flat `Result & Task`).
   *
   * @param view the task, as `create` returned it
   */
  created(view: TaskView): Record<string, unknown> {
    const task = this.#tasks.get(view.taskId);
    const { result: _r, error: _e, inputRequests: _i, ...flat } = task === undefined
      ? modernOf(view, "working")
      : modernView(task);
    return { resultType: "task", ...flat };
  }

  /**
   * Waits for the task to end and answers the call's result, tied to the task (2025-11-25).
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  async result(client: string, taskId: unknown): Promise<CallToolResult> {
    const task = await this.#own(client, taskId);
    await task.ended;
    const result = task.outcome?.result ?? cancelledResult();
    return {
      ...result,
      _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: task.view.taskId } },
    };
  }

  /**
   * One page of the client's tasks, newest last (2025-11-25).
   *
   * @param client the client's name
   * @param cursor the cursor of the page before, if any
   */
  list(client: string, cursor: unknown): { tasks: TaskView[]; nextCursor?: string } {
    this.#sweep();
    const mine = [...this.#tasks.values()].filter((task) => task.client === client);
    let start = 0;
    if (cursor !== undefined) {
      start = typeof cursor === "string" && /^\d{1,9}$/.test(cursor) ? Number(cursor) : -1;
      if (start < 0 || start > mine.length) {
        throw new serverSdk.ProtocolError(INVALID_PARAMS, "tasks/list: invalid cursor");
      }
    }
    const page = mine.slice(start, start + PAGE).map((task) => task.view);
    return start + PAGE < mine.length
      ? { tasks: page, nextCursor: String(start + PAGE) }
      : { tasks: page };
  }

  /**
   * Cancels a working task: it stops waiting for the decision, or aborts the read it runs (the
   * approval itself stays in the store; a write already dispatched still ends with its recorded
   * outcome). In the 2025-11-25 form a task that already ended is the protocol's invalid-params
   * error; in the 2026-07-28 form (`idempotent`) cancelling it again is acknowledged.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   * @param idempotent whether an ended task is acknowledged rather than refused
   */
  async cancel(client: string, taskId: unknown, idempotent = false): Promise<TaskView> {
    const task = await this.#own(client, taskId);
    if (task.view.status !== "working") {
      if (idempotent) return task.view;
      throw new serverSdk.ProtocolError(INVALID_PARAMS, "tasks/cancel: the task already ended");
    }
    this.#settle(task, "cancelled");
    task.modern = "cancelled";
    task.stop.abort();
    return task.view;
  }

  /**
   * Shows the relayed input requests of `taskId`'s call on its `tasks/get` (status
   * `input_required` while any waits).
   *
   * @param taskId the task, as `create` made it
   * @param inputs the call's waiting requests
   */
  attachInputs(taskId: string, inputs: PendingInputs): void {
    const task = this.#tasks.get(taskId);
    if (task !== undefined) task.inputs = inputs;
  }

  /**
   * `tasks/update`: hands the client's `inputResponses` to the requests of its task they name
   * (the rest stay waiting, so a client may answer some now and the rest later).
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   * @param responses the client's `inputResponses`
   */
  async update(client: string, taskId: unknown, responses: unknown): Promise<void> {
    const task = await this.#own(client, taskId);
    task.inputs?.answer(responses);
  }

  /** Stops every task's waiting (shutdown); dispatches under way end on their own. */
  stopAll(): void {
    for (const task of this.#tasks.values()) task.stop.abort();
  }

  #settle(task: TaskRecord, status: ServedTaskStatus): void {
    const messages: Record<ServedTaskStatus, string | undefined> = {
      working: undefined,
      completed: "The call ran; its result is ready.",
      failed: "The call produced no result (refused, denied, expired or failed); see its result.",
      cancelled: "The task was cancelled by request; the call was not run by this task.",
    };
    const { statusMessage: _old, ...rest } = task.view;
    task.view = Object.freeze({
      ...rest,
      status,
      statusMessage: messages[status]!,
      lastUpdatedAt: new Date().toISOString(),
    });
  }

  async #own(client: string, taskId: unknown): Promise<TaskRecord> {
    this.#sweep();
    if (typeof taskId !== "string") {
      throw new serverSdk.ProtocolError(INVALID_PARAMS, NOT_FOUND);
    }
    let task = this.#tasks.get(taskId);
    if (task === undefined && this.#lookup !== undefined) {
      // Made by another instance: the store's approval says what the task is.
      const adopted = await this.#lookup(client, taskId).catch(() => undefined);
      if (adopted !== undefined) {
        this.create(client, adopted.key, undefined, adopted.work, taskId);
        task = this.#tasks.get(taskId);
        // Work that already has its outcome settles the task before it is answered.
        await Promise.race([task?.ended, new Promise((resolve) => setTimeout(resolve, 0))]);
      }
    }
    // Another client's task is answered as no task: ids are not shared.
    if (task === undefined || task.client !== client) {
      throw new serverSdk.ProtocolError(INVALID_PARAMS, NOT_FOUND);
    }
    return task;
  }

  /** Forgets tasks past their ttl. */
  #sweep(): void {
    const now = Date.now();
    for (const [id, task] of this.#tasks) {
      if (task.expiresAt > now) continue;
      task.stop.abort();
      this.#tasks.delete(id);
      this.#byKey.delete(task.key);
    }
  }
}

function modernView(task: TaskRecord): ModernTaskView {
  const view = modernOf(task.view, task.modern);
  const outcome = task.outcome;
  if (task.modern === "completed" && outcome !== undefined) {
    return { ...view, result: outcome.result };
  }
  if (task.modern === "failed" && outcome?.error !== undefined) {
    return { ...view, error: outcome.error };
  }
  const inputs = task.inputs;
  if (task.modern === "working" && inputs !== undefined && inputs.size > 0) {
    return { ...view, status: "input_required", inputRequests: inputs.requests() };
  }
  return view;
}

function modernOf(view: TaskView, status: ServedTaskStatus): ModernTaskView {
  return {
    taskId: view.taskId,
    status,
    ...(view.statusMessage === undefined ? {} : { statusMessage: view.statusMessage }),
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttlMs: view.ttl,
    pollIntervalMs: view.pollInterval,
  };
}

function cancelledResult(): CallToolResult {
  return {
    content: [{
      type: "text",
      text: "This call's task was cancelled or expired before the call had an outcome. " +
        "Its approval stays in the approval store: call the tool again with the same arguments " +
        "to meet it.",
    }],
    isError: true,
    _meta: { "io.sluice/outcome": { errorCode: "serve_task_cancelled" } },
  };
}
