// The exports against the official SDKs' own types. These imports are type-only and exist
// only in this test: `deno check` fails here if an export's shape drifts from what the SDK
// accepts. The runtime part checks the same values are what the SDKs' docs show on the wire.
import assert from "node:assert/strict";
import type { FunctionDeclaration, Tool as GeminiTool } from "@google/genai";
import type { Tool as AnthropicSdkTool } from "@anthropic-ai/sdk/resources/messages";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import type { FunctionTool } from "openai/resources/responses/responses";
import {
  type ProviderToolSource,
  toAnthropicTools,
  toGeminiTools,
  toOpenAIResponsesTools,
  toOpenAITools,
} from "../../mod.ts";

const SOURCES: ProviderToolSource[] = [{
  name: "docs__search",
  description: "Search the docs.",
  inputSchema: {
    type: "object",
    properties: { q: { type: "string" }, limit: { type: "integer" } },
    required: ["q"],
    additionalProperties: false,
  },
}];

Deno.test("exports are assignable to the official SDK types", () => {
  for (const strict of [false, true]) {
    const chat: ChatCompletionTool[] = toOpenAITools(SOURCES, { strict });
    const responses: FunctionTool[] = toOpenAIResponsesTools(SOURCES, { strict });
    const anthropic: AnthropicSdkTool[] = toAnthropicTools(SOURCES, { strict });
    assert.equal(chat.length, 1);
    assert.equal(responses[0].strict, strict);
    assert.equal(anthropic[0].input_schema.type, "object");
  }
  const declarations: FunctionDeclaration[] = toGeminiTools(SOURCES);
  const gemini: GeminiTool = { functionDeclarations: toGeminiTools(SOURCES) };
  assert.equal(declarations[0].name, "docs__search");
  assert.equal(gemini.functionDeclarations?.length, 1);
});
