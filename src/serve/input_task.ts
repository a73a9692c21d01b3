/**
 * A task tool whose upstream asks for input before its work (`inputBeforeTask`, SEP-2322 then
 * SEP-2663): its rounds are answered `input_required` while the client has not answered them;
 * the call becomes a task on the round the client answered (or at once when the upstream asked
 * nothing), and any later request of the upstream shows on that task.
 *
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolkitEnvelope } from "../connect/mod.ts";
import { type ServedCallIds, servedCallIds } from "./call_ids.ts";
import type { CallInput } from "./call_input.ts";
import { emitCallEvent, type ServeEvent } from "./events.ts";
import type { Conversation, InputRounds } from "./input_rounds.ts";
import { busyResult, taskOutcome } from "./task_outcome.ts";
import type { ServedTasks } from "./tasks.ts";

/** What the endpoint lends the call. */
export interface InputTaskContext {
  readonly rounds: InputRounds;
  readonly tasks: ServedTasks;
  readonly onEvent?: (event: ServeEvent) => void;
}

/**
 * Answers one `tools/call` of such a tool from a client that declared elicitation and tasks.
 *
 * @param context the endpoint's rounds, tasks and audit sink
 * @param client the client's name
 * @param tool the served tool (local name)
 * @param args the arguments as sent
 * @param run starts the call under these ids (its requests for input routed to the client)
 * @param input the call's input side (its waiting requests; a retried round's state)
 */
export async function inputThenTask(
  context: InputTaskContext,
  client: string,
  tool: string,
  args: unknown,
  run: (ids: ServedCallIds) => Promise<ToolkitEnvelope>,
  input: CallInput,
): Promise<CallToolResult> {
  const start = performance.now();
  let conversation: Conversation<ToolkitEnvelope>;
  let ids: ServedCallIds;
  if (input.state !== undefined) {
    conversation = context.rounds.resume<ToolkitEnvelope>(client, input.state, input.responses);
    // The call goes on as a task: its state no longer names a round.
    context.rounds.forget(input.state as string);
    ids = { runId: `serve:${client}:input`, callId: String(input.state) };
  } else {
    ids = await servedCallIds(client, tool, args, undefined, false);
    conversation = { client, inputs: input.inputs!, result: run(ids) };
    const step = await context.rounds.step(conversation);
    if ("inputRequired" in step) return step.inputRequired as unknown as CallToolResult;
  }
  const taskId = crypto.randomUUID();
  const ended = conversation.result;
  const view = context.tasks.create(client, `input\u0000${taskId}`, undefined, async () => {
    const envelope = await ended;
    emitCallEvent(context.onEvent, client, tool, envelope, ids, start, taskId);
    return taskOutcome(envelope);
  }, taskId);
  if (view === undefined) return busyResult();
  context.tasks.attachInputs(taskId, conversation.inputs);
  return context.tasks.created(view) as unknown as CallToolResult;
}
