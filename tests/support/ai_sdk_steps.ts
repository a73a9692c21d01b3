/**
 * Scripted model steps for the AI SDK's mock language models (`ai/test`), in the result shape
 * AI SDK 6 and 7 share: one tool call, or a text answer.
 */

/** Token usage of every scripted step. */
export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model step that calls one tool. */
export function toolCall(id: string, name: string, input: unknown) {
  return {
    content: [{
      type: "tool-call" as const,
      toolCallId: id,
      toolName: name,
      input: JSON.stringify(input),
    }],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

/** A model step that answers with text. */
export function answer(text: string) {
  return {
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage,
    warnings: [],
  };
}
