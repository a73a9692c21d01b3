import type { JsonObject, JsonValue } from "../identity/mod.ts";
import { type CallErrorCode, failure } from "../calls/envelope.ts";
import { callInternals } from "../calls/registration.ts";
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
import { type ApprovalDecision, type ConnectEvent, elapsed, emitEvent } from "./events.ts";
import { askApproval } from "./governance.ts";
import { type ServerSession, SessionSetupError, type SessionSetupErrorCode } from "./session.ts";

/** Why a toolkit call produced no result. */
export type ConnectCallErrorCode =
  | CallErrorCode
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
}

/** One server's part of a toolkit. */
export interface ToolkitServer {
  readonly id: string;
  readonly session: ServerSession;
  readonly catalogDigest: string | null;
  readonly tools: readonly ConnectedTool[];
}

/** What the toolkit needs from connect(). */
export interface ToolkitContext {
  readonly servers: readonly ToolkitServer[];
  readonly approve?: ApproveCallback;
  readonly onEvent?: (event: ConnectEvent) => void;
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
        const registration = connected.registration;
        const model: ToolkitTool = Object.freeze({
          name: registration.localName,
          description: registration.description,
          inputSchema: registration.inputSchema,
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
    let approval: ApprovalDecision | undefined;
    let envelope: ConnectEnvelope;
    try {
      envelope = entry === undefined
        ? failure("unknown_tool" as CallErrorCode)
        : await this.#run(entry, args, options.signal, (decision) => approval = decision);
    } catch {
      envelope = failure("mcp_protocol_error");
    }
    emitEvent(this.#context.onEvent, {
      kind: "call",
      server: entry?.server.id ?? "",
      ...(entry ? { tool: entry.model.tool } : {}),
      ok: envelope.errorCode === undefined,
      ...(envelope.errorCode !== undefined ? { errorCode: envelope.errorCode } : {}),
      ...(approval !== undefined ? { approval } : {}),
      durationMs: elapsed(start),
      catalogDigest: entry?.server.catalogDigest ?? null,
    });
    return envelope;
  }

  async #run(
    entry: Entry,
    args: unknown,
    signal: AbortSignal | undefined,
    recordApproval: (decision: ApprovalDecision) => void,
  ): Promise<ConnectEnvelope> {
    const layers = callInternals(entry.connected.registration);
    if (layers === undefined) return failure("mcp_protocol_error");
    const admission = await layers.admit(args, undefined, signal);
    if (!admission.ok) return failure(admission.errorCode);
    if (!entry.model.requiresApproval) {
      recordApproval("not_required");
    } else {
      const outcome = await this.#approve(entry, admission.args, signal);
      recordApproval(outcome === "aborted" || outcome === "unavailable" ? "denied" : outcome);
      if (outcome === "aborted") return failure("mcp_timeout");
      if (outcome === "unavailable") {
        return fixed("approval_unavailable", APPROVAL_TEXT.unavailable);
      }
      if (outcome === "denied") return fixed("approval_denied", APPROVAL_TEXT.denied);
      if (outcome === "pending") return fixed("approval_pending", APPROVAL_TEXT.pending);
    }
    try {
      await entry.server.session.ready(signal);
    } catch (error) {
      return failure(
        (error instanceof SessionSetupError ? error.code : "mcp_transport_error") as CallErrorCode,
      );
    }
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

function fixed(code: ConnectCallErrorCode, text: string): ConnectEnvelope {
  return { text: [text], structured: null, errorCode: code };
}
