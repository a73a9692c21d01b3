/**
 * MCP tasks (protocol 2025-11-25, the tasks utility) for served calls that need a person's
 * approval: a task-augmented `tools/call` answers at once with a task, the call waits for the
 * decision in the approval store, and the client polls `tasks/get` and takes the outcome with
 * `tasks/result` (`tasks/list` and `tasks/cancel` too). The server SDK has no task runtime, so
 * sluice answers these methods itself. Tasks live in this process; the approval they wait for
 * lives in the store, so the same call sent again after a restart still meets it.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { serverSdk } from "./sdk.ts";

/**
 * The `_meta` key that ties a result to its task.
 *
 * @category sluice serve
 */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** The 2025-11-25 task statuses sluice uses (it never asks the client for input). */
export type ServedTaskStatus = "working" | "completed" | "failed" | "cancelled";

/** A task as the protocol shows it. */
export interface TaskView {
  readonly taskId: string;
  readonly status: ServedTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttl: number;
  readonly pollInterval: number;
}

/** What a task's work reports when it ends: the result, and whether it was a failure. */
export interface TaskOutcome {
  readonly result: CallToolResult;
  readonly failed: boolean;
}

/** The task limits taken from the endpoint's limits. */
export interface TaskLimits {
  /** Suggested `pollInterval`, and how often a waiting task looks at the store again. */
  readonly pollMs: number;
  /** Longest (and default) task lifetime: after it, a task is forgotten. */
  readonly ttlMs: number;
  /** Most tasks one client may hold at once (ended ones count until their ttl). */
  readonly perClient: number;
}

interface TaskRecord {
  view: TaskView;
  readonly client: string;
  readonly key: string;
  readonly expiresAt: number;
  readonly stop: AbortController;
  readonly ended: Promise<void>;
  outcome?: TaskOutcome;
}

const INVALID_PARAMS = -32602;
const PAGE = 100;

/**
 * The tasks of one endpoint, per client. A task's work is the served call itself: it runs
 * until the call has an outcome other than "awaiting approval", then the task ends.
 *
 * @category sluice serve
 */
export class ServedTasks {
  readonly #limits: TaskLimits;
  readonly #tasks = new Map<string, TaskRecord>();
  // (client, run and call ids) -> task id: the same call sent again is the same task.
  readonly #byKey = new Map<string, string>();

  /**
   * @param limits poll interval, lifetime and per-client count
   */
  constructor(limits: TaskLimits) {
    this.#limits = limits;
  }

  /**
   * The task of `key` for `client`, made when there is none: `work` runs it (it is handed a
   * signal that `tasks/cancel`, the ttl or shutdown abort, and `note` to say what it waits for
   * in the task's `statusMessage`). Returns `undefined` when the client
   * already holds as many tasks as it may.
   *
   * @param client the client's name
   * @param key the call's run and call ids
   * @param ttl the ttl the client asked for, if any
   * @param work the call, to its outcome
   */
  create(
    client: string,
    key: string,
    ttl: unknown,
    work: (signal: AbortSignal, note: (statusMessage: string) => void) => Promise<TaskOutcome>,
  ): TaskView | undefined {
    this.#sweep();
    const known = this.#byKey.get(`${client}\u0000${key}`);
    if (known !== undefined) return this.#tasks.get(known)!.view;
    let held = 0;
    for (const task of this.#tasks.values()) if (task.client === client) held++;
    if (held >= this.#limits.perClient) return undefined;
    const lifetime = typeof ttl === "number" && ttl > 0
      ? Math.min(Math.floor(ttl), this.#limits.ttlMs)
      : this.#limits.ttlMs;
    const now = new Date().toISOString();
    const taskId = crypto.randomUUID();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), lifetime);
    const view: TaskView = {
      taskId,
      status: "working",
      statusMessage: "Waiting for a person's approval in the approval store.",
      createdAt: now,
      lastUpdatedAt: now,
      ttl: lifetime,
      pollInterval: this.#limits.pollMs,
    };
    const record: TaskRecord = {
      view,
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
    });
    this.#tasks.set(taskId, record);
    this.#byKey.set(record.key, taskId);
    return view;
  }

  /**
   * The task `taskId` of `client`, or the protocol's invalid-params error.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  get(client: string, taskId: unknown): TaskView {
    return this.#own(client, taskId).view;
  }

  /**
   * Waits for the task to end and answers the call's result, tied to the task.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  async result(client: string, taskId: unknown): Promise<CallToolResult> {
    const task = this.#own(client, taskId);
    await task.ended;
    const result = task.outcome?.result ?? cancelledResult();
    return {
      ...result,
      _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: task.view.taskId } },
    };
  }

  /**
   * One page of the client's tasks, newest last.
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
   * Cancels a working task: it stops waiting for the decision (the approval itself stays in
   * the store; a dispatch already under way still ends with its recorded outcome). A task that
   * already ended is the protocol's invalid-params error.
   *
   * @param client the client's name
   * @param taskId the task id the client sent
   */
  cancel(client: string, taskId: unknown): TaskView {
    const task = this.#own(client, taskId);
    if (task.view.status !== "working") {
      throw new serverSdk.ProtocolError(INVALID_PARAMS, "tasks/cancel: the task already ended");
    }
    this.#settle(task, "cancelled");
    task.stop.abort();
    return task.view;
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

  #own(client: string, taskId: unknown): TaskRecord {
    this.#sweep();
    const task = typeof taskId === "string" ? this.#tasks.get(taskId) : undefined;
    // Another client's task is answered as no task: ids are not shared.
    if (task === undefined || task.client !== client) {
      throw new serverSdk.ProtocolError(INVALID_PARAMS, "Failed to retrieve task: Task not found");
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
