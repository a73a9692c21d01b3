/**
 * The Vercel AI SDK adapter: a toolkit's tools as an AI SDK `ToolSet` for `generateText` /
 * `streamText` (AI SDK 6 and 7). Each tool's schema is the one sluice exports for the chosen
 * provider, and its `execute` runs `toolkit.call`, whose envelope becomes the tool result the
 * model reads.
 *
 * A tool that needs approval, given `approvals` (the store `connect()` uses and who decides),
 * takes the AI SDK's own approval flow: `needsApproval` prepares sluice's pending approval
 * (durable, bound to the arguments' digest) and asks the AI SDK for a decision, so the app shows
 * its usual approval UI; the decision comes back in the messages (`addToolApprovalResponse`),
 * is recorded in sluice's store by the person the app names, and the call then goes through the
 * gate, which claims the approval once against the arguments. An approval response the store
 * has no pending approval for, or for other arguments, or one used already, dispatches nothing.
 *
 * @module
 */
import { digest, type JsonObject, type JsonValue } from "../identity/mod.ts";
import { loadOptional } from "../optional_packages.ts";
import { toAnthropicTools } from "./anthropic.ts";
import { toGeminiTools } from "./gemini.ts";
import { toOpenAIResponsesTools, toOpenAITools } from "./openai.ts";
import { stripExportNulls } from "./strip_nulls.ts";
import type { Provider, ProviderExportReport, ProviderToolSource } from "./types.ts";

// `ai` is an optional npm package: this entry loads it, and a missing one is a
// `dependency_missing` error at import naming what to install, not a module-not-found stack.
const { jsonSchema, tool } = await loadOptional("ai", () => import("ai"));

/**
 * What the adapter reads from a call's envelope (a toolkit's `ConnectEnvelope` fits).
 *
 * @category Agent developers: providers
 */
export interface AISDKCallEnvelope {
  /** Text blocks, or sluice's fixed sentence for an approval outcome. */
  readonly text: readonly string[];
  /** Validated structured content, or `null`. */
  readonly structured: JsonValue | null;
  /** Present exactly when the call did not run to a valid result. */
  readonly errorCode?: string;
  /** The approval a deferred call is bound to. */
  readonly approvalId?: string;
}

/**
 * The part of a toolkit the adapter uses (sluice's `Toolkit` fits).
 *
 * @category Agent developers: providers
 */
export interface AISDKToolkit {
  /** The model-facing tools; `requiresApproval` marks those whose calls need a decision. */
  readonly tools: readonly (ProviderToolSource & { readonly requiresApproval?: boolean })[];
  /** Runs one call; never throws. */
  call(
    name: string,
    args: unknown,
    options?: {
      readonly signal?: AbortSignal;
      readonly callId?: string;
      readonly runId?: string;
    },
  ): Promise<AISDKCallEnvelope>;
}

/**
 * The part of an approval record the AI SDK approval flow reads.
 *
 * @category Agent developers: providers
 */
export interface AISDKApprovalRecord {
  /** The approval id. */
  readonly id: string;
  /** `pending`, `approved`, `denied`, `claimed`, `committed`, ... */
  readonly state: string;
  /** The digest of the arguments the approval is bound to. */
  readonly argumentsDigest: string;
}

/**
 * The part of an approval store the AI SDK approval flow uses (every sluice store fits).
 *
 * @category Agent developers: providers
 */
export interface AISDKApprovalStore {
  /** The approval prepared for the model's tool call `callId` of run `runId`. */
  findCall(runId: string, callId: string): Promise<AISDKApprovalRecord | undefined>;
  /** A person approves a pending approval. */
  approve(id: string, input: { readonly by: string }): Promise<unknown>;
  /** A person denies a pending approval. */
  deny(id: string, input: { readonly by: string }): Promise<unknown>;
}

/**
 * How decisions made in the AI SDK's approval flow reach sluice's store.
 *
 * @category Agent developers: providers
 */
export interface AISDKApprovals {
  /** The store the connection's gate uses (`connect()`'s `store`). */
  readonly store: AISDKApprovalStore;
  /** The person deciding, as the app knows them (recorded as the decider); non-empty. */
  readonly decidedBy: string;
  /**
   * The run the approvals are filed under, with the model's tool call id as the call id
   * (default `"ai-sdk"`). Pass the chat's id to keep chats apart: a decision that arrives in a
   * later request finds its approval by run and tool call id.
   */
  readonly runId?: string;
}

/**
 * Options of `toAISDKTools`.
 *
 * @category Agent developers: providers
 */
export interface AISDKToolsOptions {
  /** Whose export rules the schemas follow (default `"openai"`). */
  readonly provider?: Provider;
  /** The provider's strict mode (OpenAI, Anthropic). */
  readonly strict?: boolean;
  /** Gemini: refuse tools with keywords Gemini ignores. */
  readonly exact?: boolean;
  /** Strict modes: close open objects (narrows what the model may send). */
  readonly closeOpenObjects?: boolean;
  /**
   * Tools that need approval take the AI SDK's approval flow (`needsApproval`), the decision
   * recorded in this store. Without it such a call's result tells the model it is pending, and
   * a person decides in sluice's inbox or CLI (then `toolkit.resume`).
   */
  readonly approvals?: AISDKApprovals;
}

/**
 * What the model reads as a tool's result.
 *
 * @category Agent developers: providers
 */
export type AISDKToolResult =
  /** The call ran; its validated result. */
  | {
    readonly status: "ok";
    readonly text: readonly string[];
    readonly structured: JsonValue | null;
  }
  /** The call waits for a person's approval and has not run. */
  | {
    readonly status: "approval_pending";
    readonly text: readonly string[];
    readonly approvalId?: string;
  }
  /** The call did not run to a valid result; `errorCode` says why (sluice's fixed code). */
  | { readonly status: "error"; readonly errorCode: string; readonly text: readonly string[] };

/**
 * Sluice's sentence for a failed call whose envelope carries no fixed text.
 *
 * @category Agent developers: providers
 */
export const AI_SDK_ERROR_TEXT = "The tool call did not complete; the error code says why.";

/**
 * One tool of the set, as sluice describes it: the AI SDK's `Tool` at run time, typed so that the
 * set is a `ToolSet` of AI SDK 6 and 7 alike without naming either version's types.
 *
 * @category Agent developers: providers
 */
export interface AISDKTool {
  /** The tool's description. */
  readonly description?: string;
  /**
   * The schema the model is given: the AI SDK's `jsonSchema(...)` of sluice's export. Each `ai`
   * version declares that object's type on its own, so it is not typed here.
   */
  // deno-lint-ignore no-explicit-any
  readonly inputSchema: any;
  /** Present on tools that need approval (with the `approvals` option): asks the AI SDK. */
  readonly needsApproval?: (
    input: unknown,
    options: { readonly toolCallId: string; readonly messages?: readonly AISDKHistoryMessage[] },
  ) => Promise<boolean>;
  /** Runs `toolkit.call`; never throws. */
  execute?(
    input: unknown,
    options: {
      readonly toolCallId: string;
      readonly abortSignal?: AbortSignal;
      readonly messages?: readonly AISDKHistoryMessage[];
    },
  ): Promise<AISDKToolResult>;
}

/**
 * The tool set with the export's report as a non-enumerable `report`. It is a `ToolSet` of the
 * `ai` package installed beside sluice (6 or 7): it goes to `generateText` / `streamText` as it
 * is. `T` may name that `ToolSet` for the AI SDK's own tool types.
 *
 * @category Agent developers: providers
 */
export type AISDKTools<T extends object = Record<string, AISDKTool>> = T & {
  readonly report: ProviderExportReport;
};

function exportFor(tools: readonly ProviderToolSource[], options: AISDKToolsOptions) {
  const provider = options.provider ?? "openai";
  if (provider === "gemini") {
    const out = toGeminiTools(tools, options);
    return {
      report: out.report,
      schemas: out.map((t) => [t.name, t.parametersJsonSchema] as const),
    };
  }
  if (provider === "anthropic") {
    const out = toAnthropicTools(tools, options);
    return { report: out.report, schemas: out.map((t) => [t.name, t.input_schema] as const) };
  }
  if (provider === "openai-responses") {
    const out = toOpenAIResponsesTools(tools, options);
    return { report: out.report, schemas: out.map((t) => [t.name, t.parameters] as const) };
  }
  const out = toOpenAITools(tools, options);
  return {
    report: out.report,
    schemas: out.map((t) => [t.function.name, t.function.parameters] as const),
  };
}

/**
 * The envelope as the model's tool result.
 *
 * @category Agent developers: providers
 */
export function toolResultOf(envelope: AISDKCallEnvelope): AISDKToolResult {
  if (envelope.errorCode === undefined) {
    return { status: "ok", text: envelope.text, structured: envelope.structured };
  }
  if (envelope.errorCode === "approval_pending") {
    return {
      status: "approval_pending",
      text: envelope.text,
      ...(envelope.approvalId === undefined ? {} : { approvalId: envelope.approvalId }),
    };
  }
  return {
    status: "error",
    errorCode: envelope.errorCode,
    text: envelope.text.length > 0 ? envelope.text : [AI_SDK_ERROR_TEXT],
  };
}

/**
 * One message of the AI SDK's history (`ModelMessage`), as far as the approval flow reads it.
 *
 * @category Agent developers: providers
 */
export interface AISDKHistoryMessage {
  /** `user`, `assistant`, `tool`, `system`. */
  readonly role: string;
  /** A string, or the message's parts (`tool-call`, `tool-approval-request`, ...). */
  readonly content: unknown;
}

/** The parts of a message's content (a string content has none). */
function partsOf(message: AISDKHistoryMessage): readonly Record<string, unknown>[] {
  return Array.isArray(message.content) ? message.content : [];
}

/**
 * The AI SDK approval decisions in `messages`: by tool call id, whether it was approved.
 */
function decisionsIn(messages: readonly AISDKHistoryMessage[]): Map<string, { approved: boolean }> {
  const requests = new Map<string, string>();
  const decisions = new Map<string, { approved: boolean }>();
  for (const message of messages) {
    for (const part of partsOf(message)) {
      if (
        part.type === "tool-approval-request" && typeof part.approvalId === "string" &&
        typeof part.toolCallId === "string"
      ) {
        requests.set(part.approvalId, part.toolCallId);
      } else if (part.type === "tool-approval-response" && typeof part.approvalId === "string") {
        const callId = requests.get(part.approvalId);
        if (callId !== undefined) {
          decisions.set(callId, { approved: part.approved === true });
        }
      }
    }
  }
  return decisions;
}

/**
 * Records one AI SDK decision in sluice's store, on the pending approval prepared for the tool
 * call: a denial as it is (denying runs nothing), an approval only when `args` (what the call
 * will run with) have the digest the approval is bound to. Anything else (no such approval,
 * other arguments, already decided or used) is left as it is; the gate then settles the call
 * from what the store holds; without a decision nothing is recorded. Returns whether the store
 * has an approval for the call at all.
 */
async function recordDecision(
  approvals: AISDKApprovals,
  callId: string,
  decision: { approved: true; args: unknown } | { approved: false } | undefined,
): Promise<boolean> {
  const { store } = approvals;
  const record = await store.findCall(approvals.runId ?? AI_SDK_RUN_ID, callId);
  if (record === undefined) return false;
  if (record.state !== "pending" || decision === undefined) return true;
  const by = { by: approvals.decidedBy };
  if (decision.approved) {
    let digested: string;
    try {
      digested = await digest(decision.args as JsonValue);
    } catch {
      return true;
    }
    if (digested !== record.argumentsDigest) return true;
  }
  // A concurrent decision wins; the gate reads whatever was recorded.
  await (decision.approved ? store.approve(record.id, by) : store.deny(record.id, by))
    .catch(() => {});
  return true;
}

/**
 * The run id approvals of the AI SDK flow are filed under when `approvals.runId` is not given.
 *
 * @category Agent developers: providers
 */
export const AI_SDK_RUN_ID = "ai-sdk";

/**
 * Records the denials among the AI SDK approval decisions in `messages` (the history
 * `generateText` / `streamText` is about to get) in sluice's store. The AI SDK answers a denial
 * itself without calling the tool, so without this the approval stays pending until it expires;
 * approvals need nothing of the kind (the approved call's `execute` records them, against the
 * arguments it runs with).
 *
 * @param messages the model messages (`ModelMessage[]`, for example from `convertToModelMessages`)
 * @param approvals the store and the person deciding, as given to {@link toAISDKTools}
 * @returns how many denials found an approval of sluice's
 *
 * @category Agent developers: providers
 */
export async function recordAISDKDenials(
  messages: readonly AISDKHistoryMessage[],
  approvals: AISDKApprovals,
): Promise<number> {
  let recorded = 0;
  for (const [callId, { approved }] of decisionsIn(messages)) {
    if (!approved && await recordDecision(approvals, callId, { approved: false })) recorded++;
  }
  return recorded;
}

/**
 * The toolkit's tools as an AI SDK `ToolSet`. Tools the chosen provider's export refuses are
 * left out (see `report.refused`). `execute` never throws: it removes the strict export's
 * `null`s for omitted optional properties, calls `toolkit.call` with the model's tool call id,
 * and returns the envelope as an {@link AISDKToolResult}.
 *
 * A tool that needs approval: with `options.approvals`, its `needsApproval` prepares sluice's
 * approval and asks the AI SDK for the decision (`tool-approval-request`); the approved call's
 * `execute` records the decision in the store and runs the call through the gate, which claims
 * the approval once against the arguments (a response for another call, other arguments or a
 * used approval dispatches nothing; `approval_not_found` when the store has no approval for the
 * call). Without `approvals`, the call's result tells the model it is pending, never a silent
 * success.
 *
 * @example
 * ```ts
 * import { generateText, type LanguageModel, type ModelMessage, stepCountIs, type ToolSet } from "ai";
 * import type { ApprovalStore, Connection } from "@sluice/mcp";
 * import { toAISDKTools } from "@sluice/mcp/ai-sdk";
 * declare const connection: Connection, store: ApprovalStore, model: LanguageModel;
 * declare const user: { email: string }, chat: { id: string }, messages: ModelMessage[];
 *
 * const tools = toAISDKTools<ToolSet>(connection.toolkit, {
 *   provider: "openai",
 *   strict: true,
 *   approvals: { store, decidedBy: user.email, runId: chat.id },
 * });
 * await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
 * ```
 *
 * @typeParam T the set's type: by default sluice's own, which is a `ToolSet` of AI SDK 6 and 7;
 *   or that `ToolSet` itself
 * @param toolkit the toolkit (anything with `tools` and `call`)
 * @param options the provider whose export rules apply, its options, and the approval flow
 *
 * @category Agent developers: providers
 */
export function toAISDKTools<T extends object = Record<string, AISDKTool>>(
  toolkit: AISDKToolkit,
  options: AISDKToolsOptions = {},
): AISDKTools<T> {
  const { report, schemas } = exportFor(toolkit.tools, options);
  const sources = new Map(toolkit.tools.map((t) => [t.name, t]));
  const { approvals } = options;
  const runId = approvals === undefined ? {} : { runId: approvals.runId ?? AI_SDK_RUN_ID };
  // needsApproval ran the call when the gate needed nobody (a standing grant, an inline
  // approver): its envelope, for the execute that follows in the same step.
  const settled = new Map<string, AISDKCallEnvelope>();
  const set: Record<string, unknown> = {};
  for (const [name, schema] of schemas) {
    const record = report.nullable[name];
    const argsOf = (input: unknown) => record ? stripExportNulls(input, record) : input;
    const gated = approvals !== undefined && sources.get(name)?.requiresApproval === true;
    const call = async (input: unknown, callId: string, signal?: AbortSignal) =>
      await toolkit.call(name, argsOf(input), { signal, callId, ...runId });
    set[name] = tool({
      description: sources.get(name)?.description,
      inputSchema: jsonSchema<unknown>(schema as JsonObject),
      ...(gated
        ? {
          needsApproval: async (
            input: unknown,
            { toolCallId, messages }: {
              toolCallId: string;
              messages?: readonly AISDKHistoryMessage[];
            },
          ) => {
            // Asked again about a call whose decision the history already carries (AI SDK 7
            // re-checks approved calls before running them): nothing is prepared now, so an
            // approval response for a call the model never made finds no approval of sluice's.
            if (decisionsIn(messages ?? []).has(toolCallId)) return true;
            try {
              const envelope = await call(input, toolCallId);
              if (envelope.errorCode === "approval_pending") return true;
              settled.set(toolCallId, envelope);
            } catch {
              settled.set(toolCallId, {
                text: [],
                structured: null,
                errorCode: "mcp_protocol_error",
              });
            }
            return false;
          },
        }
        : {}),
      execute: async (
        input: unknown,
        { toolCallId, abortSignal, messages }: {
          toolCallId: string;
          abortSignal?: AbortSignal;
          messages?: readonly AISDKHistoryMessage[];
        },
      ): Promise<AISDKToolResult> => {
        try {
          const early = settled.get(toolCallId);
          if (early !== undefined) {
            settled.delete(toolCallId);
            return toolResultOf(early);
          }
          if (gated) {
            // The AI SDK runs `execute` for a call that needed approval only once the messages
            // carry its approval: recorded in sluice's store first, then claimed by the gate.
            const approved = decisionsIn(messages ?? []).get(toolCallId)?.approved === true;
            const known = await recordDecision(
              approvals,
              toolCallId,
              approved ? { approved: true, args: argsOf(input) } : undefined,
            );
            // No approval of sluice's for this call: nothing is prepared or run for a decision
            // the model's own call never asked for.
            if (!known) {
              return toolResultOf({ text: [], structured: null, errorCode: "approval_not_found" });
            }
          }
          return toolResultOf(await call(input, toolCallId, abortSignal));
        } catch {
          return { status: "error", errorCode: "mcp_protocol_error", text: [AI_SDK_ERROR_TEXT] };
        }
      },
    });
  }
  Object.defineProperty(set, "report", { value: report, enumerable: false });
  return set as AISDKTools<T>;
}
