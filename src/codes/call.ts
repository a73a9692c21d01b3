/**
 * The `call` stage of the code catalog (one call: arguments, deadline, result);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `call` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const CALL_CODES = {
  mcp_catalog_stale: {
    stage: "call",
    meaning: "The server's tool list changed since discovery; nothing was sent.",
  },
  mcp_invalid_arguments: {
    stage: "call",
    meaning: "The arguments are not a JSON object within budget that fits the input schema.",
  },
  mcp_result_invalid: {
    stage: "call",
    meaning: "The result breaks the tool's output schema or the result format.",
  },
  mcp_result_too_large: {
    stage: "call",
    meaning: "The result exceeds the block or byte budget.",
  },
  mcp_result_unsupported: {
    stage: "call",
    meaning: "The result carries content sluice does not pass on (image, audio, resources, tasks).",
  },
  mcp_scope_denied: { stage: "call", meaning: "The host's scope validator denied (or threw)." },
  mcp_tool_error: {
    stage: "call",
    meaning: "The tool reported an error (`isError`); its text is dropped.",
  },
  mcp_result_hidden_text: {
    stage: "call",
    meaning:
      'With `screenResults: "refuse"`: the result holds hidden or deceptive text (Tag characters, bidi controls, invisible characters, terminal escapes) a model would read and a person would not see.',
  },
  elicitation_request_invalid: {
    stage: "call",
    meaning:
      "A server's elicitation request is malformed or in no mode sluice knows; declined without asking the host.",
  },
  elicitation_schema_unsupported: {
    stage: "call",
    meaning:
      "A form elicitation's requested schema is outside the schema profile or is not a flat object of string, number, integer, boolean and enum properties; declined.",
  },
  elicitation_mode_unsupported: {
    stage: "call",
    meaning:
      "The server asked in a mode the host does not answer (URL mode not enabled, or no handler); declined.",
  },
  elicitation_url_refused: {
    stage: "call",
    meaning:
      "A URL elicitation's URL breaks the outbound URL rules (https only, no credentials, no IP literal); declined, never shown.",
  },
  elicitation_answer_invalid: {
    stage: "call",
    meaning:
      "The host's answer does not fit the requested schema (or is not an answer); `cancel` was sent instead, none of it.",
  },
  elicitation_handler_failed: {
    stage: "call",
    meaning:
      "The host's elicit handler threw, rejected, or the call ended first; `cancel` was sent.",
  },
  mcp_input_required_rounds_exceeded: {
    stage: "call",
    meaning:
      "The server answered `input_required` more times in a row than `maxInputRounds` allows; no further round was sent.",
  },
  mcp_input_required_too_large: {
    stage: "call",
    meaning:
      "An `input_required` result carries more input requests, or a larger `requestState`, than sluice's bounds allow.",
  },
} as const satisfies StageCodes<"call">;
