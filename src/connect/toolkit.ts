/**
 * The toolkit: the allowlisted tools of a connection as the model sees them. Every call runs
 * through the connection's one `Gate`.
 *
 * @module
 */
import { codeOf } from "../codes.ts";
import { failure, type ToolEnvelope } from "../calls/envelope.ts";
import type { ApprovalStore } from "../approvals/types.ts";
import type { Gate } from "../gate/gate.ts";
import type { GateEnvelope, GateErrorCode } from "../gate/types.ts";
import {
  type AnthropicExportOptions,
  type AnthropicTool,
  type GeminiExportOptions,
  type GeminiFunctionDeclaration,
  type NullRecord,
  type OpenAIExportOptions,
  type OpenAIResponsesTool,
  type OpenAITool,
  type ProviderTools,
  type ProviderToolSource,
  stripExportNulls,
  toAnthropicTools,
  toGeminiTools,
  toOpenAIResponsesTools,
  toOpenAITools,
} from "../providers/mod.ts";
import { ProviderExports } from "../providers/export_cache.ts";
import type { ConnectedTool } from "./discovery.ts";
import { type ConnectApprovalDecision, type ConnectEvent, elapsed, emitEvent } from "./events.ts";
import type { ConnectSession } from "../session/connect_session.ts";
import type { CodeIn } from "../codes.ts";

/**
 * Every code a toolkit envelope can carry: the gate's, and `mcp_server_unavailable` for a tool
 * whose server could not be set up (its code in `envelope.cause`).
 *
 * @category Agent developers: connect()
 */
export type ToolkitErrorCode = GateErrorCode | CodeIn<"ToolkitErrorCode">;

/**
 * What `toolkit.call` and `toolkit.resume` return: the one envelope, with the toolkit's codes.
 *
 * @category Agent developers: connect()
 */
export type ToolkitEnvelope = ToolEnvelope<ToolkitErrorCode>;

/**
 * One model-facing tool of a toolkit.
 *
 * @category Agent developers: connect()
 */
export interface ToolkitTool extends ProviderToolSource {
  /** Server id. */
  readonly server: string;
  /** Remote tool name. */
  readonly tool: string;
  /** Whether each call needs an approval. */
  readonly requiresApproval: boolean;
}

/**
 * Options of one toolkit call.
 *
 * @category Agent developers: connect()
 */
export interface ToolkitCallOptions {
  /** Aborts the call (the envelope then says `mcp_aborted`). */
  readonly signal?: AbortSignal;
  /**
   * Calls that need approval: the agent run (default: one id per connection). With `callId`
   * it names the call's approval, so repeating a call after a restart finds the same approval.
   */
  readonly runId?: string;
  /** Calls that need approval: the model's tool call id (default: a fresh id per call). */
  readonly callId?: string;
  /**
   * The tool's null record from a strict export (`report.nullable[name]`): the model's `null`
   * for an optional property made nullable there is removed before the original schema sees
   * the arguments, so the server gets the property absent.
   */
  readonly strictNulls?: NullRecord;
}

/**
 * Options of `toolkit.resume`.
 *
 * @category Agent developers: connect()
 */
export interface ToolkitResumeOptions {
  /** Aborts waiting (a sent write then ends with effect `unknown`). */
  readonly signal?: AbortSignal;
}

/**
 * One server's part of a toolkit.
 *
 * @category Agent developers: connect()
 */
export interface ToolkitServer {
  readonly id: string;
  readonly session: ConnectSession;
  readonly tools: readonly ConnectedTool[];
  /**
   * Set when the server could not be set up: its code, and the allowed tools that are not
   * callable because of it (they answer `mcp_server_unavailable`, not `unknown_tool`).
   */
  readonly failure?: {
    readonly cause: string;
    readonly tools: readonly { readonly name: string; readonly tool: string }[];
  };
}

/**
 * What the toolkit needs from connect().
 *
 * @category Agent developers: connect()
 */
export interface ToolkitContext {
  readonly servers: readonly ToolkitServer[];
  /** The connection's gate: every call goes through it. */
  readonly gate: Gate;
  /** The approval store the gate uses, when one is configured (resume needs it). */
  readonly store?: ApprovalStore;
  readonly onEvent?: (event: ConnectEvent) => void;
  /** Default run id of calls. */
  readonly runId: string;
}

interface Entry {
  readonly server: ToolkitServer;
  readonly connected: ConnectedTool;
  readonly model: ToolkitTool;
}

/** An allowed tool of a server that could not be set up. */
interface Unavailable {
  readonly server: string;
  readonly tool: string;
  readonly cause: string;
}

/** Who a call event is about. */
interface CallSubject {
  readonly server: string;
  readonly tool: string;
  readonly catalogDigest: string | null;
}

let reload: (toolkit: Toolkit, servers: readonly ToolkitServer[], gate: Gate) => void;
let exportsOfToolkit: (toolkit: Toolkit) => ProviderExports;

/**
 * The provider exports of a toolkit's current tools, each made once (what `report().providers`
 * reads, so a report and the host's own exports translate each schema once). Not part of the
 * public API.
 *
 * @param toolkit the connection's toolkit
 *
 * @category Agent developers: connect()
 */
export function toolkitExports(toolkit: Toolkit): ProviderExports {
  return exportsOfToolkit(toolkit);
}

/**
 * Gives a toolkit new servers' tools and the gate they run through (connect() does this when
 * a revision is accepted). Not part of the public API.
 *
 * @param toolkit the connection's toolkit
 * @param servers every server's tools now
 * @param gate the gate over those tools
 *
 * @category Agent developers: connect()
 */
export function reloadToolkit(
  toolkit: Toolkit,
  servers: readonly ToolkitServer[],
  gate: Gate,
): void {
  reload(toolkit, servers, gate);
}

/**
 * The allowlisted tools of a connection, as the model sees them. `call` never throws; the
 * provider exports give each API's exact tool shape.
 *
 * @category Agent developers: connect()
 */
export class Toolkit {
  #tools: readonly ToolkitTool[] = [];
  #exports = new ProviderExports(this.#tools);
  #entries: ReadonlyMap<string, Entry> = new Map();
  #unavailable: ReadonlyMap<string, Unavailable> = new Map();
  #gate: Gate;
  readonly #context: ToolkitContext;

  static {
    reload = (toolkit, servers, gate) => toolkit.#load(servers, gate);
    exportsOfToolkit = (toolkit) => toolkit.#exports;
  }

  /**
   * Builds the toolkit from discovered servers (connect() does this).
   *
   * @param context the servers' catalogs, the gate and the event sink
   */
  constructor(context: ToolkitContext) {
    this.#context = context;
    this.#gate = context.gate;
    this.#load(context.servers, context.gate);
  }

  /**
   * The model-facing tools, sorted by name: a frozen array, replaced by a new one when a
   * revision is accepted or a failed server is reconnected (an array handed out before stays
   * as it was: export again to show a model the new tools).
   */
  get tools(): readonly ToolkitTool[] {
    return this.#tools;
  }

  #load(servers: readonly ToolkitServer[], gate: Gate): void {
    const entries = new Map<string, Entry>();
    const unavailable = new Map<string, Unavailable>();
    for (const server of servers) {
      for (const tool of server.failure?.tools ?? []) {
        unavailable.set(tool.name, {
          server: server.id,
          tool: tool.tool,
          cause: server.failure!.cause,
        });
      }
      for (const connected of server.tools) {
        const { registration } = connected;
        const model: ToolkitTool = Object.freeze({
          name: registration.localName,
          description: registration.description,
          inputSchema: registration.inputSchema,
          server: server.id,
          tool: registration.remoteName,
          requiresApproval: connected.policy.requiresApproval,
        });
        entries.set(model.name, { server, connected, model });
      }
    }
    this.#entries = entries;
    this.#unavailable = unavailable;
    this.#gate = gate;
    this.#tools = Object.freeze(
      [...entries.values()].map((entry) => entry.model).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0
      ),
    );
    this.#exports = new ProviderExports(this.#tools);
  }

  /**
   * Anthropic tool definitions (`{ name, description, input_schema }`; `strict` on request).
   * A tool the provider cannot take as it is, is left out and named in `.report`.
   *
   * @param options strict mode and the other export options
   */
  toAnthropicTools(options?: AnthropicExportOptions): ProviderTools<AnthropicTool> {
    return this.#exports.get(toAnthropicTools, options);
  }

  /**
   * OpenAI Chat Completions tool definitions (`strict` on request); refusals in `.report`.
   *
   * @param options strict mode and the other export options
   */
  toOpenAITools(options?: OpenAIExportOptions): ProviderTools<OpenAITool> {
    return this.#exports.get(toOpenAITools, options);
  }

  /**
   * OpenAI Responses API function tools, `strict` always stated; refusals in `.report`.
   *
   * @param options strict mode and the other export options
   */
  toOpenAIResponsesTools(options?: OpenAIExportOptions): ProviderTools<OpenAIResponsesTool> {
    return this.#exports.get(toOpenAIResponsesTools, options);
  }

  /**
   * Gemini function declarations (`{ name, description, parametersJsonSchema }`); what Gemini
   * ignores is reported as lossy in `.report` (`exact: true` refuses those tools instead).
   *
   * @param options the export options
   */
  toGeminiTools(options?: GeminiExportOptions): ProviderTools<GeminiFunctionDeclaration> {
    return this.#exports.get(toGeminiTools, options);
  }

  /**
   * Runs one model tool call through the gate: local argument checks, the approval (inline,
   * deferred to the store, or unavailable), exactly one `tools/call`, result checks. Never
   * throws; emits one event.
   *
   * @param name the model-facing tool name
   * @param args the model's arguments
   * @param options abort signal, run and call ids
   */
  async call(
    name: string,
    args: unknown,
    options: ToolkitCallOptions = {},
  ): Promise<ToolkitEnvelope> {
    const start = performance.now();
    const entry = typeof name === "string" ? this.#entries.get(name) : undefined;
    const down = entry === undefined && typeof name === "string"
      ? this.#unavailable.get(name)
      : undefined;
    let envelope: ToolkitEnvelope;
    if (down !== undefined) {
      envelope = failure("mcp_server_unavailable", { cause: down.cause });
    } else if (entry === undefined) {
      envelope = failure("unknown_tool");
    } else {
      try {
        const [outcome] = await this.#gate.run([{
          id: options.callId ?? crypto.randomUUID(),
          name,
          arguments: options.strictNulls ? stripExportNulls(args, options.strictNulls) : args,
        }], {
          runId: options.runId ?? this.#context.runId,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        envelope = withoutId(outcome);
      } catch {
        envelope = failure("mcp_protocol_error");
      }
    }
    return this.#emitCall(start, entry, down, envelope);
  }

  /**
   * Runs a call whose approval a person has decided since (in the approval store, for
   * example with `sluice approvals approve <id>`). An approved call is dispatched exactly
   * once; a pending one stays `approval_pending`; a denied or expired one is not run. Never
   * throws; emits one call event.
   *
   * @param approvalId the id from an `approval_pending` envelope
   * @param options abort signal
   */
  async resume(approvalId: string, options: ToolkitResumeOptions = {}): Promise<ToolkitEnvelope> {
    const start = performance.now();
    const { store } = this.#context;
    const gate = this.#gate;
    let entry: Entry | undefined;
    let down: Unavailable | undefined;
    let envelope: ToolkitEnvelope;
    try {
      const record = store && typeof approvalId === "string"
        ? await store.get(approvalId).catch(() => undefined)
        : undefined;
      entry = record === undefined ? undefined : this.#entries.get(record.toolName);
      down = record === undefined || entry !== undefined
        ? undefined
        : this.#unavailable.get(record.toolName);
      if (down !== undefined) {
        // Nothing is claimed: the approval stays approved until the server is back.
        envelope = failure("mcp_server_unavailable", {
          cause: down.cause,
          effect: "not_started",
          approvalId,
        });
      } else if (record === undefined || entry === undefined) {
        envelope = failure("approval_not_found");
      } else {
        // Set the server up before the gate claims: a server that cannot be reached now leaves
        // the approval approved for a later resume instead of using it up.
        const setup = await entry.server.session.ready(options.signal).then(
          () => undefined,
          (error) => (codeOf(error) ?? "mcp_transport_error") as GateErrorCode,
        );
        envelope = setup !== undefined
          ? failure(setup, { effect: "not_started", approvalId })
          : withoutId(
            await gate.resume(approvalId, options.signal ? { signal: options.signal } : {}),
          );
      }
    } catch {
      envelope = failure("mcp_protocol_error");
    }
    return this.#emitCall(start, entry, down, envelope);
  }

  /** Emits the one call event of a `call` or `resume` and hands the envelope back. */
  #emitCall(
    start: number,
    entry: Entry | undefined,
    down: Unavailable | undefined,
    envelope: ToolkitEnvelope,
  ): ToolkitEnvelope {
    // Calls are the hot path: no event is built when nobody listens.
    if (this.#context.onEvent === undefined) return envelope;
    const subject = subjectOf(entry, down);
    const approval = entry === undefined ? undefined : approvalOf(entry, envelope);
    emitEvent(this.#context.onEvent, {
      kind: "call",
      server: subject?.server ?? "",
      ...(subject ? { tool: subject.tool } : {}),
      ok: envelope.errorCode === undefined,
      ...(envelope.errorCode !== undefined ? { errorCode: envelope.errorCode } : {}),
      ...(approval !== undefined ? { approval } : {}),
      durationMs: elapsed(start),
      catalogDigest: subject?.catalogDigest ?? null,
    });
    return envelope;
  }
}

/** The server and tool a call event names: a ready tool's, or an unavailable one's. */
function subjectOf(
  entry: Entry | undefined,
  down: Unavailable | undefined,
): CallSubject | undefined {
  if (entry !== undefined) {
    return {
      server: entry.server.id,
      tool: entry.model.tool,
      catalogDigest: entry.connected.catalogDigest,
    };
  }
  return down === undefined
    ? undefined
    : { server: down.server, tool: down.tool, catalogDigest: null };
}

/** The approval decision an envelope shows, for the event. */
function approvalOf(entry: Entry, envelope: ToolkitEnvelope): ConnectApprovalDecision | undefined {
  if (!entry.model.requiresApproval) return "not_required";
  switch (envelope.errorCode) {
    case "approval_pending":
      return "pending";
    case "approval_denied":
    case "approval_expired":
    case "approval_unavailable":
      return "denied";
    case undefined:
      return "approved";
  }
  // Refused before an approval existed (arguments, abort) or after a decision.
  return envelope.approvalId === undefined ? undefined : "approved";
}

/** The gate's envelope without the batch's call id. */
function withoutId(outcome: GateEnvelope): ToolkitEnvelope {
  const { id: _id, ...envelope } = outcome;
  return envelope;
}
