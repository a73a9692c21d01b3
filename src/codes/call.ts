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
} as const satisfies StageCodes<"call">;
