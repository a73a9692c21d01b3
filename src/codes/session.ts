/**
 * The `session` stage of the code catalog (a session with one MCP server);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `session` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const SESSION_CODES = {
  mcp_aborted: {
    stage: "session",
    in: ["DeadlineStop"],
    meaning: "The caller's signal aborted the request.",
  },
  mcp_connection_closed: { stage: "session", meaning: "The session is closed." },
  mcp_handshake_failed: {
    stage: "session",
    meaning: "Setting the session up failed (unusable reply, HTTP error, broken JSON-RPC).",
  },
  mcp_protocol_error: {
    stage: "session",
    meaning: "The server answered with a JSON-RPC error or a reply that is not JSON-RPC.",
  },
  mcp_protocol_version_unsupported: {
    stage: "session",
    meaning: "The server answered a protocol version outside sluice's allowlist.",
  },
  mcp_timeout: {
    stage: "session",
    in: ["DeadlineStop"],
    meaning: "The request's deadline passed; a late result is discarded.",
  },
  mcp_transport_error: {
    stage: "session",
    meaning: "The transport failed, and no sluice transport code says why.",
  },
  mcp_input_required_unsupported: {
    stage: "session",
    meaning:
      "The server answered `input_required` (it needs elicitation, sampling or other input), which sluice cannot provide.",
  },
} as const satisfies StageCodes<"session">;
