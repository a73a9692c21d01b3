// The tool set is a `ToolSet` of AI SDK 7 (`ai`) and AI SDK 6 (`ai6`, the second version deno.json
// pins) as it is, without naming either's types: `deno check` of this file is the test (a set
// typed with `inputSchema: unknown`, as it was, fails it four times). The runtime flow on both
// majors is in ai_sdk_approval_test.ts and ai_sdk_majors_test.ts.
import assert from "node:assert/strict";
import { generateText, type LanguageModel, streamText, type ToolSet } from "ai";
import {
  generateText as generateText6,
  type LanguageModel as LanguageModel6,
  streamText as streamText6,
  type ToolSet as ToolSet6,
} from "ai6";
import { type AISDKToolkit, toAISDKTools } from "../../ai-sdk.ts";
import { MemoryApprovalStore, type ProviderExportReport } from "../../mod.ts";

/** Compiles only when the calls type-check; never run. */
export function typeCheckOnly(toolkit: AISDKToolkit, model: LanguageModel, model6: LanguageModel6) {
  const tools = toAISDKTools(toolkit, {
    provider: "openai",
    strict: true,
    approvals: { store: new MemoryApprovalStore(), decidedBy: "alice", runId: "chat" },
  });
  const set7: ToolSet = tools;
  const set6: ToolSet6 = tools;
  const refused: ProviderExportReport["refused"] = tools.report.refused;
  return [
    generateText({ model, tools, prompt: "p" }),
    streamText({ model, tools, prompt: "p" }),
    generateText6({ model: model6, tools, prompt: "p" }),
    streamText6({ model: model6, tools, prompt: "p" }),
    set7,
    set6,
    refused,
  ];
}

Deno.test("toAISDKTools: needsApproval only on tools that need approval, only with approvals", () => {
  const toolkit: AISDKToolkit = {
    tools: [
      { name: "read", description: "r", inputSchema: { type: "object" } },
      { name: "write", description: "w", inputSchema: { type: "object" }, requiresApproval: true },
    ],
    call: () => Promise.resolve({ text: [], structured: null }),
  };
  const approvals = { store: new MemoryApprovalStore(), decidedBy: "alice" };
  const asked = toAISDKTools(toolkit, { approvals });
  assert.deepEqual(Object.keys(asked).sort(), ["read", "write"]);
  assert.equal(typeof asked.write.needsApproval, "function");
  assert.equal(asked.read.needsApproval, undefined);
  assert.equal(toAISDKTools(toolkit).write.needsApproval, undefined);
  assert.equal(typeof typeCheckOnly, "function");
});
