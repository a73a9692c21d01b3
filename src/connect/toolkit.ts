import type { JsonObject, JsonValue } from "../identity/mod.ts";
import type { CallErrorCode } from "../calls/envelope.ts";
import type { ApprovalStore } from "../approvals/types.ts";
import type { Gate } from "../gate/gate.ts";
import type { GateEnvelope, GateErrorCode, WriteOutcomeEffect } from "../gate/types.ts";
import {
  type AnthropicTool,
  type GeminiFunctionDeclaration,
  type OpenAITool,
  type ProviderToolSource,
  toAnthropicTools,
  toGeminiTools,
  toOpenAITools,
} from "../providers/mod.ts";
import type { ApproveCallback } from "./config.ts";
import type { ConnectedTool } from "./discovery.ts";
import { type ConnectApprovalDecision, type ConnectEvent, elapsed, emitEvent } from "./events.ts";
import { askApproval } from "./governance.ts";
import { type ServerSession, SessionSetupError, type SessionSetupErrorCode } from "./session.ts";

/** Why a toolkit call produced no result. */
export type ConnectCallErrorCode =
  | CallErrorCode
  /** Deferred approvals: the gate's codes (claim refusals, store failures). */
  | GateErrorCode
  | SessionSetupErrorCode
  /** The model named a tool the toolkit does not have. */
  | "unknown_tool"
  /** The approval callback did not return exactly `true` (or threw). */
  | "approval_denied"
  /** The call waits for a person's decision in the approval store. */
  | "approval_pending"
  /** The tool needs approval but neither `approve` nor an approval store is configured. */
  | "approval_unavailable";

/**
 * What `toolkit.call` returns. On failure `structured` is `null`, `errorCode` says why, and
 * `text` is empty except for the fixed sentence sluice writes for approval outcomes.
 */
export interface ConnectEnvelope {
  /** The result's text blocks (or sluice's fixed approval sentence). */
  readonly text: readonly string[];
  /** The validated structured content, or `null`. */
  readonly structured: JsonValue | null;
  /** Present exactly when the call did not run to a valid result. */
  readonly errorCode?: ConnectCallErrorCode;
  /** Deferred approvals only: the approval the call is bound to (pass it to `resume`). */
  readonly approvalId?: string;
  /** Deferred approvals only: what happened at the server as far as sluice can prove. */
  readonly effect?: WriteOutcomeEffect;
}

/** Fixed texts the model sees for approval outcomes (never the owner's or a server's text). */
export const APPROVAL_TEXT: Readonly<{ denied: string; pending: string; unavailable: string }> =
  Object
    .freeze({
      denied: "This call was not approved, so it was not run.",
      pending: "This call needs a person's approval; it has not run yet.",
      unavailable: "This call needs approval, and no approval path is configured; it was not run.",
    });

/** One model-facing tool of a toolkit. */
export interface ToolkitTool extends ProviderToolSource {
  /** Server id. */
  readonly server: string;
  /** Remote tool name. */
  readonly tool: string;
  /** Whether each call needs an approval. */
  readonly requiresApproval: boolean;
}

/** Options of one toolkit call. */
export interface ToolkitCallOptions {
  /** Aborts the call (the envelope then says `mcp_timeout`). */
  readonly signal?: AbortSignal;
  /**
   * Deferred approvals: the agent run (default: one id per connection). With `callId` it names
   * the call's approval, so repeating a call after a restart finds the same approval.
   */
  readonly runId?: string;
  /** Deferred approvals: the model's tool call id (default: a fresh id per call). */
  readonly callId?: string;
}

/** Options of `toolkit.resume`. */
export interface ToolkitResumeOptions {
  /** Aborts waiting (a sent write then ends with effect `unknown`). */
  readonly signal?: AbortSignal;
}

/** One server's part of a toolkit. */
export interface ToolkitServer {
  readonly id: string;
  readonly session: ServerSession;
  readonly tools: readonly ConnectedTool[];
}

/** What the toolkit needs from connect(). */
export interface ToolkitContext {
  readonly servers: readonly ToolkitServer[];
  readonly approve?: ApproveCallback;
  readonly onEvent?: (event: ConnectEvent) => void;
  /** The gate for deferred approvals (present when a store is configured and no callback). */
  readonly gate?: Gate;
  /** The approval store the gate uses (to find the server of a resumed approval). */
  readonly store?: ApprovalStore;
  /** Default run id of deferred calls. */
  readonly runId: string;
}

interface Entry {
  readonly server: ToolkitServer;
  readonly connected: ConnectedTool;
  readonly model: ToolkitTool;
}

/**
 * The allowlisted tools of a connection, as the model sees them. `call` never throws; the
 * provider exports give each API's exact tool shape.
 */
export class Toolkit {
  /** The model-facing tools, sorted by name. */
  readonly tools: readonly ToolkitTool[];
  readonly #entries: ReadonlyMap<string, Entry>;
  readonly #context: ToolkitContext;

  /**
   * Builds the toolkit from discovered servers (connect() does this).
   *
   * @param context the servers' catalogs, the approval callback and the event sink
   */
  constructor(context: ToolkitContext) {
    this.#context = context;
    const entries = new Map<string, Entry>();
    for (const server of context.servers) {
      for (const connected of server.tools) {
        const model: ToolkitTool = Object.freeze({
          name: connected.allowed.localName,
          description: connected.description,
          inputSchema: connected.inputSchema,
          server: server.id,
          tool: connected.allowed.tool,
          requiresApproval: connected.policy.requiresApproval,
        });
        entries.set(model.name, { server, connected, model });
      }
    }
    this.#entries = entries;
    this.tools = Object.freeze(
      [...entries.values()].map((entry) => entry.model).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0
      ),
    );
  }

  /** Anthropic tool definitions (`{ name, description, input_schema }`). */
  toAnthropicTools(): AnthropicTool[] {
    return toAnthropicTools(this.tools);
  }

  /** OpenAI Chat Completions tool definitions. */
  toOpenAITools(): OpenAITool[] {
    return toOpenAITools(this.tools);
  }

  /** Gemini function declarations (`{ name, description, parametersJsonSchema }`). */
  toGeminiTools(): GeminiFunctionDeclaration[] {
    return toGeminiTools(this.tools);
  }

  /**
   * Runs one model tool call: local argument checks, the approval rule, the session (set up
   * on first use), exactly one `tools/call`, result checks. Never throws; emits one event.
   *
   * @param name the model-facing tool name
   * @param args the model's arguments
   * @param options abort signal
   */
  async call(
    name: string,
    args: unknown,
    options: ToolkitCallOptions = {},
  ): Promise<ConnectEnvelope> {
    const start = performance.now();
    const entry = typeof name === "string" ? this.#entries.get(name) : undefined;
    let approval: ConnectApprovalDecision | undefined;
    let envelope: ConnectEnvelope;
    try {
      if (entry === undefined) {
        envelope = fail("unknown_tool");
      } else if (entry.connected.deferred) {
        envelope = await this.#runDeferred(entry, args, options);
        approval = approvalOf(envelope);
      } else {
        envelope = await this.#run(entry, args, options.signal, (decision) => approval = decision);
      }
    } catch {
      envelope = fail("mcp_protocol_error");
    }
    return this.#emitCall(start, entry, envelope, approval);
  }

  /**
   * Runs a deferred call whose approval a person has decided since (in the approval store,
   * for example with `sluice approvals approve <id>`). An approved call is dispatched exactly
   * once; a pending one stays `approval_pending`; a denied or expired one is not run. Never
   * throws; emits one call event.
   *
   * @param approvalId the id from an `approval_pending` envelope
   * @param options abort signal
   */
  async resume(approvalId: string, options: ToolkitResumeOptions = {}): Promise<ConnectEnvelope> {
    const start = performance.now();
    const { gate, store } = this.#context;
    let entry: Entry | undefined;
    let envelope: ConnectEnvelope;
    let approval: ConnectApprovalDecision | undefined;
    try {
      const record = gate && store && typeof approvalId === "string"
        ? await store.get(approvalId).catch(() => undefined)
        : undefined;
      entry = record === undefined ? undefined : this.#entries.get(record.toolName);
      if (gate === undefined || record === undefined || entry === undefined) {
        envelope = fail("approval_not_found");
      } else {
        // The server must be set up before the gate claims and dispatches.
        const setup = await setupFailure(entry, options.signal);
        if (setup !== undefined) {
          envelope = fail(setup);
        } else {
          envelope = fromGate(
            await gate.resume(approvalId, options.signal ? { signal: options.signal } : {}),
          );
          approval = approvalOf(envelope);
        }
      }
    } catch {
      envelope = fail("mcp_protocol_error");
    }
    return this.#emitCall(start, entry, envelope, approval);
  }

  /** Emits the one call event of a `call` or `resume` and hands the envelope back. */
  #emitCall(
    start: number,
    entry: Entry | undefined,
    envelope: ConnectEnvelope,
    approval: ConnectApprovalDecision | undefined,
  ): ConnectEnvelope {
    // Calls are the hot path: no event is built when nobody listens.
    if (this.#context.onEvent === undefined) return envelope;
    emitEvent(this.#context.onEvent, {
      kind: "call",
      server: entry?.server.id ?? "",
      ...(entry ? { tool: entry.model.tool } : {}),
      ok: envelope.errorCode === undefined,
      ...(envelope.errorCode !== undefined ? { errorCode: envelope.errorCode } : {}),
      ...(approval !== undefined ? { approval } : {}),
      durationMs: elapsed(start),
      catalogDigest: entry?.connected.catalogDigest ?? null,
    });
    return envelope;
  }

  async #runDeferred(
    entry: Entry,
    args: unknown,
    options: ToolkitCallOptions,
  ): Promise<ConnectEnvelope> {
    const gate = this.#context.gate;
    if (gate === undefined) return fail("mcp_protocol_error");
    const [outcome] = await gate.run([{
      id: options.callId ?? crypto.randomUUID(),
      name: entry.model.name,
      arguments: args,
    }], {
      runId: options.runId ?? this.#context.runId,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return fromGate(outcome);
  }

  async #run(
    entry: Entry,
    args: unknown,
    signal: AbortSignal | undefined,
    recordApproval: (decision: ConnectApprovalDecision) => void,
  ): Promise<ConnectEnvelope> {
    const layers = entry.connected.layers;
    const admission = await layers.admit(args, undefined, signal);
    if (!admission.ok) return fail(admission.errorCode);
    if (!entry.model.requiresApproval) {
      recordApproval("not_required");
    } else {
      const outcome = await this.#approve(entry, admission.args, signal);
      recordApproval(outcome === "aborted" || outcome === "unavailable" ? "denied" : outcome);
      if (outcome === "aborted") return fail("mcp_timeout");
      if (outcome === "unavailable") {
        return fixed("approval_unavailable", APPROVAL_TEXT.unavailable);
      }
      if (outcome === "denied") return fixed("approval_denied", APPROVAL_TEXT.denied);
      if (outcome === "pending") return fixed("approval_pending", APPROVAL_TEXT.pending);
    }
    const setup = await setupFailure(entry, signal);
    if (setup !== undefined) return fail(setup);
    return (await layers.dispatch(admission.args, signal)).envelope;
  }

  async #approve(
    entry: Entry,
    args: JsonObject,
    signal: AbortSignal | undefined,
  ): Promise<"approved" | "denied" | "pending" | "aborted" | "unavailable"> {
    const approve = this.#context.approve;
    if (approve === undefined) return "unavailable";
    return await askApproval(approve, entry.server.id, entry.model.tool, args, signal);
  }
}

/** The approval decision a gate envelope shows, for the event. */
function approvalOf(envelope: ConnectEnvelope): ConnectApprovalDecision | undefined {
  switch (envelope.errorCode) {
    case "approval_pending":
      return "pending";
    case "approval_denied":
    case "approval_expired":
      return "denied";
    case undefined:
      return "approved";
  }
  // Refused before an approval existed (arguments, unknown tool) or after a decision.
  return envelope.approvalId === undefined ? undefined : "approved";
}

/** A gate envelope as the toolkit returns it (without the batch id). */
function fromGate(outcome: GateEnvelope): ConnectEnvelope {
  const extra = {
    ...(outcome.approvalId !== undefined ? { approvalId: outcome.approvalId } : {}),
    ...(outcome.effect !== undefined ? { effect: outcome.effect } : {}),
  };
  if (outcome.errorCode === "approval_pending") {
    return { ...fixed("approval_pending", APPROVAL_TEXT.pending), ...extra };
  }
  if (outcome.errorCode === "approval_denied") {
    return { ...fixed("approval_denied", APPROVAL_TEXT.denied), ...extra };
  }
  return {
    text: outcome.text,
    structured: outcome.structured,
    ...(outcome.errorCode !== undefined ? { errorCode: outcome.errorCode } : {}),
    ...extra,
  };
}

/** Sets the server up if needed; the code of a setup that failed, else `undefined`. */
function setupFailure(
  entry: Entry,
  signal: AbortSignal | undefined,
): Promise<ConnectCallErrorCode | undefined> {
  return entry.server.session.ready(signal).then(
    () => undefined,
    (error) => error instanceof SessionSetupError ? error.code : "mcp_transport_error",
  );
}

/** The failure envelope for any toolkit code (the read path's `failure` takes only its own codes). */
function fail(code: ConnectCallErrorCode): ConnectEnvelope {
  return { text: [], structured: null, errorCode: code };
}

function fixed(code: ConnectCallErrorCode, text: string): ConnectEnvelope {
  return { text: [text], structured: null, errorCode: code };
}
