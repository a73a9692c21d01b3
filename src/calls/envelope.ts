import type { JsonValue } from "../identity/mod.ts";

/** Why a call produced no result. A fixed string; remote error text never appears. */
export type CallErrorCode =
  /** The arguments are not a JSON object within budget that fits the input schema. */
  | "mcp_invalid_arguments"
  /** The host's scope validator denied (or threw). */
  | "mcp_scope_denied"
  /** The server's tool list changed since discovery; nothing was sent. */
  | "mcp_catalog_stale"
  /** The session or the monitor is closed. */
  | "mcp_connection_closed"
  /** The deadline passed or the caller aborted; a late result is discarded. */
  | "mcp_timeout"
  /** The server answered with a JSON-RPC error or a malformed result. */
  | "mcp_protocol_error"
  /** The transport failed. */
  | "mcp_transport_error"
  /** The tool reported an error (`isError`); its text is dropped. */
  | "mcp_tool_error"
  /** The result breaks the tool's output schema or the result format. */
  | "mcp_result_invalid"
  /** The result carries content sluice does not pass on (image, audio, resources, tasks). */
  | "mcp_result_unsupported"
  /** The result exceeds the block or byte budget. */
  | "mcp_result_too_large";

/**
 * What a model gets back from a tool call. On failure `text` is empty, `structured` is `null`
 * and `errorCode` says why.
 */
export interface ToolEnvelope {
  /** The text blocks of the result, in order. */
  readonly text: readonly string[];
  /** The validated structured content, or `null`. */
  readonly structured: JsonValue | null;
  /** Present exactly when the call failed. */
  readonly errorCode?: CallErrorCode;
}

/** The failure envelope for `code`. */
export function failure(code: CallErrorCode): ToolEnvelope {
  return { text: [], structured: null, errorCode: code };
}
