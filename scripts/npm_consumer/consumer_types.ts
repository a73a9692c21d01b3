// Type-checked by scripts/check_npm.ts against the installed package's .d.ts files (never run):
// the public entries resolve under NodeNext, their types are real (not `any`), and a wrong
// option is a type error.
import { connect, digest, type ToolkitEnvelope } from "@sluice/mcp";
import { LibsqlApprovalStore } from "@sluice/mcp/libsql";

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
