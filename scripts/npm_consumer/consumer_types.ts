// Type-checked by scripts/check_npm.ts against the installed package's .d.ts files (never run),
// in a project with every optional package installed (`ai` 6 in one, 7 in another): the public
// entries resolve under NodeNext, their types are real (not `any`), a wrong option is a type
// error, and the AI SDK tool set goes to generateText / streamText as it is.
import { generateText, streamText } from "ai";
import { connect, digest, type ToolkitEnvelope } from "@sluice/mcp";
import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
import { PostgresApprovalStore } from "@sluice/mcp/postgres";
import { toAISDKTools } from "@sluice/mcp/ai-sdk";

const store: LibsqlApprovalStore = await LibsqlApprovalStore.open("approvals.db");
const connection = await connect("https://mcp.example.com/mcp", {
  id: "docs",
  allow: ["search"],
  store,
});
const envelope: ToolkitEnvelope = await connection.toolkit.call("docs__search", { q: "x" });
const text: readonly string[] = envelope.text;
const named: string = connection.toolkit.toAnthropicTools()[0].name;
const hash: `sha256:${string}` | string = await digest({ text, named });
console.log(hash);
// @ts-expect-error: an unknown option is refused by the types
await connect("https://mcp.example.com/mcp", { id: "docs", allow: ["search"], bogus: true });
// @ts-expect-error: the envelope has no such member
console.log(envelope.output);

const shared: PostgresApprovalStore = await PostgresApprovalStore.open("postgres://u@db/approvals");
const tools = toAISDKTools(connection.toolkit, {
  provider: "openai",
  strict: true,
  approvals: { store: shared, decidedBy: "alice@example.com", runId: "chat-1" },
});
declare const model: Parameters<typeof generateText>[0]["model"];
await generateText({ model, tools, prompt: "search the docs" });
streamText({ model, tools, prompt: "search the docs" });
console.log(tools.report.refused.length);
